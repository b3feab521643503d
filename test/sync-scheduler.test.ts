import { describe, expect, it } from 'vitest';
import { Availability } from '../src/api/availability.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import { startSimulator, type SimulatorHandle } from '../src/simulator/index.ts';
import { MemoryCheckpointStore } from '../src/sync/checkpoint.ts';
import { startEmbeddedScheduler } from '../src/sync/embedded-scheduler.ts';
import type { FailureDecision } from '../src/sync/failure.ts';
import { createSyncVenue } from '../src/sync/venue.ts';
import { Secret } from '../src/util/secret.ts';
import { captureLogger, RecordingBus, RequestLog, requestsInFlight, SharedTime, until } from './sync-fixtures.ts';

const MINUTE = 60_000;

describe('the embedded scheduler does not hammer the venue', () => {
  it('a job failing with strategy none runs again at its interval only; an endpoint not offered is asked every 30 minutes', async () => {
    const inFlight = requestsInFlight();
    const venueOf: { sim?: SimulatorHandle } = {};
    // Time moves only while both job loops wait: a run in progress takes no virtual time.
    const time = new SharedTime(
      () => inFlight.count() > 0,
      () => venueOf.sim?.tick(),
      2,
    );
    const sim = await startSimulator({
      seed: 9,
      rate: 0,
      clock: { now: () => time.now() },
      deployment: { features: { withdrawals: 'absent' } },
    });
    venueOf.sim = sim;
    // A token without portfolio:read: the summary answers 403 forbidden_scope (strategy none).
    const reader = sim.venue.createAccount('reader', 0n, ['orders:read']);
    const requests = new RequestLog();
    const { logger } = captureLogger();
    const venue = createSyncVenue({
      baseUrl: sim.url,
      token: new Secret(reader.token.secret),
      clock: time,
      limiter: new RateLimiter({ ipLimits: new IpLimits(), clock: time }),
      availability: new Availability(),
      dispatcher: requests.dispatcher(),
      logger,
    });
    const bus = new RecordingBus();
    const failures: Array<{ atMs: number; decision: FailureDecision }> = [];
    const asked: number[] = [];
    const origin = time.now();
    const scheduler = startEmbeddedScheduler({
      client: venue,
      bus,
      checkpoints: new MemoryCheckpointStore(),
      account: 'reader',
      jobs: ['portfolio_summary', 'withdrawal_assets'],
      intervals: { portfolio_summary: MINUTE, withdrawal_assets: MINUTE },
      clock: time,
      now: () => time.now(),
      logger,
      onFailure: (_job, _error, decision) => failures.push({ atMs: time.now() - origin, decision }),
      onReport: (report) =>
        report.job === 'withdrawal_assets' && !report.skipped && asked.push(report.startedAtMs - origin),
    });
    try {
      await until(() => failures.length >= 62);
      await scheduler.stop();
      // Strategy none: tried again one interval later, never sooner.
      expect(failures.map((f) => f.atMs)).toEqual(Array.from({ length: failures.length }, (_, i) => i * MINUTE));
      expect(new Set(failures.map((f) => `${f.decision.type} ${f.decision.retryable}`))).toEqual(
        new Set(['forbidden_scope false']),
      );
      // One request per attempt (the last may have been under way when the scheduler stopped).
      expect(requests.count('GET /trade/v1/portfolio/summary') - failures.length).toBeLessThanOrEqual(1);
      // Not offered: asked at the start, then every 30 minutes although the job runs every minute.
      expect(asked.filter((t) => t <= 61 * MINUTE)).toEqual([0, 30 * MINUTE, 60 * MINUTE]);
      const gaps = bus
        .of('capture_gap')
        .map((r) => r.payload as { channel: string; gap_start: string; gap_end: string });
      expect(gaps.slice(0, 3).map((g) => [g.channel, Date.parse(g.gap_end) - origin])).toEqual([
        ['withdrawal_assets', 0],
        ['withdrawal_assets', 30 * MINUTE],
        ['withdrawal_assets', 60 * MINUTE],
      ]);
    } finally {
      inFlight.stop();
      await venue.close();
      await bus.close();
      await sim.close();
    }
  });
});
