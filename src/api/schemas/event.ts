import { z } from 'zod';
import {
  flag,
  freeMap,
  integer,
  maybe,
  micro,
  number,
  openEnum,
  PaginationSchema,
  SlugLabelSchema,
  text,
  untyped,
} from './common.ts';
import { MarketSchema, RESOLUTION_STATUSES } from './market.ts';

const scorePair = z.looseObject({ a: untyped, b: untyped });

/** game_state (§2.8). Score values may be numbers or words ("AD"), so they are kept as received. */
export const GameStateSchema = z.looseObject({
  id: maybe(text),
  score: maybe(
    z.looseObject({
      sport: maybe(openEnum(['tennis'])),
      match: maybe(scorePair),
      sets: maybe(z.array(scorePair.extend({ tiebreak: maybe(scorePair) }))),
    }),
  ),
  match: maybe(z.looseObject({ lifecycle: maybe(openEnum(['scheduled'])), live_label: maybe(text) })),
});
export type GameState = z.infer<typeof GameStateSchema>;

const TeamSchema = z.looseObject({
  name: maybe(text),
  abbreviation: maybe(text),
  logo_url: maybe(text),
  color: maybe(text),
  record: maybe(text),
  sport_slug: maybe(text),
  league_slug: maybe(text),
  provider_id: untyped,
  source_team_id: untyped,
});

export const EventDisplaySchema = z.looseObject({
  image_url: maybe(text),
  banner_url: maybe(text),
  icon_url: maybe(text),
  description: maybe(text),
  subtext: maybe(text),
  display_date: maybe(text),
  liquidity: maybe(number),
  has_three_way_markets: maybe(flag),
  has_prop_markets: maybe(flag),
  has_legacy_prop_markets: maybe(flag),
  market_categories: maybe(z.array(z.unknown())),
  tags: maybe(z.array(z.unknown())),
  resolution_source: maybe(text),
  layout: maybe(openEnum(['regular'])),
  game_unit_label: maybe(text),
  spreads_main_market_id: maybe(text),
  totals_main_market_id: maybe(text),
  spreads_main_line: maybe(number),
  totals_main_line: maybe(number),
  sport_slug: maybe(text),
  league_slug: maybe(text),
  format_label: maybe(text),
  service_cms: maybe(freeMap),
  team_a: maybe(TeamSchema),
  team_b: maybe(TeamSchema),
});
export type EventDisplay = z.infer<typeof EventDisplaySchema>;

export const EVENT_TYPES = ['GAME', 'PROPOSITION', 'RECURRING_PROPOSITION', 'MULTI_OUTCOME'] as const;
export const EVENT_STATES = ['DRAFT', 'LIVE', 'ACTIVE', 'ENDED', 'PROPOSED', 'DISPUTED', 'CLOSED'] as const;

/** Fields common to the list and detail shapes of an Event (§2.8). */
const eventFields = {
  id: text,
  slug: maybe(text),
  title: maybe(text),
  event_type: maybe(openEnum(EVENT_TYPES)),
  state: maybe(openEnum(EVENT_STATES)),
  resolution_status: maybe(openEnum(RESOLUTION_STATUSES)),
  is_accepting_orders: maybe(flag),
  is_live: maybe(flag),
  is_group_root: maybe(flag),
  start_time: maybe(text),
  end_time: maybe(text),
  volume_micro: maybe(micro),
  main_market_id: maybe(text),
  primary_category: maybe(SlugLabelSchema),
  // `markets[]` of the main group: ids or market objects (not shown which); both are read.
  main_market_group: maybe(
    z.looseObject({ neg_risk_id: maybe(text), markets: maybe(z.array(z.union([text, MarketSchema]))) }),
  ),
  game_state: maybe(GameStateSchema),
  display: maybe(EventDisplaySchema),
};

/** Event as listed by GET /api/v1/events (`listing_markets` only with include_markets=true). */
export const EventListItemSchema = z.looseObject({
  ...eventFields,
  market_count: maybe(integer),
  listing_markets: maybe(z.array(MarketSchema)),
});
export type EventListItem = z.infer<typeof EventListItemSchema>;

const MarketTabSchema = z.looseObject({
  key: text,
  label: maybe(text),
  order: maybe(number),
  sections: maybe(
    z.array(
      z.looseObject({
        key: text,
        label: maybe(text),
        order: maybe(number),
        render_hint: maybe(openEnum(['card_list'])),
        groups: maybe(z.array(z.looseObject({ key: maybe(text), market_ids: maybe(z.array(text)) }))),
        meta: maybe(
          z.looseObject({
            selector_axis: maybe(openEnum(['line'])),
            default_line: untyped,
            line_owner_side: maybe(openEnum(['first'])),
            grid_cols_hint: untyped,
          }),
        ),
      }),
    ),
  ),
});

const CategoryPathSchema = SlugLabelSchema.extend({
  root_slug: maybe(text),
  path: maybe(z.array(SlugLabelSchema)),
});

/** Event detail from GET /api/v1/events/{slug}: the group root with its markets. */
export const EventDetailSchema = z.looseObject({
  ...eventFields,
  categories: maybe(z.array(CategoryPathSchema)),
  markets: maybe(z.array(MarketSchema)),
  featured_spread_markets: maybe(z.array(MarketSchema)),
  featured_totals_market: maybe(MarketSchema),
  sport_group: maybe(text),
  market_tabs: maybe(z.array(MarketTabSchema)),
  disputed_market_count: maybe(integer),
  resolved_market_count: maybe(integer),
  related_events: maybe(z.array(EventListItemSchema)),
});
export type EventDetail = z.infer<typeof EventDetailSchema>;

export const SectionSchema = z.looseObject({
  category: maybe(SlugLabelSchema),
  event_ids: z.array(text),
});
export type Section = z.infer<typeof SectionSchema>;

/** GET /api/v1/events: a keyset page, or (filter=sports_live) leaf-category sections without pagination. */
export const EventsResponseSchema = z.looseObject({
  events: z.array(EventListItemSchema),
  pagination: maybe(PaginationSchema),
  sections: maybe(z.array(SectionSchema)),
});
export type EventsResponse = z.infer<typeof EventsResponseSchema>;

/** GET /categories/{slug}: shape not shown; any object is kept, with slug and label read when present. */
export const CategorySchema = z.looseObject({ slug: maybe(text), label: maybe(text) });
export type Category = z.infer<typeof CategorySchema>;
