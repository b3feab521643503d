import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.ts';
import type { syncJobWorkflow } from '../../workflows/sync-workflows.ts';
import { KAFKA_BROKERS, TEMPORAL_ADDRESS } from './services.ts';
import { eventually, readBack, syncServices, taskQueue, type SyncServices } from './sync-helpers.ts';
import { nowMicros } from '../../src/util/clock.ts';

const CLI = fileURLToPath(new URL('../../bin/tapehouse.js', import.meta.url));
const PAGE = 10;

/** `tapehouse worker` as its own process; resolves once it says it is ready. */
async function startWorker(args: string[], token: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'worker', ...args], {
    env: { ...process.env, TAPEHOUSE_TOKEN: token, TAPEHOUSE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve());
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready: ${stderr}`)));
  });
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('a worker killed mid-page (SIGKILL) and started again', () => {
  let services: SyncServices;
  let sim: SimulatorHandle;
  const children: ChildProcess[] = [];
  const work = mkdtempSync(join(tmpdir(), 'sync-kill-'));

  beforeAll(async () => {
    services = await syncServices();
    // A fifth of the documented limits: 2 pages of activities a second, so the kill lands mid-pass.
    sim = await startSimulator({ seed: 8, rate: 0, deployment: { limits: { scale: 0.2 } } });
    for (let i = 0; i < 300; i += 1) sim.venue.deposit(sim.venue.demo.account, 1_000_000n);
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await sim.close();
    await services.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('resumes from the heartbeated cursor: every activity on the bus, no page skipped, the pass not started over', async () => {
    const queue = taskQueue(services, 'kill');
    // Both workers on one checkpoint file, as one machine's worker restarted: the second resumes
    // from the heartbeat (or the file, whichever is newer). A file of this run only.
    const checkpoints = join(work, 'checkpoints.json');
    const args = [
      '--checkpoint-file',
      checkpoints,
      '--task-queue',
      queue,
      '--temporal-address',
      TEMPORAL_ADDRESS,
      '--kafka-brokers',
      KAFKA_BROKERS.join(','),
      '--topic-prefix',
      services.prefix,
      '--base-url',
      sim.url,
      '--account',
      'demo',
      '--page-size',
      String(PAGE),
      '--read-burst',
      '20',
      '--read-refill',
      '10',
    ];
    const activities = await readBack(services, 'activity');
    const first = await startWorker(args, sim.demoToken);
    children.push(first);
    const handle = await services.client.workflow.start<typeof syncJobWorkflow>('syncJobWorkflow', {
      taskQueue: queue,
      workflowId: `${queue}-${randomUUID().slice(0, 6)}`,
      args: [{ job: 'activities', pagesPerSlice: 1_000, activity: { heartbeatTimeoutMs: 3_000 } }],
    });
    const pageOf = (record: (typeof activities.records)[number]): number => (record.source as { page: number }).page;

    await eventually(() => activities.records.some((r) => pageOf(r) >= 8), 20);
    first.kill('SIGKILL');
    await exited(first);
    const killedAtPage = Math.max(...activities.records.map(pageOf));
    const restartedAtUs = nowMicros();
    children.push(await startWorker(args, sim.demoToken));

    const result = await handle.result();
    const truth = sim.venue.demo.account.activities.map((a) => a.id).sort();
    // Pages may come shorter than asked (an interface case): at least this many.
    const pages = Math.max(Math.ceil(truth.length / PAGE), ...activities.records.map((r) => pageOf(r) + 1));
    expect(result).toMatchObject({ outcome: 'done' });
    await eventually(
      () => new Set(activities.records.map((r) => (r.payload as { id: string }).id)).size >= truth.length,
    );
    await activities.stop();

    // Exactly once by natural key: every activity, nothing else.
    expect([...new Set(activities.records.map((r) => (r.payload as { id: string }).id))].sort()).toEqual(truth);
    // No page skipped.
    expect([...new Set(activities.records.map(pageOf))].sort((a, b) => a - b)).toEqual(
      Array.from({ length: pages }, (_, i) => i),
    );
    // The second worker went on from the last heartbeat: not from the first page, and at most a few pages back.
    const resumedFrom = Math.min(...activities.records.filter((r) => r.receivedAtUs >= restartedAtUs).map(pageOf));
    expect(resumedFrom).toBeGreaterThan(0);
    expect(resumedFrom).toBeLessThanOrEqual(killedAtPage + 1);
    const history = await handle.fetchHistory();
    const started = (history.events ?? []).flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes] : [],
    );
    expect(started.map((a) => a.attempt)).toEqual([2]);
    expect(started[0]?.lastFailure?.timeoutFailureInfo).toBeTruthy();
  });
});
