import { afterEach, describe, expect, it } from 'vitest';
import { CursorLoopError } from '../src/api/paging.ts';
import type { Activity } from '../src/api/schemas/index.ts';
import type { SimulatorHandle } from '../src/simulator/index.ts';
import { MemoryCheckpointStore, positionOf, type CheckpointPosition } from '../src/sync/checkpoint.ts';
import { PublishedMemory } from '../src/sync/publisher.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { harness, type Harness } from './sync-fixtures.ts';

const ACTIVITIES = 'GET /trade/v1/portfolio/activities';
const PAGE = 7;

/** `n` deposits one second apart: settled activities with distinct times. */
function deposits(sim: SimulatorHandle, n: number): void {
  for (let i = 0; i < n; i += 1) {
    sim.advance(1_000);
    sim.venue.deposit(sim.venue.demo.account, 1_000_000n);
  }
}

const ids = (h: Harness, from = 0): string[] =>
  h.bus
    .of('activity')
    .slice(from)
    .map((r) => (r.payload as Activity).id);
const truthIds = (h: Harness): string[] => h.sim.venue.demo.account.activities.map((a) => a.id);

describe('incremental passes and checkpoints', () => {
  let h: Harness;
  afterEach(async () => h.close());

  // These tests count pages: every page as long as asked.
  async function quiet(): Promise<Harness> {
    return harness({
      sim: { rate: 0, cases: { shortPageShare: 0 } },
      tuning: { pageSize: { events: 100, orders: 500, openOrders: 500, trades: 500, activities: PAGE } },
    });
  }

  it('a second pass reads only down to the frontier and publishes only what is new', async () => {
    h = await quiet();
    deposits(h.sim, 29);
    await runSyncJob(h.deps, 'activities');
    expect(h.requests.count(ACTIVITIES)).toBe(Math.ceil(30 / PAGE));
    const before = h.bus.records.length;
    deposits(h.sim, 3);
    const second = await runSyncJob(h.deps, 'activities');
    expect(h.requests.count(ACTIVITIES)).toBe(Math.ceil(30 / PAGE) + 1);
    expect(second).toMatchObject({ outcome: 'done', records: 3, pages: 1 });
    expect(ids(h, before)).toEqual(truthIds(h).slice(-3).reverse());
  });

  it('a run stopped mid-pass resumes at the first page not confirmed by the bus: no page skipped, none read twice', async () => {
    h = await quiet();
    deposits(h.sim, 29);
    h.bus.failOn = new Set([3]);
    await expect(runSyncJob(h.deps, 'activities')).rejects.toThrow('publish 3 failed');
    const stopped = await h.store.load('activities', 'demo');
    expect(stopped).toMatchObject({ status: 'failed', pass: { page: 2, records: 2 * PAGE } });
    expect(h.requests.count(ACTIVITIES)).toBe(3);

    h.bus.failOn = new Set();
    const resumed = await runSyncJob(h.deps, 'activities');
    expect(resumed).toMatchObject({ outcome: 'done', records: 30 - 2 * PAGE });
    expect(h.requests.count(ACTIVITIES)).toBe(3 + 3);
    const pages = h.bus.of('activity').map((r) => (r.source as { page: number }).page);
    expect(pages).toEqual(Array.from({ length: 30 }, (_, i) => Math.floor(i / PAGE)));
    expect([...ids(h)].sort()).toEqual([...truthIds(h)].sort());
  });

  it("a newer checkpoint handed in (a Temporal heartbeat) wins over the store's", async () => {
    h = await quiet();
    deposits(h.sim, 29);
    h.bus.failOn = new Set([2]);
    let heartbeat: CheckpointPosition | undefined;
    await expect(
      runSyncJob(h.deps, 'activities', { onProgress: (cp) => (heartbeat = positionOf(cp)) }),
    ).rejects.toThrow();
    // A worker that lost its local store (killed) has only the heartbeat.
    const fresh = { ...h.deps, checkpoints: new MemoryCheckpointStore(), memory: new PublishedMemory() };
    h.bus.failOn = new Set();
    await runSyncJob(fresh, 'activities', { resume: heartbeat });
    expect(h.bus.of('activity').map((r) => (r.source as { page: number }).page)[PAGE]).toBe(1);
    expect([...ids(h)].sort()).toEqual([...truthIds(h)].sort());
  });

  it('a saved cursor the venue refuses starts the pass again from the first page', async () => {
    h = await quiet();
    deposits(h.sim, 9);
    await h.store.save('activities', 'demo', {
      version: 1,
      status: 'failed',
      pass: { runId: 'r', cursor: 'not-a-cursor', page: 1, records: 7, startedAt: '' },
      updatedAt: '',
    });
    await expect(runSyncJob(h.deps, 'activities')).resolves.toMatchObject({ outcome: 'done' });
    expect([...ids(h)].sort()).toEqual([...truthIds(h)].sort());
    expect(
      h.logLines.some((line) => line.msg === 'saved cursor refused; starting the pass again from the first page'),
    ).toBe(true);
  });

  it('a cursor handed out twice ends the pass with CursorLoopError and a cursor_loop record; the next run starts afresh', async () => {
    h = await quiet();
    deposits(h.sim, 29);
    h.sim.faults.inject({
      kind: 'repeat_cursor',
      path_prefix: '/trade/v1/portfolio/activities',
      duration_ms: 5_000,
      fraction: 1,
    });
    const failed = runSyncJob(h.deps, 'activities');
    await expect(failed).rejects.toBeInstanceOf(CursorLoopError);
    await expect(failed).rejects.toThrow(`${ACTIVITIES}: cursor`);
    // Page 0 gave a cursor, page 1 (read at it) gave the same one back: two requests, not an endless loop.
    expect(h.requests.count(ACTIVITIES)).toBe(2);
    const [finding] = h.bus.of('data_quality').map((r) => r.payload as Record<string, unknown>);
    expect(finding).toMatchObject({ problem: 'cursor_loop', stream: 'sync', endpoint: ACTIVITIES });
    expect(String(finding!.detail)).toContain('job activities, page 1');
    expect(await h.store.load('activities', 'demo')).toMatchObject({ status: 'failed' });
    expect((await h.store.load('activities', 'demo'))?.pass).toBeUndefined();
    h.sim.advance(6_000);
    await expect(runSyncJob(h.deps, 'activities')).resolves.toMatchObject({ outcome: 'done' });
    expect([...new Set(ids(h))].sort()).toEqual([...truthIds(h)].sort());
  });

  it('a cursor loop across slices (a pass resumed from its checkpoint, as Temporal runs it) is refused too', async () => {
    h = await quiet();
    deposits(h.sim, 29);
    h.sim.faults.inject({
      kind: 'repeat_cursor',
      path_prefix: '/trade/v1/portfolio/activities',
      duration_ms: 60_000,
      fraction: 1,
    });
    const slices: string[] = [];
    for (let i = 0; i < 4 && slices.at(-1) !== 'CursorLoopError'; i++) {
      slices.push(
        await runSyncJob(h.deps, 'activities', { maxPages: 1 }).then(
          (r) => r.outcome,
          (e: Error) => e.name,
        ),
      );
    }
    expect(slices).toEqual(['partial', 'CursorLoopError']);
  });

  it('a backfill publishes the window again — though this process published it before — under its own checkpoint, leaving the frontier alone', async () => {
    h = await quiet();
    deposits(h.sim, 20);
    await runSyncJob(h.deps, 'activities');
    const regular = await h.store.load('activities', 'demo');
    const all = h.sim.venue.demo.account.activities;
    const [from, to] = [all[5], all[12]] as [(typeof all)[number], (typeof all)[number]];
    const before = h.bus.records.length;
    // The same process, with its memory of what it published: a backfill repairs a hole, so it publishes anyway.
    const report = await runSyncJob(h.deps, 'activities', {
      window: { fromMs: from.createdAtMs, toMs: to.createdAtMs },
    });
    expect(report.scope).toMatch(/^demo@backfill:/);
    expect(report.records).toBe(8);
    expect(ids(h, before).sort()).toEqual(
      all
        .slice(5, 13)
        .map((a) => a.id)
        .sort(),
    );
    expect(await h.store.load('activities', 'demo')).toEqual(regular);
  });

  it('refuses to backfill a job whose resource only tells the present', async () => {
    h = await quiet();
    await expect(runSyncJob(h.deps, 'positions', { window: { fromMs: 0, toMs: 1 } })).rejects.toThrow(
      'cannot be backfilled',
    );
  });
});
