import type { Catalogue } from './catalogue.ts';
import { LIFECYCLE_ORDER, type LifecycleBucket, type SimEvent, type SimMarket } from './types.ts';

/** The bucket an event is ordered in; a DRAFT event waits among the ACTIVE ones. */
export function lifecycleBucket(event: SimEvent): LifecycleBucket {
  return event.state === 'DRAFT' ? 'ACTIVE' : event.state;
}

export function bucketRank(event: SimEvent): number {
  return LIFECYCLE_ORDER.indexOf(lifecycleBucket(event));
}

/** exclude_ended keeps events not yet ended that still have a market to trade (or about to). */
export function hasMarketLeftToTrade(catalogue: Catalogue, event: SimEvent): boolean {
  const bucket = lifecycleBucket(event);
  if (bucket !== 'LIVE' && bucket !== 'ACTIVE') return false;
  return catalogue
    .marketsOf(event)
    .some((m) => m.state === 'ACTIVE' || m.state === 'PROVISIONED' || m.state === 'DRAFT');
}

export const RECURRING_WINDOW = { unsettled: 50, upcoming: 49, settled: 50 } as const;

/**
 * The cycles a RECURRING_PROPOSITION detail shows (§4.2): the live cycle always, the 50 newest
 * unsettled, the 49 soonest upcoming and the 50 newest settled, in cycle order.
 */
export function recurringWindow(markets: SimMarket[]): SimMarket[] {
  const byCycle = [...markets].sort((a, b) => a.openMs - b.openMs);
  const live = byCycle.filter((m) => m.state === 'ACTIVE');
  const upcoming = byCycle
    .filter((m) => m.state === 'PROVISIONED' || m.state === 'DRAFT')
    .slice(0, RECURRING_WINDOW.upcoming);
  const unsettled = byCycle.filter((m) => m.state === 'CLOSED').slice(-RECURRING_WINDOW.unsettled);
  const settled = byCycle.filter((m) => m.state === 'RESOLVED').slice(-RECURRING_WINDOW.settled);
  const keep = new Set([...live, ...upcoming, ...unsettled, ...settled]);
  return byCycle.filter((m) => keep.has(m));
}
