import { isoTime } from '../../clock.ts';
import { recurringWindow } from '../../catalogue/lifecycle.ts';
import type { SimEvent, SimMarket } from '../../catalogue/types.ts';
import { microToNumber } from '../../money.ts';
import type { Venue } from '../../venue.ts';
import { mainOf, renderGameState, renderMarketTabs, renderTeam } from './game.ts';
import { liquidityMicro, renderListingMarket, renderMarket } from './market.ts';
import { wireEventResolution } from './wire-states.ts';

function primaryCategory(venue: Venue, event: SimEvent): { slug: string; label: string } {
  const key = event.categoryKeys[0];
  if (!key) return { slug: 'uncategorised', label: 'Uncategorised' };
  const c = venue.catalogue.tree.get(key);
  return { slug: c.slug, label: c.label };
}

function display(venue: Venue, event: SimEvent, markets: SimMarket[], detail: boolean): Record<string, unknown> {
  const game = event.game;
  const spreads = markets.filter((m) => m.sourceMarketType === 'spread');
  const totals = markets.filter((m) => m.sourceMarketType === 'total');
  const mainSpread = mainOf(spreads);
  const mainTotal = mainOf(totals);
  const liquidity = markets.reduce((s, m) => s + (m.state === 'ACTIVE' ? liquidityMicro(venue, m) : 0n), 0n);
  return {
    image_url: `https://assets.example.invalid/events/${event.slug}.png`,
    banner_url: detail ? `https://assets.example.invalid/events/${event.slug}-banner.png` : undefined,
    icon_url: `https://assets.example.invalid/events/${event.slug}-icon.png`,
    description: event.description,
    subtext: game ? `${game.teamA.abbreviation} vs ${game.teamB.abbreviation}` : primaryCategory(venue, event).label,
    display_date: isoTime(event.startMs).slice(0, 10),
    liquidity: microToNumber(liquidity),
    has_three_way_markets: game?.hasThreeWay ?? false,
    has_prop_markets: false,
    has_legacy_prop_markets: false,
    market_categories: [...new Set(markets.map((m) => m.sourceMarketType))],
    tags: event.tags,
    resolution_source: markets[0]?.resolutionSource,
    layout: 'regular',
    game_unit_label: game ? (game.sport === 'tennis' ? 'Set' : 'Game') : undefined,
    spreads_main_market_id: mainSpread?.id,
    totals_main_market_id: mainTotal?.id,
    spreads_main_line: mainSpread?.line === undefined ? undefined : Number(mainSpread.line),
    totals_main_line: mainTotal?.line === undefined ? undefined : Number(mainTotal.line),
    sport_slug: game?.sport,
    league_slug: game?.leagueSlug,
    format_label: game ? (game.sport === 'tennis' ? 'Best of 3' : 'Regulation') : undefined,
    service_cms: {},
    team_a: game ? renderTeam(game.teamA, game) : undefined,
    team_b: game ? renderTeam(game.teamB, game) : undefined,
  };
}

/** Markets a neg-risk group shows as its main group: the three-way result or the candidates. */
function mainMarketGroup(venue: Venue, event: SimEvent, markets: SimMarket[]): Record<string, unknown> | undefined {
  if (!event.negRiskId) return undefined;
  const members = markets.filter((m) => m.negRiskId === event.negRiskId);
  return { neg_risk_id: event.negRiskId, markets: members.map((m) => renderMarket(venue, m, false)) };
}

/** Top two candidates of a MULTI_OUTCOME by price; the main market otherwise. */
function listingMarkets(venue: Venue, event: SimEvent, markets: SimMarket[]): SimMarket[] {
  if (event.eventType === 'MULTI_OUTCOME') {
    return [...markets]
      .sort((a, b) => Number(venue.exchange.markPriceMicro(b, 0) - venue.exchange.markPriceMicro(a, 0)))
      .slice(0, 2);
  }
  const main = venue.catalogue.marketById(event.mainMarketId);
  return main ? [main] : [];
}

export function renderEventListItem(venue: Venue, event: SimEvent, includeMarkets: boolean): Record<string, unknown> {
  const markets = venue.catalogue.marketsOf(event);
  return {
    id: event.id,
    slug: event.slug,
    title: event.title,
    event_type: event.eventType,
    state: event.state,
    resolution_status: wireEventResolution(event, venue.cases),
    is_accepting_orders: markets.some((m) => venue.catalogue.isAcceptingOrders(m)),
    is_live: event.isLive,
    is_group_root: true,
    start_time: isoTime(event.startMs),
    end_time: isoTime(event.endMs),
    volume_micro: venue.catalogue.eventVolumeMicro(event),
    main_market_id: event.mainMarketId,
    primary_category: primaryCategory(venue, event),
    market_count: markets.length,
    main_market_group: mainMarketGroup(venue, event, markets),
    game_state: event.game ? renderGameState(event.game) : undefined,
    display: display(venue, event, markets, false),
    listing_markets:
      includeMarkets && event.eventType !== 'GAME'
        ? listingMarkets(venue, event, markets).map((m) => renderListingMarket(venue, m))
        : undefined,
  };
}

export function renderEventDetail(venue: Venue, event: SimEvent): Record<string, unknown> {
  const all = venue.catalogue.marketsOf(event);
  const markets = event.eventType === 'RECURRING_PROPOSITION' ? recurringWindow(all) : all;
  const spreads = all.filter((m) => m.sourceMarketType === 'spread');
  const totals = all.filter((m) => m.sourceMarketType === 'total');
  const list = renderEventListItem(venue, event, false);
  delete list.market_count;
  return {
    ...list,
    categories: event.categoryKeys.map((key) => {
      const c = venue.catalogue.tree.get(key);
      return { slug: c.slug, label: c.label, root_slug: c.rootSlug, path: c.path };
    }),
    markets: markets.map((m) => renderMarket(venue, m, true)),
    featured_spread_markets: event.game ? spreads.map((m) => renderMarket(venue, m, true)) : undefined,
    featured_totals_market:
      event.game && mainOf(totals) ? renderMarket(venue, mainOf(totals) as SimMarket, true) : undefined,
    sport_group: event.game?.sport,
    market_tabs: event.game ? renderMarketTabs(event, all) : [],
    disputed_market_count: all.filter((m) => m.resolutionStatus === 'DISPUTED').length,
    resolved_market_count: all.filter((m) => m.resolutionStatus === 'RESOLVED' || m.resolutionStatus === 'VOID').length,
    related_events: event.relatedEventIds
      .map((id) => venue.catalogue.eventById(id))
      .filter((e): e is SimEvent => e !== undefined)
      .map((e) => renderEventListItem(venue, e, false)),
    display: display(venue, event, all, true),
  };
}
