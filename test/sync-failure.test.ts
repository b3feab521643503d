import { describe, expect, it } from 'vitest';
import { ExchangeUnavailableError, ResponseShapeError, TransportError } from '../src/api/errors.ts';
import { errorFromAnswer } from '../src/api/problem.ts';
import { BusError } from '../src/bus/bus.ts';
import { classifyFailure } from '../src/sync/failure.ts';
import { toApplicationFailure } from '../workflows/failure-mapping.ts';

/** A problem+json answer as the venue sends it. */
function problem(
  status: number,
  code: string | undefined,
  recovery?: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const body = {
    type: `urn:service:problem:${code}`,
    title: 't',
    status,
    code,
    request_id: '0b6c3f0e-3d9c-4a53-9a43-6f0d2d1f3b11',
    recovery,
  };
  return errorFromAnswer(
    { status, headers: { 'content-type': 'application/problem+json', ...headers }, text: JSON.stringify(body) },
    'GET /trade/v1/portfolio/pnl',
  );
}

describe('what a failed job run means for its retries (§7.2)', () => {
  it('retry_after: retried after the full wait the venue named, never sooner', () => {
    const rateLimited = classifyFailure(
      problem(429, 'rate_limited', { strategy: 'retry_after', after_seconds: 3 }, { 'retry-after': '3' }),
    );
    expect(rateLimited).toMatchObject({ retryable: true, type: 'rate_limited' });
    expect(rateLimited.retryable && rateLimited.delayMs).toBeGreaterThanOrEqual(3_000);
    const notReady = classifyFailure(problem(425, 'pnl_not_ready', { strategy: 'retry_after', after_seconds: 40 }));
    expect(notReady).toMatchObject({ retryable: true, type: 'pnl_not_ready' });
    expect(notReady.retryable && notReady.delayMs).toBeGreaterThanOrEqual(40_000);
  });

  it('retry, lost connections, unusable positions and bus hiccups: retried with backoff', () => {
    const backoff = classifyFailure(problem(503, 'dependency_unavailable', { strategy: 'retry' }));
    expect(backoff).toMatchObject({ retryable: true, type: 'dependency_unavailable' });
    expect(backoff.retryable && backoff.delayMs).toBeUndefined();
    expect(classifyFailure(new TransportError('socket hang up', 'GET /x'))).toMatchObject({ retryable: true });
    expect(classifyFailure(new ExchangeUnavailableError(['SERVICE'], 5))).toMatchObject({ retryable: true });
    expect(classifyFailure(new BusError('closed', 'bus closed'))).toMatchObject({
      retryable: true,
      type: 'bus_closed',
    });
  });

  it('none, unknown codes, validation and credentials: not retried, whatever recovery says', () => {
    expect(classifyFailure(problem(502, 'dependency_invalid_response', { strategy: 'none' }))).toMatchObject({
      retryable: false,
    });
    expect(classifyFailure(problem(503, 'pnl_unavailable', { strategy: 'retry' }))).toMatchObject({
      retryable: false,
      type: 'pnl_unavailable',
    });
    expect(classifyFailure(problem(500, 'brand_new_code', { strategy: 'retry' }))).toMatchObject({
      retryable: false,
      type: 'brand_new_code',
    });
    expect(classifyFailure(problem(422, 'validation_failed', { strategy: 'none' }))).toMatchObject({
      retryable: false,
    });
    expect(classifyFailure(problem(401, 'invalid_personal_access_token', { strategy: 'none' }))).toMatchObject({
      retryable: false,
    });
    expect(classifyFailure(problem(403, 'forbidden_scope'))).toMatchObject({ retryable: false });
    expect(classifyFailure(new ResponseShapeError('GET /x', ['orders[0].price_micro: fractional'], {}))).toMatchObject({
      retryable: false,
    });
    expect(classifyFailure(new BusError('record_too_large', 'too big'))).toMatchObject({ retryable: false });
  });

  it("reaches Temporal as an ApplicationFailure: non-retryable, or with the venue's wait as the next retry delay", () => {
    const none = toApplicationFailure(problem(403, 'forbidden_scope'));
    expect(none).toMatchObject({ type: 'forbidden_scope', nonRetryable: true });
    const wait = toApplicationFailure(
      problem(429, 'rate_limited', { strategy: 'retry_after', after_seconds: 2 }, { 'retry-after': '2' }),
    );
    expect(wait).toMatchObject({ type: 'rate_limited', nonRetryable: false });
    expect(Number(wait.nextRetryDelay)).toBeGreaterThanOrEqual(2_000);
    expect(toApplicationFailure(new TransportError('reset', 'GET /x'))).toMatchObject({
      nonRetryable: false,
      nextRetryDelay: undefined,
    });
  });
});
