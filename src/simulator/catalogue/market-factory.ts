import type { Prng } from '../prng.ts';
import type {
  LpIncentiveConfig,
  MarketState,
  RecurringCycle,
  ResolutionStatus,
  SimMarket,
  SimOutcome,
} from './types.ts';

export interface OutcomeSpec {
  label: string;
  shortLabel?: string;
  kind?: string;
  teamSide?: string;
  threshold?: number;
}

export interface MarketSpec {
  eventId: string;
  slug: string;
  question: string;
  sourceMarketType: string;
  displayLabel: string;
  outcomes: [OutcomeSpec, OutcomeSpec];
  state: MarketState;
  resolutionStatus: ResolutionStatus;
  openMs: number;
  closeMs: number;
  initialPriceMicro: bigint;
  line?: string;
  negRiskId?: string;
  threeWayRole?: 'home' | 'draw' | 'away';
  gameNumber?: number;
  recurring?: RecurringCycle;
  /** Outcome index that won, or 'void' for a split payout; only for RESOLVED markets. */
  winner?: 0 | 1 | 'void';
  halted?: { atMs: number; reason: string };
  playerName?: string;
  statType?: string;
  description?: string;
}

const CENT = 10_000n;
const MILLI = 1_000n;

/** Polymarket-like grid: cent ticks, a tenth of a cent near the extremes. */
function tickFor(priceMicro: bigint): bigint {
  return priceMicro < 40_000n || priceMicro > 960_000n ? MILLI : CENT;
}

function snapToTick(priceMicro: bigint, tick: bigint): bigint {
  const snapped = (priceMicro / tick) * tick;
  if (snapped <= 0n) return tick;
  if (snapped >= 1_000_000n) return 1_000_000n - tick;
  return snapped;
}

export function conditionIdFrom(rng: Prng): string {
  return `0x${rng.hex(64)}`;
}

export function buildMarket(rng: Prng, spec: MarketSpec): SimMarket {
  const tickMicro = tickFor(spec.initialPriceMicro);
  const initialPriceMicro = snapToTick(spec.initialPriceMicro, tickMicro);
  const outcomes = spec.outcomes.map((o, index): SimOutcome => {
    const resolutionPriceMicro =
      spec.winner === undefined
        ? undefined
        : spec.winner === 'void'
          ? 500_000n
          : spec.winner === index
            ? 1_000_000n
            : 0n;
    return {
      id: rng.uuid(),
      index: index as 0 | 1,
      label: o.label,
      shortLabel: o.shortLabel ?? o.label.slice(0, 3).toUpperCase(),
      tokenId: rng.decimalId(77),
      kind: o.kind,
      teamSide: o.teamSide,
      side: index === 0 ? 'left' : 'right',
      threshold: o.threshold,
      betSlipTitle: `${spec.question} — ${o.label}`,
      resolutionLabel: o.label,
      resolutionPriceMicro,
    };
  }) as [SimOutcome, SimOutcome];
  const lpIncentive: LpIncentiveConfig | undefined =
    spec.state === 'ACTIVE' && rng.chance(0.6)
      ? {
          poolMicro: BigInt(rng.int(5, 200)) * 10_000_000n,
          maxSpreadMicro: rng.pick([20_000, 30_000, 45_000]),
          minSharesMicro: BigInt(rng.pick([10, 20, 50, 100])) * 1_000_000n,
        }
      : undefined;
  return {
    id: rng.uuid(),
    slug: spec.slug,
    question: spec.question,
    conditionId: conditionIdFrom(rng),
    negRiskId: spec.negRiskId,
    eventId: spec.eventId,
    state: spec.state,
    resolutionStatus: spec.resolutionStatus,
    haltedAtMs: spec.halted?.atMs,
    haltedReason: spec.halted?.reason,
    resolvedAtMs: spec.state === 'RESOLVED' ? spec.closeMs + 600_000 : undefined,
    archivedAtMs: undefined,
    resolutionOutcome:
      spec.winner === undefined ? undefined : spec.winner === 'void' ? 'VOID' : outcomes[spec.winner]?.label,
    sourceMarketType: spec.sourceMarketType,
    line: spec.line,
    displayLabel: spec.displayLabel,
    tickMicro,
    priceScale: Number(1_000_000n / tickMicro),
    sizeScale: 100,
    minOrderSizeMicro: BigInt(rng.pick([1, 5, 5, 5])) * 1_000_000n,
    outcomes,
    threeWayRole: spec.threeWayRole,
    gameNumber: spec.gameNumber,
    lpIncentive,
    volumeMicro: historicalVolume(spec.state, BigInt(rng.int(0, 5_000_000)) * 1_000_000n),
    closeMs: spec.closeMs,
    openMs: spec.openMs,
    initialPriceMicro,
    recurring: spec.recurring,
    description: spec.description ?? `Resolves according to the official result for: ${spec.question}`,
    resolutionSource: 'https://example.invalid/official-results',
    playerName: spec.playerName,
    statType: spec.statType,
  };
}

/** Volume traded before the simulator started; a market that has not opened yet has none (the draw is made all the
 * same, so ids stay as they were). */
function historicalVolume(state: MarketState, drawn: bigint): bigint {
  return state === 'DRAFT' || state === 'PROVISIONED' ? 0n : drawn;
}
