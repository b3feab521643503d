import type { Prng } from '../prng.ts';
import type { MarketSpec } from './market-factory.ts';
import type { MarketState, ResolutionStatus } from './types.ts';

/** One recurring series: an asset observed over windows of `cadenceSeconds`. */
export interface RecurringSeries {
  asset: string;
  symbol: string;
  cadenceSeconds: number;
  reference: number;
}

export function cadenceLabel(seconds: number): string {
  return seconds % 86_400 === 0
    ? `${seconds / 86_400}d`
    : seconds % 3_600 === 0
      ? `${seconds / 3_600}h`
      : seconds % 60 === 0
        ? `${seconds / 60}m`
        : `${seconds}s`;
}

export function cycleSlugBase(series: RecurringSeries, openMs: number): string {
  return `${series.symbol}-updown-${cadenceLabel(series.cadenceSeconds)}-${Math.floor(openMs / 1000)}`;
}

/**
 * The market of one cycle, as generation and the running venue (rolling to the next cycle) both
 * build it. The draws happen in a fixed order so a seed gives the same catalogue.
 */
export function cycleMarketSpec(
  rng: Prng,
  series: RecurringSeries,
  cycle: { index: number; openMs: number; slug: string; state: MarketState; resolutionStatus: ResolutionStatus },
): Omit<MarketSpec, 'eventId'> {
  const cadenceMs = series.cadenceSeconds * 1000;
  const closeMs = cycle.openMs + cadenceMs;
  const label = cadenceLabel(series.cadenceSeconds);
  const referencePrice = Math.round(series.reference * (1 + rng.normal() * 0.01));
  return {
    slug: cycle.slug,
    question: `${series.asset} Up or Down — ${new Date(cycle.openMs).toISOString().slice(0, 16)}Z (${label})`,
    sourceMarketType: 'up_down',
    displayLabel: 'Up / Down',
    outcomes: [{ label: 'Up' }, { label: 'Down' }],
    initialPriceMicro: BigInt(rng.int(40, 60)) * 10_000n,
    state: cycle.state,
    resolutionStatus: cycle.resolutionStatus,
    openMs: cycle.openMs,
    closeMs,
    ...(cycle.state === 'RESOLVED' ? { winner: rng.pick([0, 1] as const) } : {}),
    recurring: {
      cycleIndex: cycle.index,
      symbol: series.symbol,
      cadenceSeconds: series.cadenceSeconds,
      referencePrice,
      observeAtMs: closeMs,
      slug: cycle.slug,
    },
  };
}
