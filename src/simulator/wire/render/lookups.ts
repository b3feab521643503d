import type { Venue } from '../../venue.ts';
import { wireMarketState } from './wire-states.ts';

/**
 * Lookup maps of list responses (§2.5): `markets` keyed by outcome token id (each entry names its
 * outcome), `events` keyed by event slug, `conditions` keyed by condition id.
 */
export function lookupMaps(
  venue: Venue,
  tokenIds: Iterable<string>,
): { markets: Record<string, unknown>; events: Record<string, unknown>; conditions: Record<string, unknown> } {
  const markets: Record<string, unknown> = {};
  const events: Record<string, unknown> = {};
  const conditions: Record<string, unknown> = {};
  for (const tokenId of new Set(tokenIds)) {
    const ref = venue.catalogue.token(tokenId);
    if (!ref) continue;
    const { market, outcomeIndex } = ref;
    const event = venue.catalogue.eventOf(market);
    const outcome = market.outcomes[outcomeIndex];
    const logo = `https://assets.example.invalid/markets/${market.slug}.png`;
    const marketDisplay = { title: market.question, label: market.displayLabel, image_url: logo };
    markets[tokenId] = {
      market_id: market.id,
      market_title: market.question,
      event_slug: event.slug,
      logo_url: logo,
      neg_risk_id: market.negRiskId,
      outcome_name: outcome.label,
      state: wireMarketState(market, venue.cases),
      display: { market: marketDisplay, outcome: { label: outcome.label, short_label: outcome.shortLabel } },
    };
    events[event.slug] = {
      event_title: event.title,
      display: { event: { title: event.title, image_url: `https://assets.example.invalid/events/${event.slug}.png` } },
    };
    conditions[market.conditionId] = {
      market_id: market.id,
      market_title: market.question,
      event_slug: event.slug,
      logo_url: logo,
      display: { market: marketDisplay },
    };
  }
  return { markets, events, conditions };
}
