import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  InvalidRequestError,
  ServiceError,
  TransportError,
  VenueError,
} from '../src/api/errors.ts';
import { backoffDelay, DEFAULT_RETRY_POLICY } from '../src/api/recovery.ts';
import { batchPayload, JSON_HEADERS, PROBLEM_HEADERS, problem, rebatesPayload, stubVenue } from './api-fixtures.ts';

const REBATES = '/trade/v1/portfolio/rebates';

/** Replies with each answer in turn, counting requests. */
function scripted(
  venue: ReturnType<typeof stubVenue>,
  path: string,
  answers: Array<[number, unknown, Record<string, string>?]>,
) {
  const seen = { count: 0 };
  for (const [status, body, headers] of answers) {
    venue.pool.intercept({ path }).reply(() => {
      seen.count += 1;
      return {
        statusCode: status,
        data: JSON.stringify(body),
        responseOptions: { headers: headers ?? (status < 300 ? JSON_HEADERS : PROBLEM_HEADERS) },
      };
    });
  }
  return seen;
}

describe('recovery strategies (§7.2)', () => {
  it('retry: exponential backoff with jitter, then the answer', async () => {
    const venue = stubVenue();
    const unavailable = problem(503, 'dependency_unavailable', { recovery: { strategy: 'retry' } });
    const seen = scripted(venue, REBATES, [
      [503, unavailable],
      [503, unavailable],
      [200, rebatesPayload],
    ]);
    const rebates = await venue.client.portfolio.rebates();
    expect(rebates.value.total_micro).toBe(1_550_000n);
    expect(seen.count).toBe(3);
    // random() = 0.5: half of each step fixed, a quarter jitter: 250 ms then 500 ms steps.
    expect(venue.clock.sleeps).toEqual([187.5, 375]);
  });

  it('retry is bounded: the last typed error comes back with the attempt count', async () => {
    const venue = stubVenue({ retry: { maxAttempts: 3 } });
    const unavailable = problem(503, 'dependency_unavailable', { recovery: { strategy: 'retry' } });
    const seen = scripted(venue, REBATES, [
      [503, unavailable],
      [503, unavailable],
      [503, unavailable],
    ]);
    const error = await venue.client.portfolio.rebates().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: 'dependency_unavailable', attempts: 3 });
    expect(seen.count).toBe(3);
  });

  it('retry_after: waits the larger of after_seconds and Retry-After, plus jitter', async () => {
    const venue = stubVenue();
    const limited = problem(429, 'rate_limited', { recovery: { strategy: 'retry_after', after_seconds: 2 } });
    scripted(venue, REBATES, [
      [429, limited, { ...PROBLEM_HEADERS, 'retry-after': '3' }],
      [200, rebatesPayload],
    ]);
    await venue.client.portfolio.rebates();
    expect(venue.clock.sleeps[0]).toBe(3_000 + 0.5 * DEFAULT_RETRY_POLICY.retryAfterJitterMs);
  });

  it('check_status: reads the named batch, sends nothing else, and hands the batch to the caller', async () => {
    const venue = stubVenue();
    const unknownOutcome = problem(503, 'dependency_outcome_unknown', {
      recovery: { strategy: 'check_status', resource: { kind: 'batch', batch_hash: batchPayload.batch_hash } },
    });
    const seen = scripted(venue, REBATES, [[503, unknownOutcome]]);
    venue.pool
      .intercept({ path: `/trade/v1/batches/${batchPayload.batch_hash}` })
      .reply(200, batchPayload, { headers: JSON_HEADERS });
    const error = (await venue.client.portfolio.rebates().catch((err: unknown) => err)) as VenueError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.checkedResource).toMatchObject({ value: { batch_hash: batchPayload.batch_hash, status: 'PENDING' } });
    expect(seen.count).toBe(1);
  });

  it('refresh_identity_token is surfaced, not attempted: we hold personal access tokens', async () => {
    const venue = stubVenue();
    const expired = problem(401, 'identity_token_expired', { recovery: { strategy: 'refresh_identity_token' } });
    const seen = scripted(venue, REBATES, [[401, expired]]);
    const error = await venue.client.portfolio.rebates().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).needsIdentityRefresh).toBe(true);
    expect(seen.count).toBe(1);
  });

  it('none stops at once', async () => {
    const venue = stubVenue();
    const seen = scripted(venue, REBATES, [[422, problem(422, 'validation_failed')]]);
    await expect(venue.client.portfolio.rebates()).rejects.toBeInstanceOf(InvalidRequestError);
    expect(seen.count).toBe(1);
    expect(venue.clock.sleeps).toEqual([]);
  });

  it('an unknown code is not retried even when its recovery says retry', async () => {
    const venue = stubVenue();
    const seen = scripted(venue, REBATES, [
      [503, problem(503, 'shiny_new_condition', { recovery: { strategy: 'retry' } })],
    ]);
    const error = await venue.client.portfolio.rebates().catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'shiny_new_condition', knownCode: false, attempts: 1 });
    expect(seen.count).toBe(1);
  });

  it('an unknown strategy on a known code is treated as none', async () => {
    const venue = stubVenue();
    const seen = scripted(venue, REBATES, [
      [503, problem(503, 'dependency_unavailable', { recovery: { strategy: 'teleport' } })],
    ]);
    await expect(venue.client.portfolio.rebates()).rejects.toBeInstanceOf(ServiceError);
    expect(seen.count).toBe(1);
  });

  it('never a blanket retry of 5xx: an unreadable 500 and internal_error stop at once', async () => {
    const venue = stubVenue();
    const seen = scripted(venue, REBATES, [
      [500, '<html>oops</html>', { 'content-type': 'text/html' }],
      [500, problem(500, 'internal_error', { recovery: { strategy: 'retry' } })],
    ]);
    await expect(venue.client.portfolio.rebates()).rejects.toMatchObject({ status: 500, code: undefined });
    await expect(venue.client.portfolio.rebates()).rejects.toMatchObject({
      status: 500,
      code: 'internal_error',
      attempts: 1,
    });
    expect(seen.count).toBe(2);
  });

  it('a problem without recovery follows the code: dependency_unavailable backs off and retries', async () => {
    const venue = stubVenue();
    const { recovery: _, ...bare } = problem(503, 'dependency_unavailable');
    const seen = scripted(venue, REBATES, [
      [503, bare],
      [200, rebatesPayload],
    ]);
    await venue.client.portfolio.rebates();
    expect(seen.count).toBe(2);
  });

  it('a 429 without a readable problem still waits Retry-After and is repeated (§7.7: nothing ran)', async () => {
    const venue = stubVenue();
    const seen = scripted(venue, REBATES, [
      [429, 'Too Many Requests', { 'content-type': 'text/plain', 'retry-after': '7' }],
      [200, rebatesPayload],
    ]);
    await venue.client.portfolio.rebates();
    expect(seen.count).toBe(2);
    expect(venue.clock.sleeps).toContain(7_000 + 0.5 * DEFAULT_RETRY_POLICY.retryAfterJitterMs);
  });

  it('a token source that fails is reported as such, not retried as a network failure', async () => {
    const venue = stubVenue({ token: () => Promise.reject(new Error('token file unreadable')) });
    await expect(venue.client.portfolio.rebates()).rejects.toThrow('token file unreadable');
    expect(venue.clock.sleeps).toEqual([]);
  });

  it('a lost connection on a read is retried with backoff (reads are safe to repeat)', async () => {
    const venue = stubVenue();
    venue.pool.intercept({ path: REBATES }).replyWithError(new Error('socket hang up'));
    venue.pool.intercept({ path: REBATES }).reply(200, rebatesPayload, { headers: JSON_HEADERS });
    const rebates = await venue.client.portfolio.rebates();
    expect(rebates.value.lp_incentive_micro).toBe(1_250_000n);
    expect(venue.clock.sleeps).toEqual([187.5]);
  });

  it('a connection that keeps failing ends in a TransportError', async () => {
    const venue = stubVenue({ retry: { maxAttempts: 2 } });
    venue.pool.intercept({ path: REBATES }).replyWithError(new Error('ECONNRESET')).times(2);
    await expect(venue.client.portfolio.rebates()).rejects.toBeInstanceOf(TransportError);
  });
});

describe('backoff', () => {
  it('doubles per attempt up to the cap, with at least half of each step kept', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, policy, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
    expect(backoffDelay(3, policy, () => 0.999)).toBeCloseTo(399.8);
  });
});
