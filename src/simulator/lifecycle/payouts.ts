import type { SimMarket } from '../catalogue/types.ts';
import type { Prng } from '../prng.ts';
import type { Payouts } from './resolution.ts';

const ONE = 1_000_000n;
const CENT = 10_000n;

/**
 * How an event's markets resolve. A neg-risk group (three-way result, multi-outcome candidates)
 * has exactly one YES winner; any other market wins on the side its price favoured, or now and
 * then splits: half the splits are 50/50 (VOID), the rest on the cent grid, so every payout of
 * whole lots is exact.
 */
export function decidePayouts(
  markets: SimMarket[],
  markOf: (m: SimMarket) => bigint,
  rng: Prng,
  splitRate: number,
): Map<string, Payouts> {
  const out = new Map<string, Payouts>();
  const groups = new Map<string, SimMarket[]>();
  for (const market of markets) {
    if (market.negRiskId === undefined) {
      out.set(market.conditionId, singlePayouts(markOf(market), rng, splitRate));
      continue;
    }
    groups.set(market.negRiskId, [...(groups.get(market.negRiskId) ?? []), market]);
  }
  for (const members of groups.values()) {
    const winner = weightedPick(members, members.map(markOf), rng);
    for (const m of members) out.set(m.conditionId, m === winner ? [ONE, 0n] : [0n, ONE]);
  }
  return out;
}

/** A binary market alone: the winner drawn with its outcome-0 price as probability, or a split. */
export function singlePayouts(mark0Micro: bigint, rng: Prng, splitRate: number): Payouts {
  if (rng.chance(splitRate)) {
    const p0 = rng.chance(0.5) ? ONE / 2n : BigInt(rng.int(5, 95)) * CENT;
    return [p0, ONE - p0];
  }
  return rng.chance(Number(mark0Micro) / 1e6) ? [ONE, 0n] : [0n, ONE];
}

function weightedPick<T>(items: T[], weights: bigint[], rng: Prng): T {
  const total = weights.reduce((s, w) => s + Number(w), 0);
  let roll = rng.float() * total;
  for (let i = 0; i < items.length; i++) {
    roll -= Number(weights[i] ?? 0n);
    if (roll < 0) return items[i] as T;
  }
  return items[items.length - 1] as T;
}
