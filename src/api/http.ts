import { tallyAnswer } from './answers.ts';
import { Agent, request, type Dispatcher } from 'undici';
import { createLogger, type Logger } from '../util/log.ts';
import { isRedirect, redirectOrigin } from '../util/redirect.ts';
import { TransportError } from './errors.ts';
import type { HttpAnswer } from './problem.ts';
import type { TokenSource } from './token.ts';

export interface Timeouts {
  connectMs: number;
  /** Until the response headers arrive. */
  headersMs: number;
  /** Longest silence while the body streams. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 };

export type QueryValue = string | number | boolean | undefined | readonly string[];

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path relative to the base URL, already encoded. */
  path: string;
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
  /** Send the bearer token (when the transport has one). */
  authenticate: boolean;
  signal?: AbortSignal;
}

export interface HttpTransportOptions {
  baseUrl: string;
  token?: TokenSource;
  /** An undici dispatcher to use instead of our own keep-alive Agent (tests pass a MockAgent). */
  dispatcher?: Dispatcher;
  timeouts?: Partial<Timeouts>;
  userAgent?: string;
  logger?: Logger;
}

/**
 * The wire: JSON over undici with a keep-alive connection pool, the bearer token, timeouts.
 * The token is revealed only into the Authorization header; nothing here logs headers.
 */
export class HttpTransport {
  readonly baseUrl: string;
  readonly #token: TokenSource | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #timeouts: Timeouts;
  readonly #userAgent: string;
  readonly #log: Logger;

  constructor(options: HttpTransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#token = options.token;
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 120_000,
        connections: 16,
        connect: { timeout: this.#timeouts.connectMs },
      });
    this.#userAgent = options.userAgent ?? 'tapehouse';
    this.#log = options.logger ?? createLogger('api.http');
  }

  /** True when requests that ask for it will carry a token. */
  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  async send(req: HttpRequest): Promise<HttpAnswer> {
    const url = this.baseUrl + req.path + queryString(req.query);
    const endpoint = `${req.method} ${req.path}`;
    // Outside the try: a failing token source is not a network failure and must not be retried.
    const headers = await this.#headers(req);
    const started = performance.now();
    try {
      const response = await request(url, {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body, bigintAsString),
        dispatcher: this.#dispatcher,
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyMs,
        signal: req.signal,
      });
      if (isRedirect(response.statusCode)) {
        await response.body.dump().catch(() => undefined);
        throw new RedirectRefusedError(endpoint, response.statusCode, response.headers.location, url);
      }
      const text = await response.body.text();
      const answer = { status: response.statusCode, headers: flattenHeaders(response.headers), text };
      tallyAnswer(answer.status);
      this.#log.debug(
        { endpoint, status: answer.status, ms: Math.round(performance.now() - started) },
        'venue answered',
      );
      return answer;
    } catch (err) {
      if (err instanceof RedirectRefusedError) throw err;
      if (req.signal?.aborted) throw req.signal.reason;
      const reason = err instanceof Error ? err.message : String(err);
      this.#log.debug({ endpoint, reason }, 'venue unreachable');
      throw new TransportError(`${endpoint}: ${reason}`, endpoint, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #headers(req: HttpRequest): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      'user-agent': this.#userAgent,
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (req.authenticate && this.#token) headers.authorization = `Bearer ${(await this.#token()).reveal()}`;
    return headers;
  }
}

/**
 * The venue answered with a redirect. It is never followed (undici's `request` has no redirect
 * interceptor here): the token goes to the configured base URL only. Not retried: asking again
 * gets the same answer. Only the target's origin is kept.
 */
export class RedirectRefusedError extends Error {
  readonly location: string | null;
  constructor(
    readonly endpoint: string,
    readonly status: number,
    location: string | string[] | undefined,
    requestUrl: string,
  ) {
    const target = redirectOrigin(location, requestUrl);
    super(
      `${endpoint}: the venue answered ${status} with a redirect to ${target ?? '(no Location)'}, not followed: the token is sent to the configured base URL only`,
    );
    this.name = 'RedirectRefusedError';
    this.location = target;
  }
}

function queryString(query: HttpRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

// Money is bigint in our code and a decimal string on the wire.
function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString(10) : value;
}
