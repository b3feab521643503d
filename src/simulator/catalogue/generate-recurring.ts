import type { GenContext } from './gen-context.ts';
import type { MarketState, ResolutionStatus, SimEvent } from './types.ts';

/** How many cycles of each kind a recurring event carries besides the live one. */
export interface RecurringBacklog {
  settled: number;
  unsettled: number;
  /** Upcoming cycles after the live one; the first is PROVISIONED, the rest DRAFT. */
  upcoming: number;
}

const SERIES: Array<[asset: string, symbol: string, leaf: string, cadenceSeconds: number, reference: number]> = [
  ['Bitcoin', 'BTC', 'bitcoin', 900, 97_000],
  ['Ethereum', 'ETH', 'ethereum', 3_600, 3_400],
  ['Bitcoin', 'BTC', 'bitcoin', 86_400, 97_000],
];

function cadenceLabel(seconds: number): string {
  return seconds % 86_400 === 0 ? `${seconds / 86_400}d` : seconds % 3_600 === 0 ? `${seconds / 3_600}h` : `${seconds / 60}m`;
}

function cycleStates(offset: number, backlog: RecurringBacklog): { state: MarketState; resolution: ResolutionStatus } {
  if (offset === 0) return { state: 'ACTIVE', resolution: 'ACTIVE' };
  if (offset === 1) return { state: 'PROVISIONED', resolution: 'ACTIVE' };
  if (offset > 1) return { state: 'DRAFT', resolution: 'ACTIVE' };
  // offset < 0: the most recent `unsettled` closed cycles await resolution, older ones are settled.
  return -offset <= backlog.unsettled ? { state: 'CLOSED', resolution: 'PROPOSED' } : { state: 'RESOLVED', resolution: 'RESOLVED' };
}

function addCycles(ctx: GenContext, event: SimEvent, asset: string, symbol: string, cadenceSeconds: number, reference: number, backlog: RecurringBacklog): void {
  const cadenceMs = cadenceSeconds * 1000;
  const liveStart = Math.floor(ctx.nowMs / cadenceMs) * cadenceMs;
  for (let offset = -(backlog.settled + backlog.unsettled); offset <= backlog.upcoming; offset++) {
    const openMs = liveStart + offset * cadenceMs;
    const closeMs = openMs + cadenceMs;
    const { state, resolution } = cycleStates(offset, backlog);
    const cycleSlug = ctx.uniqueSlug(`${symbol}-updown-${cadenceLabel(cadenceSeconds)}-${Math.floor(openMs / 1000)}`);
    const referencePrice = Math.round(reference * (1 + ctx.rng.normal() * 0.01));
    const market = ctx.addMarket(event, 'upcoming', {
      slug: cycleSlug,
      question: `${asset} Up or Down — ${new Date(openMs).toISOString().slice(0, 16)}Z (${cadenceLabel(cadenceSeconds)})`,
      sourceMarketType: 'up_down',
      displayLabel: 'Up / Down',
      outcomes: [{ label: 'Up' }, { label: 'Down' }],
      initialPriceMicro: BigInt(ctx.rng.int(40, 60)) * 10_000n,
      state,
      resolutionStatus: resolution,
      openMs,
      closeMs,
      ...(state === 'RESOLVED' ? { winner: ctx.rng.pick([0, 1] as const) } : {}),
      recurring: { cycleIndex: offset, symbol, cadenceSeconds, referencePrice, observeAtMs: closeMs, slug: cycleSlug },
    });
    event.childSlugs.push(cycleSlug);
    if (offset === 0) event.mainMarketId = market.id;
  }
}

export function generateRecurring(ctx: GenContext, count: number, backlog: RecurringBacklog): void {
  for (let i = 0; i < count; i++) {
    const [asset, symbol, leaf, cadenceSeconds, reference] = SERIES[i % SERIES.length] ?? ['Bitcoin', 'BTC', 'bitcoin', 900, 97_000];
    const event = ctx.newEvent({
      title: `${asset} Up or Down ${cadenceLabel(cadenceSeconds)}`,
      eventType: 'RECURRING_PROPOSITION',
      scenario: 'upcoming',
      categoryKeys: ctx.leafKeysUnder('crypto', leaf),
      durationMs: 365 * 86_400_000,
      offsetHours: 0,
      tags: ['crypto', leaf, 'recurring'],
      description: `Resolves Up if the ${symbol} price at the end of the window is at or above the price at its start.`,
    });
    // A recurring series runs from its first cycle on; it is not "upcoming".
    const cadenceMs = cadenceSeconds * 1000;
    event.startMs = Math.floor(ctx.nowMs / cadenceMs) * cadenceMs - (backlog.settled + backlog.unsettled) * cadenceMs;
    // Smaller backlogs for the other series keep the catalogue light; the first carries the full window.
    const ownBacklog = i === 0 ? backlog : { settled: Math.min(backlog.settled, 6), unsettled: Math.min(backlog.unsettled, 2), upcoming: Math.min(backlog.upcoming, 4) };
    addCycles(ctx, event, asset, symbol, cadenceSeconds, reference, ownBacklog);
  }
}
