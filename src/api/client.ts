import type { Dispatcher } from 'undici';
import { createLogger, type Logger } from '../util/log.ts';
import { Secret } from '../util/secret.ts';
import { processAvailability, type Availability } from './availability.ts';
import { VenueCaller } from './caller.ts';
import { HttpTransport, type Timeouts } from './http.ts';
import { RateLimiter } from './rate-limit/limiter.ts';
import type { Reachability } from './reachability.ts';
import { DEFAULT_RETRY_POLICY, type RandomSource, type RetryPolicy } from './recovery.ts';
import { CatalogueReads } from './resources/catalogue.ts';
import { OrderReads } from './resources/orders.ts';
import {
  DEFAULT_PNL_RETRY,
  DEFAULT_POSITIONS_RETRY,
  PortfolioReads,
  type PortfolioOptions,
} from './resources/portfolio.ts';
import { fixedToken, type TokenSource } from './token.ts';
import { type Clock, systemClock } from '../util/clock.ts';

export interface VenueClientOptions {
  baseUrl: string;
  /** Personal access token; without one only the public catalogue can be read. */
  token?: Secret | TokenSource;
  /** Share one limiter between every client of the same account (default: a new one, authenticated tier). */
  limiter?: RateLimiter;
  /** Memory of "not offered here" answers (default: process-wide). */
  availability?: Availability;
  dispatcher?: Dispatcher;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy>;
  positionsRetry?: Partial<PortfolioOptions['positionsRetry']>;
  pnlRetry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: RandomSource;
  logger?: Logger;
  /** Share one with every other reader of the venue: during an outage they try one at a time, with backoff. */
  reachability?: Reachability;
}

/**
 * The typed client of the venue: every read of §4, paced, retried and parsed per the interface.
 *
 *   const venue = new VenueClient({ baseUrl, token: await readAccessToken({ tokenFile }) });
 *   for await (const page of venue.orders.orderPages()) …
 */
export class VenueClient {
  readonly catalogue: CatalogueReads;
  readonly orders: OrderReads;
  readonly portfolio: PortfolioReads;
  readonly limiter: RateLimiter;
  readonly #transport: HttpTransport;

  constructor(options: VenueClientOptions) {
    const clock = options.clock ?? systemClock;
    const random = options.random ?? Math.random;
    const logger = options.logger ?? createLogger('api');
    const token = options.token instanceof Secret ? fixedToken(options.token) : options.token;
    this.#transport = new HttpTransport({
      baseUrl: options.baseUrl,
      token,
      dispatcher: options.dispatcher,
      timeouts: options.timeouts,
      logger,
    });
    this.limiter = options.limiter ?? new RateLimiter({ clock });
    const caller = new VenueCaller({
      transport: this.#transport,
      limiter: this.limiter,
      availability: options.availability ?? processAvailability(),
      clock,
      random,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      logger,
      reachability: options.reachability,
    });
    this.catalogue = new CatalogueReads(caller);
    this.orders = new OrderReads(caller);
    this.portfolio = new PortfolioReads(caller, {
      clock,
      random,
      logger,
      positionsRetry: { ...DEFAULT_POSITIONS_RETRY, ...options.positionsRetry },
      pnlRetry: { ...DEFAULT_PNL_RETRY, ...options.pnlRetry },
    });
    caller.resourceReader = (resource) => this.#readResource(resource);
  }

  /** Closes the keep-alive connections (when the client opened them). */
  close(): Promise<void> {
    return this.#transport.close();
  }

  /** `check_status`: the kinds we know how to read; other kinds are left to the caller. */
  async #readResource(resource: Record<string, unknown> & { kind: string }): Promise<unknown> {
    if (resource.kind === 'batch' && typeof resource.batch_hash === 'string')
      return this.orders.batch(resource.batch_hash);
    if (resource.kind === 'order' && typeof resource.order_id === 'string') return this.orders.order(resource.order_id);
    return undefined;
  }
}
