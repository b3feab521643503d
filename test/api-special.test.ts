import { describe, expect, it } from 'vitest';
import { ExchangeUnavailableError, NotOfferedError, NotReadyError, ServiceError } from '../src/api/errors.ts';
import {
  JSON_HEADERS,
  lpIncentivesPayload,
  pnlPayload,
  positionsPayload,
  PROBLEM_HEADERS,
  problem,
  rebatesPayload,
  stubVenue,
} from './api-fixtures.ts';

const POSITIONS = '/trade/v1/portfolio/positions/list';
const PNL = '/trade/v1/portfolio/pnl';
const LP = '/trade/v1/lp-incentives';

describe('positions with unavailable_exchanges (§2.5)', () => {
  it('reads again with backoff until SERVICE is no longer listed', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ method: 'POST', path: POSITIONS })
      .reply(200, positionsPayload(['SERVICE']), { headers: JSON_HEADERS })
      .times(2);
    venue.pool
      .intercept({ method: 'POST', path: POSITIONS })
      .reply(200, positionsPayload([]), { headers: JSON_HEADERS });
    const positions = await venue.client.portfolio.positions();
    expect(positions.value.unavailable_exchanges).toEqual([]);
    expect(positions.value.positions[0]?.shares_micro).toBe(25_000_000n);
    expect(venue.clock.sleeps).toEqual([375, 750]);
  });

  it('gives up after the bounded attempts rather than returning unusable positions', async () => {
    const venue = stubVenue({ positionsRetry: { maxAttempts: 3 } });
    venue.pool
      .intercept({ method: 'POST', path: POSITIONS })
      .reply(200, positionsPayload(['SERVICE']), { headers: JSON_HEADERS })
      .times(3);
    const error = await venue.client.portfolio.positions().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ExchangeUnavailableError);
    expect(error).toMatchObject({ exchanges: ['SERVICE'], attempts: 3 });
  });

  it('an exchange other than ours being unavailable does not hold the read', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ method: 'POST', path: POSITIONS })
      .reply(200, positionsPayload(['OTHER']), { headers: JSON_HEADERS });
    const positions = await venue.client.portfolio.positions();
    expect(positions.value.unavailable_exchanges).toEqual(['OTHER']);
  });
});

describe('425 pnl_not_ready: wait and repeat', () => {
  it('waits the time the venue names, then reads the PnL', async () => {
    const venue = stubVenue();
    const notReady = problem(425, 'pnl_not_ready', { recovery: { strategy: 'retry_after', after_seconds: 30 } });
    venue.pool.intercept({ path: PNL }).reply(425, notReady, { headers: { ...PROBLEM_HEADERS, 'retry-after': '30' } });
    venue.pool.intercept({ path: PNL }).reply(200, pnlPayload, { headers: JSON_HEADERS });
    const pnl = await venue.client.portfolio.pnl();
    expect(pnl.value.lifetime_pnl_micro).toBe(-87_250_000n);
    expect(venue.clock.sleeps).toEqual([30_125]);
  });

  it('without a recovery it backs off on its own, longer than ordinary retries, and is bounded', async () => {
    const venue = stubVenue({ pnlRetry: { maxAttempts: 4 } });
    const { recovery: _, ...notReady } = problem(425, 'pnl_not_ready');
    venue.pool.intercept({ path: PNL }).reply(425, notReady, { headers: PROBLEM_HEADERS }).times(4);
    const error = await venue.client.portfolio.pnl().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(NotReadyError);
    expect(error).toMatchObject({ attempts: 4 });
    expect(venue.clock.sleeps).toEqual([750, 1_500, 3_000]);
  });

  it('503 pnl_unavailable stops at once and keeps the request id', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ path: PNL })
      .reply(503, problem(503, 'pnl_unavailable', { recovery: { strategy: 'retry' } }), { headers: PROBLEM_HEADERS });
    await expect(venue.client.portfolio.pnl()).rejects.toSatisfy(
      (err) => err instanceof ServiceError && err.requestId === PROBLEM_HEADERS['x-request-id'] && err.attempts === 1,
    );
  });
});

describe('"not offered here" is remembered', () => {
  it.each([
    [404, 'route_not_found'],
    [503, 'feature_not_configured'],
    [503, 'price_service_not_configured'],
    [503, 'price_stream_not_configured'],
  ])('%i %s: typed, then answered from memory for a while, then asked again', async (status, code) => {
    const venue = stubVenue();
    venue.pool.intercept({ path: LP }).reply(status, problem(status, code), { headers: PROBLEM_HEADERS });
    const first = await venue.client.portfolio.lpIncentives().catch((err: unknown) => err);
    expect(first).toBeInstanceOf(NotOfferedError);
    expect(first).toMatchObject({ code, remembered: false, permanent: false });

    // No interceptor left: a request would fail, so this answer can only come from memory.
    const second = await venue.client.portfolio.lpIncentives().catch((err: unknown) => err);
    expect(second).toMatchObject({ code, remembered: true });

    venue.clock.advance(10 * 60_000);
    venue.pool.intercept({ path: LP }).reply(200, lpIncentivesPayload, { headers: JSON_HEADERS });
    const third = await venue.client.portfolio.lpIncentives();
    expect(third.value.markets).toHaveLength(1);
  });

  it('410 endpoint_retired is never called again in this process', async () => {
    const venue = stubVenue();
    venue.pool.intercept({ path: LP }).reply(410, problem(410, 'endpoint_retired'), { headers: PROBLEM_HEADERS });
    await expect(venue.client.portfolio.lpIncentives()).rejects.toMatchObject({
      code: 'endpoint_retired',
      permanent: true,
    });
    venue.clock.advance(7 * 24 * 3_600_000);
    await expect(venue.client.portfolio.lpIncentives()).rejects.toMatchObject({
      code: 'endpoint_retired',
      remembered: true,
    });
  });

  it('the memory is per endpoint: others are still asked', async () => {
    const venue = stubVenue();
    venue.pool.intercept({ path: LP }).reply(404, problem(404, 'route_not_found'), { headers: PROBLEM_HEADERS });
    venue.pool.intercept({ path: '/trade/v1/portfolio/rebates' }).reply(200, rebatesPayload, { headers: JSON_HEADERS });
    await expect(venue.client.portfolio.lpIncentives()).rejects.toBeInstanceOf(NotOfferedError);
    await expect(venue.client.portfolio.rebates()).resolves.toMatchObject({ value: { total_micro: 1_550_000n } });
  });

  it('lp-incentives sends every query parameter it is given', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({
        path: LP,
        query: { category: 'sports', search: 'rain', sort_by: 'projected_payout', sort_order: 'asc' },
      })
      .reply(200, lpIncentivesPayload, { headers: JSON_HEADERS });
    const lp = await venue.client.portfolio.lpIncentives({
      category: 'sports',
      search: 'rain',
      sort_by: 'projected_payout',
      sort_order: 'asc',
    });
    expect(lp.value.eligible).toBe(true);
  });
});
