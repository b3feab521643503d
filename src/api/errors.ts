import { codeInfo, type ErrorKind } from './codes.ts';
import type { FieldError } from './schemas/problem.ts';
import type { Recovery } from './schemas/failure.ts';

/**
 * Where a non-2xx answer came from: the API origin (problem+json with a request id), the edge
 * rate limiter (§7.8: no request id), the stream connection-attempt limit (§8.5), or something
 * that did not send a readable problem at all (a proxy's HTML page, an empty body).
 */
export type ErrorSource = 'origin' | 'edge' | 'stream-connection' | 'unreadable';

export interface VenueErrorInit {
  status: number;
  code?: string;
  requestId?: string;
  recovery?: Recovery;
  fieldErrors?: FieldError[];
  /** Seconds from the `Retry-After` header. */
  retryAfterSeconds?: number;
  title?: string;
  detail?: string;
  type?: string;
  source: ErrorSource;
  /** Endpoint name (for example `GET /trade/v1/portfolio/pnl`). */
  endpoint?: string;
  /** The body as received, for logs and dead letters. */
  problem?: unknown;
}

/** Any non-2xx answer of the venue. Branch on `code`; `title` and `detail` are display text. */
export class VenueError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly recovery: Recovery | undefined;
  readonly fieldErrors: FieldError[];
  readonly retryAfterSeconds: number | undefined;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly type: string | undefined;
  readonly source: ErrorSource;
  readonly endpoint: string | undefined;
  readonly problem: unknown;
  /** Filled by the `check_status` strategy: the named resource as read after the failure. */
  checkedResource: unknown;
  /** How many times the request was sent before giving up. */
  attempts = 1;

  constructor(init: VenueErrorInit) {
    const where = init.endpoint ? ` on ${init.endpoint}` : '';
    super(
      `venue answered ${init.status} ${init.code ?? '(no code)'}${where}${init.requestId ? ` [request ${init.requestId}]` : ''}`,
    );
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.recovery = init.recovery;
    this.fieldErrors = init.fieldErrors ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.title = init.title;
    this.detail = init.detail;
    this.type = init.type;
    this.source = init.source;
    this.endpoint = init.endpoint;
    this.problem = init.problem;
  }

  /** False for codes the interface does not name: no automatic action is taken on those. */
  get knownCode(): boolean {
    return codeInfo(this.code) !== undefined;
  }
}

/** 401: no, wrong or rejected credentials. `identity_token_expired` needs a browser session we do not hold. */
export class AuthenticationError extends VenueError {
  get needsIdentityRefresh(): boolean {
    return this.code === 'identity_token_expired';
  }
}
/** 403: missing scope or frozen account. */
export class PermissionError extends VenueError {}
/** 400/405/413/415/422: the request itself is wrong; fix it, never resend unchanged. */
export class InvalidRequestError extends VenueError {}
/** §7.4 trading refusals (only reachable through writes, kept for completeness). */
export class TradingError extends VenueError {}
/** 429 from the account buckets, the edge, or the stream connection limit. */
export class RateLimitedError extends VenueError {}
/** Dependencies, prices, PnL service or internal failures (§7.4, §7.5). */
export class ServiceError extends VenueError {}
/** A thing that is not there or not visible: check the identifier. */
export class NotFoundError extends VenueError {}
/** 425 `pnl_not_ready`: computed later; wait and repeat. */
export class NotReadyError extends VenueError {}

/**
 * "Not offered here": 404 route_not_found, 410 endpoint_retired, 503 feature_not_configured,
 * price_service_not_configured, price_stream_not_configured. Callers record it as a gap in
 * coverage; the client remembers it and answers from memory instead of asking again.
 */
export class NotOfferedError extends VenueError {
  /** True when the venue was not asked this time: the answer came from the client's memory. */
  remembered = false;
  get permanent(): boolean {
    return this.code === 'endpoint_retired';
  }
}

const CLASS_BY_KIND: Record<ErrorKind, typeof VenueError> = {
  authentication: AuthenticationError,
  permission: PermissionError,
  invalid_request: InvalidRequestError,
  trading: TradingError,
  rate_limited: RateLimitedError,
  service: ServiceError,
  not_offered: NotOfferedError,
  not_ready: NotReadyError,
  not_found: NotFoundError,
};

/** The typed error for a code; unknown codes get the plain VenueError (429 stays a RateLimitedError). */
export function venueErrorFor(init: VenueErrorInit): VenueError {
  const info = codeInfo(init.code);
  if (info) return new CLASS_BY_KIND[info.kind](init);
  if (init.status === 429) return new RateLimitedError(init);
  return new VenueError(init);
}

/** The connection failed, timed out or was reset before a full answer arrived. */
export class TransportError extends Error {
  attempts = 1;
  constructor(
    message: string,
    readonly endpoint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportError';
  }
}

/** A 2xx body that does not match the interface: names the field(s) and keeps the body. */
export class ResponseShapeError extends Error {
  constructor(
    readonly endpoint: string,
    readonly issues: string[],
    readonly body: unknown,
    readonly requestId?: string,
  ) {
    super(`unexpected response from ${endpoint}: ${issues.join('; ')}`);
    this.name = 'ResponseShapeError';
  }
}

/** A parameter outside the interface's bounds, refused before anything is sent. */
export class InvalidArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidArgumentError';
  }
}

/** Positions kept listing the exchange under `unavailable_exchanges` after the bounded retries. */
export class ExchangeUnavailableError extends Error {
  constructor(
    readonly exchanges: string[],
    readonly attempts: number,
  ) {
    super(`positions unavailable for ${exchanges.join(', ')} after ${attempts} reads`);
    this.name = 'ExchangeUnavailableError';
  }
}
