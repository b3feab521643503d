import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type ServerOptions } from 'ws';
import type { Account } from '../accounts/account.ts';
import type { AccessToken, Scope } from '../accounts/registry.ts';
import { authenticateAccessToken, requireScope } from '../access/auth.ts';
import { Rejection } from '../problems.ts';
import type { Venue } from '../venue.ts';
import { AccountStream } from './account-stream.ts';
import { BookFeed } from './book-feed.ts';
import { RateLimitTally } from '../access/limits/rate-limit-tally.ts';
import { ConnectionAttempts } from './connection-attempts.ts';
import { FramesSent, type StreamConnection, type StreamSettings } from './connection.ts';
import { MarketStream } from './market-stream.ts';
import { PortfolioStream } from './portfolio-stream.ts';
import { PriceStream } from './price-stream.ts';
import { CLOSE_CODES, streamEndpointOf, type StreamEndpoint } from './protocol.ts';
import type { StreamsConfig } from './streams-config.ts';
import { rateLimitedRefusal, problemRefusal, refuseRequest, refuseUpgrade, type Refusal } from './refusal.ts';

export { DEFAULT_STREAMS, type StreamsConfig } from './streams-config.ts';

/** Scopes the interface leaves "not shown" for the account socket; the portfolio stream's is §4.1's. */
const STREAM_SCOPE: Partial<Record<StreamEndpoint, Scope>> = { account: 'orders:read', portfolio: 'portfolio:read' };
const WEBSOCKET_ENDPOINTS: ReadonlySet<StreamEndpoint> = new Set(['market', 'account']);

interface Admitted {
  account?: Account;
  token?: AccessToken;
  symbols?: string[];
}

/**
 * Every stream endpoint of §6 on the simulator's HTTP server: the two WebSockets (through the
 * server's `upgrade` event) and the three SSE feeds, behind the §8.5 attempt limit.
 */
export class StreamServer {
  readonly feed: BookFeed;
  readonly market: MarketStream;
  readonly account: AccountStream;
  readonly portfolio: PortfolioStream;
  readonly prices: PriceStream;
  readonly oraclePro: PriceStream;
  readonly #attempts: ConnectionAttempts;
  /** Frames handed to a transport on every connection so far. */
  readonly sent = new FramesSent();
  readonly #refuseUntil = new Map<StreamEndpoint, number>();
  readonly #wss: WebSocketServer;

  constructor(
    private readonly venue: Venue,
    private readonly config: StreamsConfig,
    positionsUnavailable: () => boolean,
    /** Counts the 429s of the attempt limit (earned) and of the refusal fault (injected). */
    readonly tally: RateLimitTally = new RateLimitTally(),
  ) {
    const { heartbeatMs, limits } = config;
    const settings: StreamSettings = { clock: venue.options.clock, heartbeatMs, limits, sent: this.sent };
    this.feed = new BookFeed(venue.catalogue, venue.exchange, venue.events);
    this.market = new MarketStream(venue, this.feed, settings, config.bookFrames);
    this.account = new AccountStream(venue, settings);
    this.portfolio = new PortfolioStream(venue, settings, config.portfolioSyncMs, positionsUnavailable);
    const prng = venue.prng;
    // The oracle quotes 8 decimals (as price oracles do): more than a client's micro-units keep.
    this.prices = new PriceStream('prices', 'SERVICE', settings, prng('prices'), config.priceIntervalMs, 2);
    this.oraclePro = new PriceStream(
      'oracle_pro',
      'oracle-pro',
      settings,
      prng('oracle-pro'),
      config.priceIntervalMs,
      8,
    );
    this.#attempts = new ConnectionAttempts(limits.attemptsPerMinute);
    // A client that never answers a close frame holds its socket 2 s, not ws's default 30 s (shutdown
    // waits for it). ws takes `closeTimeout` (documented in its source); @types/ws does not list it yet.
    const options: ServerOptions & { closeTimeout: number } = {
      noServer: true,
      maxPayload: limits.maxClientMessageBytes,
      clientTracking: false,
      closeTimeout: 2_000,
    };
    this.#wss = new WebSocketServer(options);
  }

  /** Fault: refuse every attempt on the endpoint with 429 until the clock passes `untilMs`. */
  refuse(endpoint: StreamEndpoint, untilMs: number): void {
    this.#refuseUntil.set(endpoint, untilMs);
  }

  connections(): StreamConnection[] {
    return [
      ...this.market.connections,
      ...this.account.connections,
      ...this.portfolio.connections,
      ...this.prices.connections,
      ...this.oraclePro.connections,
    ];
  }

  /** WebSocket upgrades; anything but the two sockets is answered 404 `route_not_found`. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const endpoint = streamEndpointOf(path);
    if (!endpoint || !WEBSOCKET_ENDPOINTS.has(endpoint))
      return refuseUpgrade(socket, problemRefusal(new Rejection('route_not_found', `No WebSocket at ${path}.`)));
    const ip = req.socket.remoteAddress ?? 'unknown';
    const admitted = this.#admit(endpoint, req, ip);
    if ('status' in admitted) return refuseUpgrade(socket, admitted);
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      if (endpoint === 'market') this.market.accept(ws, ip);
      else if (admitted.token && admitted.account) this.account.accept(ws, ip, admitted.token, admitted.account);
    });
  }

  /** SSE requests; returns false for any other request (the REST router takes it). */
  handleRequest(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const endpoint = streamEndpointOf(path);
    if (!endpoint || WEBSOCKET_ENDPOINTS.has(endpoint) || req.method !== 'GET') return false;
    const ip = req.socket.remoteAddress ?? 'unknown';
    const admitted = this.#admit(endpoint, req, ip);
    if ('status' in admitted) {
      refuseRequest(res, admitted);
      return true;
    }
    if (endpoint === 'portfolio' && admitted.account) this.portfolio.accept(res, ip, admitted.account);
    else if (endpoint === 'prices') this.prices.accept(res, ip, admitted.symbols ?? []);
    else if (endpoint === 'oracle_pro') this.oraclePro.accept(res, ip, admitted.symbols ?? []);
    return true;
  }

  tick(nowMs: number): void {
    this.market.tick(nowMs);
    this.account.tick(nowMs);
    this.portfolio.tick(nowMs);
    this.prices.tick(nowMs);
    this.oraclePro.tick(nowMs);
  }

  /** The venue goes away: sockets close with 1001, event streams end. */
  close(): void {
    for (const conn of this.connections()) conn.closeWith(CLOSE_CODES.goingAway, 'venue shutting down');
    this.#wss.close();
  }

  /** §8.5 attempt limit, the refusal fault, then the endpoint's own credentials and configuration. */
  #admit(endpoint: StreamEndpoint, req: IncomingMessage, ip: string): Admitted | Refusal {
    const now = this.venue.options.clock.now();
    if (!this.#attempts.admit(ip, endpoint, now)) {
      this.tally.earn('stream_attempts');
      return rateLimitedRefusal();
    }
    if (now < (this.#refuseUntil.get(endpoint) ?? -Infinity)) {
      this.tally.inject();
      return rateLimitedRefusal();
    }
    try {
      const scope = STREAM_SCOPE[endpoint];
      if (scope) {
        const token = authenticateAccessToken(req, this.venue.accounts);
        const account = this.venue.accounts.get(token.accountId);
        if (!account) throw new Rejection('invalid_personal_access_token', 'Token rejected.');
        requireScope(token, scope);
        return { token, account };
      }
      if (endpoint === 'prices' || endpoint === 'oracle_pro') {
        if (this.config.priceStreams === 'absent')
          throw new Rejection(
            'route_not_found',
            `No route for ${new URL(req.url ?? '/', 'http://127.0.0.1').pathname}.`,
          );
        if (this.config.priceStreams !== 'on')
          throw new Rejection('price_stream_not_configured', 'Price streaming is not offered in this deployment.');
        const parsed = PriceStream.parseSymbols(
          new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('symbols'),
        );
        if ('unknown' in parsed) throw new Rejection('price_feed_not_found', `No price source for ${parsed.unknown}.`);
        const capacity = this.config.priceSymbolCapacity;
        if (
          capacity > 0 &&
          this.prices.symbolsHeld() + this.oraclePro.symbolsHeld() + parsed.symbols.length > capacity
        ) {
          throw new Rejection(
            'price_stream_capacity_exceeded',
            `The price streams' shared budget of ${capacity} symbols is spent.`,
          );
        }
        return { symbols: parsed.symbols };
      }
      return {};
    } catch (err) {
      if (err instanceof Rejection) return problemRefusal(err);
      throw err;
    }
  }
}
