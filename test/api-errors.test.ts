import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  NotOfferedError,
  NotReadyError,
  PermissionError,
  RateLimitedError,
  ServiceError,
  TradingError,
  VenueError,
} from '../src/api/errors.ts';
import { errorFromAnswer } from '../src/api/problem.ts';
import { PROBLEM_HEADERS, problem, stubVenue } from './api-fixtures.ts';

const REQUEST_ID = PROBLEM_HEADERS['x-request-id'];

function answer(status: number, body: unknown, headers: Record<string, string> = PROBLEM_HEADERS) {
  return { status, headers, text: typeof body === 'string' ? body : JSON.stringify(body) };
}

// The rows of interface.md §5.6, §7.3, §7.4 and §7.5, copied here on purpose (not derived from the code table).
const ROWS: Array<[status: number, code: string, type: typeof VenueError]> = [
  [401, 'credentials_missing', AuthenticationError],
  [401, 'wrong_credential_type', AuthenticationError],
  [401, 'invalid_personal_access_token', AuthenticationError],
  [401, 'identity_token_expired', AuthenticationError],
  [401, 'invalid_identity_token', AuthenticationError],
  [403, 'forbidden_scope', PermissionError],
  [403, 'account_frozen', PermissionError],
  [400, 'malformed_json', InvalidRequestError],
  [400, 'invalid_path_parameter', InvalidRequestError],
  [413, 'request_body_too_large', InvalidRequestError],
  [415, 'unsupported_media_type', InvalidRequestError],
  [422, 'validation_failed', InvalidRequestError],
  [422, 'order_value_below_minimum', InvalidRequestError],
  [422, 'order_value_above_maximum', InvalidRequestError],
  [422, 'order_size_below_minimum', InvalidRequestError],
  [422, 'order_size_above_maximum', InvalidRequestError],
  [422, 'order_price_out_of_range', InvalidRequestError],
  [422, 'order_expiration_too_soon', InvalidRequestError],
  [422, 'recipient_token_account_missing', InvalidRequestError],
  [422, 'post_only_would_cross', TradingError],
  [422, 'insufficient_balance', TradingError],
  [422, 'insufficient_shares', TradingError],
  [422, 'order_not_fillable', TradingError],
  [422, 'market_closed', TradingError],
  [409, 'duplicate_order', TradingError],
  [409, 'sequence_conflict', TradingError],
  [409, 'batch_in_flight', TradingError],
  [409, 'wallet_setup_incomplete', TradingError],
  [429, 'rate_limited', RateLimitedError],
  [503, 'dependency_unavailable', ServiceError],
  [503, 'dependency_outcome_unknown', ServiceError],
  [502, 'dependency_invalid_response', ServiceError],
  [503, 'account_operations_paused', TradingError],
  [500, 'internal_error', ServiceError],
  [404, 'route_not_found', NotOfferedError],
  [405, 'method_not_allowed', InvalidRequestError],
  [410, 'endpoint_retired', NotOfferedError],
  [503, 'feature_not_configured', NotOfferedError],
  [503, 'price_service_not_configured', NotOfferedError],
  [503, 'price_stream_not_configured', NotOfferedError],
  [425, 'pnl_not_ready', NotReadyError],
  [503, 'price_temporarily_unavailable', ServiceError],
  [503, 'price_stream_capacity_exceeded', ServiceError],
  [503, 'pnl_unavailable', ServiceError],
  [404, 'batch_not_found', NotFoundError],
  [404, 'category_not_found', NotFoundError],
  [404, 'event_not_found', NotFoundError],
  [404, 'group_not_found', NotFoundError],
  [404, 'market_not_found', NotFoundError],
  [404, 'order_not_found', NotFoundError],
  [404, 'profile_not_found', NotFoundError],
  [404, 'security_not_found', NotFoundError],
  [404, 'token_not_found', NotFoundError],
  [404, 'trading_day_not_found', NotFoundError],
  [404, 'venue_not_found', NotFoundError],
  [422, 'price_feed_not_found', NotFoundError],
];

describe('every problem row of the interface becomes its typed error', () => {
  it.each(ROWS)('%i %s', (status, code, type) => {
    const error = errorFromAnswer(answer(status, problem(status, code)), 'GET /x');
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({
      status,
      code,
      requestId: REQUEST_ID,
      source: 'origin',
      knownCode: true,
      endpoint: 'GET /x',
    });
  });

  it('carries recovery, field errors and Retry-After', () => {
    const body = problem(422, 'validation_failed', {
      field_errors: [{ path: ['limit'], code: 'too_large', message: 'must be at most 500' }],
      recovery: { strategy: 'none' },
    });
    const error = errorFromAnswer(answer(422, body, { ...PROBLEM_HEADERS, 'retry-after': '3' }), 'GET /x');
    expect(error.fieldErrors).toEqual([{ path: ['limit'], code: 'too_large', message: 'must be at most 500' }]);
    expect(error.recovery).toEqual({ strategy: 'none' });
    expect(error.retryAfterSeconds).toBe(3);
  });

  it('an identity_token_expired asks for a refresh only a browser session can do', () => {
    const error = errorFromAnswer(
      answer(401, problem(401, 'identity_token_expired', { recovery: { strategy: 'refresh_identity_token' } })),
      'GET /x',
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).needsIdentityRefresh).toBe(true);
  });
});

describe('answers that are not ordinary problems', () => {
  it('edge 429 (§7.8): plain JSON, no request id anywhere, recovery retry_after', () => {
    const body = { code: 'rate_limited', recovery: { strategy: 'retry_after', after_seconds: 4 } };
    const error = errorFromAnswer(
      answer(429, body, { 'content-type': 'application/json', 'retry-after': '4' }),
      'GET /x',
    );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      source: 'edge',
      requestId: undefined,
      retryAfterSeconds: 4,
      recovery: { strategy: 'retry_after', after_seconds: 4 },
    });
  });

  it('stream connection 429 (§8.5): Retry-After 60', () => {
    const body = { code: 'rate_limited', title: 'Too many connection attempts' };
    const error = errorFromAnswer(
      answer(429, body, { 'content-type': 'application/json', 'retry-after': '60' }),
      'GET /trade/v1/market-stream',
      {
        streamConnection: true,
      },
    );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ source: 'stream-connection', retryAfterSeconds: 60, code: 'rate_limited' });
  });

  it('a proxy error page is a VenueError without code, not something to retry blindly', () => {
    const error = errorFromAnswer(answer(502, '<html>Bad gateway</html>', { 'content-type': 'text/html' }), 'GET /x');
    expect(error.constructor).toBe(VenueError);
    expect(error).toMatchObject({ status: 502, code: undefined, source: 'unreadable', knownCode: false });
  });

  it('a code the interface does not name keeps its class generic and is flagged unknown', () => {
    const error = errorFromAnswer(answer(409, problem(409, 'brand_new_code')), 'GET /x');
    expect(error.constructor).toBe(VenueError);
    expect(error.knownCode).toBe(false);
  });

  it('a problem with a malformed recovery still yields its code, without the recovery', () => {
    const error = errorFromAnswer(answer(503, problem(503, 'dependency_unavailable', { recovery: 'soon' })), 'GET /x');
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.recovery).toBeUndefined();
  });
});

describe('through the client', () => {
  it('a 404 event_not_found reaches the caller typed, with the request id, after one request', async () => {
    const { pool, client } = stubVenue();
    pool
      .intercept({ path: '/api/v1/events/nope' })
      .reply(404, problem(404, 'event_not_found'), { headers: PROBLEM_HEADERS });
    const error = await client.catalogue.event('nope').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      code: 'event_not_found',
      requestId: REQUEST_ID,
      attempts: 1,
      endpoint: 'GET /api/v1/events/{slug}',
    });
  });
});
