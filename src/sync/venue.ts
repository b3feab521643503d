import { Agent, type Dispatcher } from 'undici';
import { Availability, processAvailability } from '../api/availability.ts';
import { VenueCaller, type Fetched } from '../api/caller.ts';
import { VenueClient } from '../api/client.ts';
import { ENDPOINTS } from '../api/endpoints.ts';
import { HttpTransport } from '../api/http.ts';
import { bodyWithCursor } from '../api/paging.ts';
import { checkPageSize, PAGE_SIZE } from '../api/params.ts';
import { RateLimiter } from '../api/rate-limit/limiter.ts';
import type { Reachability } from '../api/reachability.ts';
import type { BucketShape } from '../api/rate-limit/token-bucket.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../api/recovery.ts';
import type { EventListQuery } from '../api/resources/catalogue.ts';
import {
  ActivitiesPageSchema,
  EventsResponseSchema,
  OrdersPageSchema,
  PortfolioTradesPageSchema,
  type ActivitiesPage,
  type EventsResponse,
  type OrdersPage,
  type PortfolioTradesPage,
} from '../api/schemas/index.ts';
import { fixedToken, type TokenSource } from '../api/token.ts';
import { createLogger, type Logger } from '../util/log.ts';
import type { Secret } from '../util/secret.ts';
import { type Clock, systemClock } from '../util/clock.ts';

/**
 * One page of a cursor-paged list, read at a cursor of our choosing. The client's page iterators
 * always start at the first page; a job that resumes from a checkpoint needs to start at the
 * cursor it saved, so the lists are read here through the client's own caller (same pacing,
 * recovery, "not offered" memory and parsing).
 */
export class PageReader {
  constructor(private readonly caller: VenueCaller) {}

  /** GET /api/v1/events: `query` must stay identical while paging (it is the cursor's fingerprint). */
  events(query: EventListQuery, cursor: string | undefined, signal?: AbortSignal): Promise<Fetched<EventsResponse>> {
    checkPageSize('events', query.limit, PAGE_SIZE.events);
    return this.caller.call({ endpoint: ENDPOINTS.events, query: { ...query, cursor }, schema: EventsResponseSchema, signal });
  }

  /** POST /trade/v1/orders/list (cost 1). */
  orders(body: Readonly<Record<string, unknown>>, cursor: string | undefined, signal?: AbortSignal): Promise<Fetched<OrdersPage>> {
    return this.caller.call({ endpoint: ENDPOINTS.ordersList, body: bodyWithCursor(body, cursor), schema: OrdersPageSchema, signal });
  }

  /** POST /trade/v1/portfolio/open-orders/list (cost 5). */
  openOrders(body: Readonly<Record<string, unknown>>, cursor: string | undefined, signal?: AbortSignal): Promise<Fetched<OrdersPage>> {
    return this.caller.call({ endpoint: ENDPOINTS.openOrders, body: bodyWithCursor(body, cursor), schema: OrdersPageSchema, signal });
  }

  /** GET /trade/v1/portfolio/trades (cost 5). */
  trades(limit: number | undefined, cursor: string | undefined, signal?: AbortSignal): Promise<Fetched<PortfolioTradesPage>> {
    return this.caller.call({ endpoint: ENDPOINTS.portfolioTrades, query: { limit, cursor }, schema: PortfolioTradesPageSchema, signal });
  }

  /** GET /trade/v1/portfolio/activities (cost 5); `limit` 1 to 500. */
  activities(limit: number | undefined, cursor: string | undefined, signal?: AbortSignal): Promise<Fetched<ActivitiesPage>> {
    checkPageSize('activities', limit, PAGE_SIZE.activities);
    return this.caller.call({ endpoint: ENDPOINTS.activities, query: { limit, cursor }, schema: ActivitiesPageSchema, signal });
  }
}

/**
 * Tokens the sync jobs leave in the account's read bucket. The limiter corrects its model from
 * each answer's X-RateLimit-Remaining, but a dozen jobs keep requests in flight on several
 * connections, and the venue may count them in another order than we sent them: an answer can then
 * report a level that does not yet include a cost-5 read sent before it. Two such reads of slack
 * absorb that; the reserve trims only the burst, never the sustained rate.
 */
export const SYNC_RESERVE_TOKENS = 10;

/** The limiter for one account's sync jobs (authenticated tier unless told otherwise). */
export function syncLimiter(options: { read?: BucketShape; readShare?: number; clock?: Clock } = {}): RateLimiter {
  return new RateLimiter({ ...options, reserveTokens: SYNC_RESERVE_TOKENS });
}

/** What the sync jobs read the venue through: one limiter for the account, shared by every job. */
export interface SyncVenue {
  /** The account's reads (token, the shared account limiter). */
  readonly client: VenueClient;
  /** The account's paged lists, from any cursor. */
  readonly pages: PageReader;
  /** The public catalogue's events list, from any cursor. */
  readonly cataloguePages: PageReader;
  /** The public catalogue's single reads (event detail). */
  readonly catalogue: VenueClient;
  readonly limiter: RateLimiter;
  close(): Promise<void>;
}

export interface SyncVenueOptions {
  baseUrl: string;
  token: Secret | TokenSource;
  /** Default: a new limiter at the authenticated tier. Pass one to share it with other readers of the account. */
  limiter?: RateLimiter;
  /**
   * Read the catalogue with the token too (default false). The interface asks for a token on
   * trading endpoints only; reading `/api/v1` without it keeps the catalogue off the account's
   * read bucket, which the portfolio jobs need.
   */
  catalogueWithToken?: boolean;
  availability?: Availability;
  clock?: Clock;
  logger?: Logger;
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  pnlRetry?: Partial<RetryPolicy>;
  positionsRetry?: Partial<Pick<RetryPolicy, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs'>>;
  random?: () => number;
  /** Shared with the venue's other readers (capture): during an outage requests go one at a time, with backoff. */
  reachability?: Reachability;
}

/** Builds the clients of the sync jobs: everything authenticated shares one limiter and one "not offered" memory. */
export function createSyncVenue(options: SyncVenueOptions): SyncVenue {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger('sync.venue');
  const availability = options.availability ?? processAvailability();
  const limiter = options.limiter ?? syncLimiter({ clock });
  const token = typeof options.token === 'function' ? options.token : fixedToken(options.token);
  const random = options.random ?? Math.random;
  // One connection pool for every reader of the venue.
  const ownPool = options.dispatcher === undefined ? new Agent({ keepAliveTimeout: 30_000, connections: 16 }) : undefined;
  const dispatcher = options.dispatcher ?? (ownPool as Agent);
  const common = { baseUrl: options.baseUrl, availability, clock, logger, dispatcher, retry: options.retry, random, reachability: options.reachability };
  const client = new VenueClient({ ...common, token, limiter, pnlRetry: options.pnlRetry, positionsRetry: options.positionsRetry });
  const catalogueToken = options.catalogueWithToken ? token : undefined;
  const catalogue = options.catalogueWithToken ? client : new VenueClient({ ...common, limiter });
  const reader = (withToken: TokenSource | undefined): PageReader => {
    const transport = new HttpTransport({ baseUrl: options.baseUrl, token: withToken, dispatcher, logger });
    return new PageReader(
      new VenueCaller({ transport, limiter, availability, clock, random, retry: { ...DEFAULT_RETRY_POLICY, ...options.retry }, logger, reachability: options.reachability }),
    );
  };
  const pages = reader(token);
  const cataloguePages = reader(catalogueToken);
  return {
    client,
    pages,
    cataloguePages,
    catalogue,
    limiter,
    async close() {
      await ownPool?.close();
    },
  };
}
