import { describe, expect, it } from 'vitest';
import { backoffDelay, backoffStep, GaveUp, retryForever } from '../src/util/backoff.ts';
import { ManualClock } from '../src/util/clock.ts';
import { parseRetryAfter } from '../src/util/retry-after.ts';

describe('one home for time', () => {
  it('Retry-After: seconds (fractions too), an HTTP date, the first of repeated headers; nothing for what is not one', () => {
    expect(parseRetryAfter('60')).toBe(60);
    expect(parseRetryAfter(' 1.5 ')).toBe(1.5);
    expect(parseRetryAfter(['7', '9'])).toBe(7);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(30);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:29:00 GMT'))).toBe(0);
    for (const nothing of [undefined, null, '', 'soon', '-5']) expect(parseRetryAfter(nothing)).toBeUndefined();
  });

  it('backoff: steps double up to the ceiling; with jitter a wait lies between half a step and the step', () => {
    const shape = { firstMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 60].map((attempt) => backoffStep(attempt, shape))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(backoffDelay(3, shape, () => 0)).toBe(200);
    expect(backoffDelay(3, shape, () => 0.999999)).toBeCloseTo(400, 3);
  });

  it('retryForever waits on the clock it is given: virtual time, no real waiting, until it succeeds or is told to give up', async () => {
    const clock = new ManualClock(0, 1_000_000n);
    let calls = 0;
    const giveUp = new AbortController();
    const failures: number[] = [];
    const hooks = {
      onFailure: (_e: unknown, attempt: number) => failures.push(attempt),
      onRecovered: () => undefined,
      giveUp: giveUp.signal,
    };
    const result = await retryForever(async () => (++calls < 4 ? Promise.reject(new Error('down')) : 'stored'), hooks, {
      clock,
      random: () => 0.5,
    });
    expect(result).toBe('stored');
    expect(failures).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([75, 150, 300]);
    expect(clock.now()).toBe(525);
    expect(clock.epochMicros()).toBe(1_000_000n + 525_000n);

    giveUp.abort();
    await expect(
      retryForever(() => Promise.reject(new Error('still down')), hooks, { clock, what: 'the warehouse' }),
    ).rejects.toThrow(GaveUp);
  });
});
