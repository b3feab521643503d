import type { GenContext } from './gen-context.ts';
import { cadenceLabel, cycleMarketSpec, cycleSlugBase, type RecurringSeries } from './recurring-cycle.ts';
import type { MarketState, ResolutionStatus, SimEvent } from './types.ts';

/** How many cycles of each kind a recurring event carries besides the live one. */
export interface RecurringBacklog {
  settled: number;
  unsettled: number;
  /** Upcoming cycles after the live one; the first is PROVISIONED, the rest DRAFT. */
  upcoming: number;
}

const SERIES: Array<RecurringSeries & { leaf: string }> = [
  { asset: 'Bitcoin', symbol: 'BTC', leaf: 'bitcoin', cadenceSeconds: 900, reference: 97_000 },
  { asset: 'Ethereum', symbol: 'ETH', leaf: 'ethereum', cadenceSeconds: 3_600, reference: 3_400 },
  { asset: 'Bitcoin', symbol: 'BTC', leaf: 'bitcoin', cadenceSeconds: 86_400, reference: 97_000 },
];

function cycleStates(offset: number, backlog: RecurringBacklog): { state: MarketState; resolution: ResolutionStatus } {
  if (offset === 0) return { state: 'ACTIVE', resolution: 'ACTIVE' };
  if (offset === 1) return { state: 'PROVISIONED', resolution: 'ACTIVE' };
  if (offset > 1) return { state: 'DRAFT', resolution: 'ACTIVE' };
  // offset < 0: the most recent `unsettled` closed cycles await resolution, older ones are settled.
  return -offset <= backlog.unsettled
    ? { state: 'CLOSED', resolution: 'PROPOSED' }
    : { state: 'RESOLVED', resolution: 'RESOLVED' };
}

function addCycles(ctx: GenContext, event: SimEvent, series: RecurringSeries, backlog: RecurringBacklog): void {
  const cadenceMs = series.cadenceSeconds * 1000;
  const liveStart = Math.floor(ctx.nowMs / cadenceMs) * cadenceMs;
  for (let offset = -(backlog.settled + backlog.unsettled); offset <= backlog.upcoming; offset++) {
    const openMs = liveStart + offset * cadenceMs;
    const { state, resolution } = cycleStates(offset, backlog);
    const slug = ctx.uniqueSlug(cycleSlugBase(series, openMs));
    const market = ctx.addMarket(
      event,
      'upcoming',
      cycleMarketSpec(ctx.rng, series, { index: offset, openMs, slug, state, resolutionStatus: resolution }),
    );
    event.childSlugs.push(slug);
    if (offset === 0) event.mainMarketId = market.id;
  }
}

/** `cadenceSeconds` replaces every series' own cadence (short cycles for tests). */
export function generateRecurring(
  ctx: GenContext,
  count: number,
  backlog: RecurringBacklog,
  cadenceSeconds?: number,
): void {
  for (let i = 0; i < count; i++) {
    const base = SERIES[i % SERIES.length] ?? SERIES[0]!;
    const series: RecurringSeries = { ...base, cadenceSeconds: cadenceSeconds ?? base.cadenceSeconds };
    const event = ctx.newEvent({
      title: `${series.asset} Up or Down ${cadenceLabel(series.cadenceSeconds)}`,
      eventType: 'RECURRING_PROPOSITION',
      scenario: 'upcoming',
      categoryKeys: ctx.leafKeysUnder('crypto', base.leaf),
      durationMs: 365 * 86_400_000,
      offsetHours: 0,
      tags: ['crypto', base.leaf, 'recurring'],
      description: `Resolves Up if the ${series.symbol} price at the end of the window is at or above the price at its start.`,
    });
    // A recurring series runs from its first cycle on; it is not "upcoming".
    const cadenceMs = series.cadenceSeconds * 1000;
    event.startMs = Math.floor(ctx.nowMs / cadenceMs) * cadenceMs - (backlog.settled + backlog.unsettled) * cadenceMs;
    // Smaller backlogs for the other series keep the catalogue light; the first carries the full window.
    const ownBacklog =
      i === 0
        ? backlog
        : {
            settled: Math.min(backlog.settled, 6),
            unsettled: Math.min(backlog.unsettled, 2),
            upcoming: Math.min(backlog.upcoming, 4),
          };
    addCycles(ctx, event, series, ownBacklog);
  }
}
