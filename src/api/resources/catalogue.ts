import type { VenueCaller, Fetched } from '../caller.ts';
import { ENDPOINTS, endpointName } from '../endpoints.ts';
import { InvalidArgumentError } from '../errors.ts';
import { followCursor } from '../paging.ts';
import { checkPageSize, PAGE_SIZE } from '../params.ts';
import {
  CategorySchema,
  EventDetailSchema,
  EventsResponseSchema,
  type Category,
  type EventDetail,
  type EventsResponse,
} from '../schemas/index.ts';

/** Query of GET /api/v1/events (§4.2), without `cursor` (the pager owns it). */
export interface EventListQuery {
  category?: string;
  /** Part of the cursor fingerprint: kept identical while paging. */
  root?: string;
  event_type_bucket?: 'games' | 'props';
  filter?: string;
  source?: 'SERVICE';
  exclude_ended?: boolean;
  resolution?: 'all' | 'active' | 'proposed' | 'disputed' | 'resolved';
  sort?: 'time' | 'volume' | 'markets';
  /** 1 to 100 (default 20 at the venue). */
  limit?: number;
  include_markets?: boolean;
}

const SPORTS_LIVE = 'sports_live';

/** The public catalogue: events (paged and sectioned), event detail, categories. */
export class CatalogueReads {
  constructor(private readonly caller: VenueCaller) {}

  /**
   * Every page of the flat keyset-paginated events list. The query is copied once, so every page
   * carries exactly the same fingerprint parameters; only the cursor changes.
   */
  eventPages(
    query: EventListQuery = {},
    signal?: AbortSignal,
  ): AsyncGenerator<Fetched<EventsResponse>, void, undefined> {
    if (query.filter === SPORTS_LIVE)
      throw new InvalidArgumentError('filter=sports_live answers sections without pagination: use sportsLive()');
    checkPageSize('events', query.limit, PAGE_SIZE.events);
    const fingerprint = Object.freeze({ ...query });
    return followCursor(endpointName(ENDPOINTS.events), (cursor) => this.eventsPage(fingerprint, cursor, signal));
  }

  /** One page of the events list at `cursor` (a pass resuming from a saved one): `query` must stay identical while
   * paging (it is the cursor's fingerprint). */
  eventsPage(
    query: EventListQuery,
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<Fetched<EventsResponse>> {
    checkPageSize('events', query.limit, PAGE_SIZE.events);
    return this.caller.call({
      endpoint: ENDPOINTS.events,
      query: { ...query, cursor },
      schema: EventsResponseSchema,
      signal,
    });
  }

  /** filter=sports_live: leaf-category `sections` (with their events), one answer, no pagination. */
  sportsLive(
    query: Omit<EventListQuery, 'filter' | 'limit'> = {},
    signal?: AbortSignal,
  ): Promise<Fetched<EventsResponse>> {
    return this.caller.call({
      endpoint: ENDPOINTS.events,
      query: { ...query, filter: SPORTS_LIVE },
      schema: EventsResponseSchema,
      signal,
    });
  }

  /** Event detail; the slug may be any event of the group (compare `value.slug` to follow the root). */
  event(slug: string, signal?: AbortSignal): Promise<Fetched<EventDetail>> {
    return this.caller.call({ endpoint: ENDPOINTS.eventDetail, params: { slug }, schema: EventDetailSchema, signal });
  }

  /** GET /categories/{slug} (no version prefix; shape not shown). */
  category(slug: string, signal?: AbortSignal): Promise<Fetched<Category>> {
    return this.caller.call({ endpoint: ENDPOINTS.category, params: { slug }, schema: CategorySchema, signal });
  }
}
