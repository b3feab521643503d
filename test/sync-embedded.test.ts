import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Availability } from '../src/api/availability.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { TOPICS } from '../src/bus/topics.ts';
import { renderFill, renderOrder } from '../src/simulator/wire/render/order.ts';
import {
  counterpartOf,
  openPositions,
  renderActivity,
  renderPosition,
} from '../src/simulator/wire/render/portfolio.ts';
import { startSimulator, type SimulatorHandle } from '../src/simulator/index.ts';
import { MemoryCheckpointStore } from '../src/sync/checkpoint.ts';
import { startEmbeddedScheduler } from '../src/sync/embedded-scheduler.ts';
import { JOB_NAMES, type JobName } from '../src/sync/jobs.ts';
import type { JobReport } from '../src/sync/run-job.ts';
import { createSyncVenue, type SyncVenue } from '../src/sync/venue.ts';
import { Secret } from '../src/util/secret.ts';
import { asWire, captureLogger, latestBy, RecordingBus, requestsInFlight, SharedTime, until } from './sync-fixtures.ts';

const MINUTE = 60_000;

describe('the embedded scheduler over a few simulated minutes', () => {
  const inFlight = requestsInFlight();
  let sim: SimulatorHandle;
  const time = new SharedTime(
    () => inFlight.count() > 0,
    () => sim.tick(),
  );
  const bus = new RecordingBus();
  const delivered: ReceivedRecord[] = [];
  const reports: JobReport[] = [];
  const { logger, lines } = captureLogger();
  let venue: SyncVenue;

  beforeAll(async () => {
    // The venue keeps its whole history here (19 simulated minutes; by default settled orders leave
    // its memory after 10): what the sync jobs saw is compared with all of it.
    sim = await startSimulator({
      seed: 3,
      rate: 20,
      clock: { now: () => time.now() },
      venue: { retention: { settledMs: Infinity } },
    });
    // Read back from the bus, as a loader would.
    await bus.subscribe({
      group: 'check',
      topics: TOPICS.topics.map((t) => t.name),
      onBatch: async (batch) => {
        for (const message of batch.messages) if (message.ok) delivered.push(message.record);
      },
    });
    venue = createSyncVenue({
      baseUrl: sim.url,
      token: new Secret(sim.demoToken),
      clock: time,
      limiter: new RateLimiter({ ipLimits: new IpLimits(), clock: time }),
      availability: new Availability(),
      logger,
    });
    const scheduler = startEmbeddedScheduler({
      client: venue,
      bus,
      checkpoints: new MemoryCheckpointStore(),
      account: 'demo',
      clock: time,
      now: () => time.now(),
      logger,
      // Every job often enough to see the flow; PnL more often than the venue marks (every minute).
      intervals: {
        ...(Object.fromEntries(JOB_NAMES.map((job) => [job, 45_000])) as Record<JobName, number>),
        pnl: 20_000,
      },
      onReport: (report) => reports.push(report),
    });
    const start = time.now();
    await until(() => time.now() >= start + 3 * MINUTE);
    // The flow stops; resting GTD orders (up to 15 min) expire and fills settle before the last reads.
    sim.venue.traders.rate = 0;
    const quiet = time.now() + 16 * MINUTE;
    await until(() => time.now() >= quiet);
    await until(() => JOB_NAMES.every((job) => reports.some((r) => r.job === job && r.startedAtMs >= quiet)));
    await scheduler.stop();
    await until(() => delivered.length === bus.records.length);
  }, 120_000);

  afterAll(async () => {
    inFlight.stop();
    await venue.close();
    await bus.close();
    await sim.close();
  });

  const of = (kind: ReceivedRecord['kind']): ReceivedRecord[] => delivered.filter((r) => r.kind === kind);
  const account = (): SimulatorHandle['venue']['demo']['account'] => sim.venue.demo.account;

  it('ran every job, none failing', () => {
    for (const job of JOB_NAMES)
      expect(reports.filter((r) => r.job === job && r.outcome === 'done').length).toBeGreaterThan(1);
    expect(lines.filter((line) => line.msg === 'sync job failed')).toEqual([]);
  });

  it("orders, fills and activities: the newest record of each equals the simulator's own", () => {
    const { orders, fills, activities } = account();
    expect(orders.length).toBeGreaterThan(10);
    const latestOrders = latestBy(of('order'), (p) => p.internal_id as string);
    expect([...latestOrders.keys()].sort()).toEqual(orders.map((o) => o.id).sort());
    for (const order of orders) expect(latestOrders.get(order.id)).toEqual(asWire(renderOrder(order)));
    const latestFills = latestBy(of('fill'), (p) => p.fill_id as string);
    expect([...latestFills.keys()].sort()).toEqual(fills.map((f) => f.fillId).sort());
    for (const fill of fills) expect(latestFills.get(fill.fillId)).toEqual(asWire(renderFill(fill)));
    const latestActivities = latestBy(of('activity'), (p) => p.id as string);
    expect([...latestActivities.keys()].sort()).toEqual(activities.map((a) => a.id).sort());
    for (const activity of activities)
      expect(latestActivities.get(activity.id)).toEqual(asWire(renderActivity(sim.venue, activity)));
  });

  it("positions: the last snapshot equals the simulator's positions", () => {
    const last = of('position').at(-1)?.payload as { positions: unknown[] };
    const truth = openPositions(account()).map((p) =>
      renderPosition(sim.venue, p, counterpartOf(sim.venue, account(), p)),
    );
    expect(last.positions).toEqual(asWire(truth));
  });

  it('settled PnL: one record per bucket the venue marked, none missing in between', () => {
    const recorded = of('pnl_settled').map((r) => r.payload as { bucket_at: string; lifetime_pnl_micro: string });
    const history = sim.venue.pnl.history(account().id).map((b) => ({
      bucket_at: new Date(b.bucketAtMs).toISOString(),
      lifetime_pnl_micro: b.lifetimePnlMicro.toString(),
    }));
    expect(recorded.length).toBeGreaterThan(10);
    const first = history.findIndex((b) => b.bucket_at === recorded[0]?.bucket_at);
    expect(recorded.map((b) => ({ bucket_at: b.bucket_at, lifetime_pnl_micro: b.lifetime_pnl_micro }))).toEqual(
      history.slice(first, first + recorded.length),
    );
  });

  it("rebates: the last read equals the account's totals", () => {
    const { lpIncentivesMicro, makerRebatesMicro, vipRebatesMicro } = account();
    expect(of('rebates').at(-1)?.payload).toEqual(
      asWire({
        lp_incentive_micro: lpIncentivesMicro,
        maker_rebate_micro: makerRebatesMicro,
        vip_rebate_micro: vipRebatesMicro,
        total_micro: lpIncentivesMicro + makerRebatesMicro + vipRebatesMicro,
      }),
    );
  });

  it('paced by the shared limiter, the venue never had to refuse a request', () => {
    expect(lines.filter((line) => line.code === 'rate_limited')).toEqual([]);
  });
});
