import { Agent, type Dispatcher } from 'undici';
import { Availability, processAvailability } from '../api/availability.ts';
import { VenueClient } from '../api/client.ts';
import { RateLimiter } from '../api/rate-limit/limiter.ts';
import type { Reachability } from '../api/reachability.ts';
import type { BucketShape } from '../api/rate-limit/token-bucket.ts';
import type { RetryPolicy } from '../api/recovery.ts';
import { fixedToken, type TokenSource } from '../api/token.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { createLogger, type Logger } from '../util/log.ts';
import type { Secret } from '../util/secret.ts';

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
  /** The public catalogue's reads (events list, event detail): without the token unless asked. */
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
  const ownPool =
    options.dispatcher === undefined ? new Agent({ keepAliveTimeout: 30_000, connections: 16 }) : undefined;
  const dispatcher = options.dispatcher ?? (ownPool as Agent);
  const common = {
    baseUrl: options.baseUrl,
    availability,
    clock,
    logger,
    dispatcher,
    retry: options.retry,
    random,
    reachability: options.reachability,
  };
  const client = new VenueClient({
    ...common,
    token,
    limiter,
    pnlRetry: options.pnlRetry,
    positionsRetry: options.positionsRetry,
  });
  const catalogue = options.catalogueWithToken ? client : new VenueClient({ ...common, limiter });
  return {
    client,
    catalogue,
    limiter,
    async close() {
      await ownPool?.close();
    },
  };
}
