import { buildMarket } from '../catalogue/market-factory.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { cycleMarketSpec, cycleSlugBase, type RecurringSeries } from '../catalogue/recurring-cycle.ts';
import type { SimEvent, SimMarket } from '../catalogue/types.ts';
import type { Prng } from '../prng.ts';
import { marketRef, type MarketResolution } from './resolution.ts';

/** The cycle of a recurring event that trades now. */
export function liveCycle(catalogue: Catalogue, event: SimEvent): SimMarket | undefined {
  return catalogue.marketById(event.mainMarketId) ?? catalogue.marketsOf(event).find((m) => m.state === 'ACTIVE');
}

/**
 * A recurring event rolls when its live cycle's window ends (§1.7, §3.2): the live cycle closes,
 * the PROVISIONED one opens, the next DRAFT becomes PROVISIONED, a new DRAFT cycle joins the end
 * so the upcoming backlog keeps its length, and `current_market_changed` names the new cycle.
 * Returns the closed cycle and the one that replaced it.
 */
export function rollRecurring(
  catalogue: Catalogue,
  resolution: MarketResolution,
  rng: Prng,
  event: SimEvent,
  live: SimMarket,
  nowMs: number,
): { closed: SimMarket; next: SimMarket } {
  const cycles = catalogue.marketsOf(event).sort((a, b) => a.openMs - b.openMs);
  const later = cycles.filter((m) => m.openMs > live.openMs);
  const next =
    later.find((m) => m.state === 'PROVISIONED' || m.state === 'DRAFT') ??
    appendCycle(catalogue, rng, event, latestCycle(catalogue, event));
  resolution.close(live, nowMs);
  next.state = 'ACTIVE';
  const following = later.find((m) => m.openMs > next.openMs && m.state === 'DRAFT');
  if (following) following.state = 'PROVISIONED';
  appendCycle(catalogue, rng, event, latestCycle(catalogue, event));
  event.mainMarketId = next.id;
  catalogue.announce('current_market_changed', next, nowMs, {
    ...marketRef(next),
    previous_market_id: live.id,
    previous_condition_id: live.conditionId,
    opens_at: new Date(next.openMs).toISOString(),
    closes_at: new Date(next.closeMs).toISOString(),
  });
  return { closed: live, next };
}

function latestCycle(catalogue: Catalogue, event: SimEvent): SimMarket {
  const last = catalogue
    .marketsOf(event)
    .reduce<SimMarket | undefined>((a, m) => (a === undefined || m.openMs > a.openMs ? m : a), undefined);
  if (!last) throw new Error(`recurring event ${event.id} has no cycle`);
  return last;
}

function appendCycle(catalogue: Catalogue, rng: Prng, event: SimEvent, last: SimMarket): SimMarket {
  const cycle = last.recurring;
  if (!cycle) throw new Error(`market ${last.id} is not a recurring cycle`);
  const series: RecurringSeries = {
    asset: event.title.split(' Up or Down')[0] ?? cycle.symbol,
    symbol: cycle.symbol,
    cadenceSeconds: cycle.cadenceSeconds,
    reference: cycle.referencePrice,
  };
  const openMs = last.openMs + cycle.cadenceSeconds * 1000;
  const base = cycleSlugBase(series, openMs);
  let slug = base;
  for (let n = 2; catalogue.slugTaken(slug); n++) slug = `${base}-${n}`;
  const spec = cycleMarketSpec(rng, series, {
    index: cycle.cycleIndex + 1,
    openMs,
    slug,
    state: 'DRAFT',
    resolutionStatus: 'ACTIVE',
  });
  const market = buildMarket(rng, { ...spec, eventId: event.id });
  catalogue.addMarket(market, event, slug);
  return market;
}
