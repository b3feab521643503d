import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActivityFailure,
  ApplicationFailure,
  WorkflowFailedError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { Availability } from '../../src/api/availability.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.ts';
import { MemoryCheckpointStore } from '../../src/sync/checkpoint.ts';
import { syncDeps, type SyncTuning } from '../../src/sync/deps.ts';
import { createSyncVenue, type SyncVenueOptions } from '../../src/sync/venue.ts';
import { Secret } from '../../src/util/secret.ts';
import type { syncJobWorkflow } from '../../workflows/sync-workflows.ts';
import type { SyncWorkflowInput } from '../../workflows/types.ts';
import { createSyncWorker } from '../../workflows/worker.ts';
import { captureLogger } from '../sync-fixtures.ts';
import { TEMPORAL_ADDRESS } from './services.ts';
import { eventually, readBack, syncServices, taskQueue, type SyncServices } from './sync-helpers.ts';

const CLI = fileURLToPath(new URL('../../bin/tapehouse.js', import.meta.url));

type StartedAttempts = temporal.api.history.v1.IActivityTaskStartedEventAttributes[];

/** The attempt count and last failure of every activity as the workflow history records them. */
async function activityAttempts(handle: WorkflowHandle): Promise<StartedAttempts> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((event) =>
    event.activityTaskStartedEventAttributes ? [event.activityTaskStartedEventAttributes] : [],
  );
}

describe('sync workflows on the real Temporal dev server and Kafka', () => {
  let services: SyncServices;
  let sim: SimulatorHandle;

  beforeAll(async () => {
    services = await syncServices();
    sim = await startSimulator({ seed: 5, rate: 0 });
    for (let i = 0; i < 60; i += 1) sim.venue.deposit(sim.venue.demo.account, 1_000_000n);
  });

  afterAll(async () => {
    await sim.close();
    await services.close();
  });

  /** Runs `body` with an in-process worker whose jobs read the simulator with `token`. */
  async function withWorker<T>(
    name: string,
    setup: {
      venue?: SimulatorHandle;
      token?: string;
      client?: Partial<SyncVenueOptions>;
      tuning?: Partial<SyncTuning>;
    },
    body: (
      start: (input: SyncWorkflowInput) => Promise<WorkflowHandleWithFirstExecutionRunId<typeof syncJobWorkflow>>,
    ) => Promise<T>,
  ): Promise<{ result: T; lines: Array<Record<string, unknown>> }> {
    const queue = taskQueue(services, name);
    const { logger, lines } = captureLogger();
    const target = setup.venue ?? sim;
    const venue = createSyncVenue({
      baseUrl: target.url,
      token: new Secret(setup.token ?? target.demoToken),
      availability: new Availability(),
      logger,
      ...setup.client,
    });
    const deps = syncDeps({
      venue,
      bus: services.bus,
      checkpoints: new MemoryCheckpointStore(),
      account: 'demo',
      topics: services.topics,
      logger,
      tuning: setup.tuning,
    });
    const worker = await createSyncWorker({
      connection: services.workerConnection,
      namespace: 'default',
      taskQueue: queue,
      deps,
    });
    const start = (input: SyncWorkflowInput) =>
      services.client.workflow.start<typeof syncJobWorkflow>('syncJobWorkflow', {
        taskQueue: queue,
        workflowId: `${queue}-${input.job}-${randomUUID().slice(0, 6)}`,
        args: [input],
      });
    try {
      return { result: await worker.runUntil(body(start)), lines };
    } finally {
      await venue.close();
    }
  }

  it('pages a job larger than a slice as several activities, continuing as new when the history grows', async () => {
    const activities = await readBack(services, 'activity');
    const small = { pageSize: { events: 100, orders: 500, openOrders: 500, trades: 500, activities: 5 } };
    const { result } = await withWorker('slices', { tuning: small }, async (start) => {
      const handle = await start({ job: 'activities', pagesPerSlice: 2, historyLimit: 12 });
      const done = await handle.result();
      return {
        done,
        firstRun: await services.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe(),
      };
    });
    const truth = sim.venue.demo.account.activities.map((a) => a.id).sort();
    expect(result.done).toMatchObject({
      job: 'activities',
      outcome: 'done',
      records: truth.length,
      pages: Math.ceil(truth.length / 5),
    });
    expect(result.done.slices).toBe(Math.ceil(result.done.pages / 2));
    expect(result.firstRun.status.name).toBe('CONTINUED_AS_NEW');
    await eventually(() => activities.records.length >= truth.length);
    expect(activities.records.map((r) => (r.payload as { id: string }).id).sort()).toEqual(truth);
    await activities.stop();
  });

  it('a 429 storm and pnl_not_ready delay the jobs but never fail them', async () => {
    // Its own venue: settled PnL is first marked 30 s after it starts, so the PnL job meets 425 first (however long the worker takes to bundle its workflows and start).
    const venue = await startSimulator({ seed: 6, rate: 0, venue: { pnlIntervalMs: 30_000 } });
    const pnl = await readBack(services, 'pnl_settled');
    // Another process spends the account's read bucket without pacing (§8.1: one envelope per
    // user), gently enough to stay under the per-IP caps the two share.
    let storming = true;
    const neighbour = async (): Promise<void> => {
      while (storming) {
        await fetch(`${venue.url}/trade/v1/portfolio/summary`, {
          headers: { authorization: `Bearer ${venue.demoToken}` },
        }).then((r) => r.arrayBuffer());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const storm = Promise.all([neighbour(), neighbour(), neighbour()]);
    // Few retries inside the client, so the storm and the 425 reach Temporal's retry policy.
    const client = { retry: { maxAttempts: 2 }, pnlRetry: { maxAttempts: 1 } };
    try {
      const { result, lines } = await withWorker('storm', { venue, client }, async (start) => {
        const jobs = await Promise.all(
          (['pnl', 'activities', 'portfolio_summary'] as const).map((job) =>
            start({ job, activity: { maximumIntervalMs: 5_000 } }),
          ),
        );
        setTimeout(() => (storming = false), 6_000);
        const results = await Promise.all(jobs.map((handle) => handle.result()));
        return { results, attempts: await Promise.all(jobs.map(activityAttempts)) };
      });
      expect(result.results.map((r) => r.outcome)).toEqual(['done', 'done', 'done']);
      const retried = result.attempts.map((attempts) =>
        attempts.filter((a) => (a.attempt ?? 1) > 1).map((a) => a.lastFailure?.applicationFailureInfo?.type),
      );
      expect(retried[0]).toEqual([expect.stringMatching(/^(pnl_not_ready|rate_limited)$/)]);
      // The storm was met: a 429 reached Temporal's retry policy, or the client's own retries
      // (Retry-After waited out) absorbed it — which one depends on how fast the bucket refills.
      expect(retried.flat().includes('rate_limited') || lines.some((line) => line.code === 'rate_limited')).toBe(true);
      expect(lines.some((line) => line.code === 'pnl_not_ready')).toBe(true);
      await eventually(() => pnl.records.length > 0);
      const marked = venue.venue.pnl
        .history(venue.venue.demo.account.id)
        .map((b) => new Date(b.bucketAtMs).toISOString());
      expect(pnl.records).toHaveLength(1);
      expect(marked).toContain((pnl.records[0]?.payload as { bucket_at: string }).bucket_at);
    } finally {
      storming = false;
      await storm;
      await pnl.stop();
      await venue.close();
    }
  });

  it('a none-strategy error fails the job at once, without retries', async () => {
    const reader = sim.venue.createAccount('reader', 0n, ['orders:read']);
    const { result } = await withWorker('none', { token: reader.token.secret }, async (start) => {
      const handle = await start({ job: 'portfolio_summary' });
      return {
        failure: await handle.result().catch((error: unknown) => error),
        attempts: await activityAttempts(handle),
      };
    });
    expect(result.failure).toBeInstanceOf(WorkflowFailedError);
    const activity = (result.failure as WorkflowFailedError).cause;
    expect(activity).toBeInstanceOf(ActivityFailure);
    expect((activity as ActivityFailure).retryState).toBe('NON_RETRYABLE_FAILURE');
    expect((activity as ActivityFailure).cause).toBeInstanceOf(ApplicationFailure);
    expect((activity as ActivityFailure).cause).toMatchObject({ type: 'forbidden_scope', nonRetryable: true });
    expect(result.attempts.map((a) => a.attempt)).toEqual([1]);
  });

  it('tapehouse schedules backfill reads a past window of the jobs that allow it, and only that window', async () => {
    const account = sim.venue.demo.account;
    for (let i = 0; i < 8; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      sim.venue.deposit(account, 2_000_000n);
    }
    const recent = account.activities.slice(-8);
    const window = recent.slice(2, 6);
    const from = new Date(window[0]!.createdAtMs).toISOString();
    const to = new Date(window.at(-1)!.createdAtMs).toISOString();
    const activities = await readBack(services, 'activity');
    const queue = taskQueue(services, 'backfill');
    const { result } = await withWorker('backfill', {}, async () =>
      promisify(execFile)(process.execPath, [
        CLI,
        'schedules',
        'backfill',
        '--from',
        from,
        '--to',
        to,
        '--jobs',
        'activities,positions',
        '--task-queue',
        queue,
        '--temporal-address',
        TEMPORAL_ADDRESS,
        '--id-prefix',
        `${services.prefix}-`,
        '--wait',
      ]),
    );
    expect(result.stdout).toContain('skipped positions: its resource only tells the present');
    expect(result.stdout).toMatch(/started .*backfill-activities-/);
    expect(result.stdout).toContain(`activities: done, 1 pages read, ${window.length} records published`);
    await eventually(() => activities.records.length >= window.length);
    expect(activities.records.map((r) => (r.payload as { id: string }).id).sort()).toEqual(
      window.map((a) => a.id).sort(),
    );
    await activities.stop();
  });
});
