import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES, SYNC_JOBS } from '../../src/sync/jobs.ts';
import { applySchedules, listSchedules } from '../../workflows/schedules.ts';
import { TEMPORAL_ADDRESS } from './services.ts';
import { eventually, syncServices, type SyncServices } from './sync-helpers.ts';

const CLI = fileURLToPath(new URL('../../bin/tapehouse.js', import.meta.url));

describe('Temporal Schedules of the sync jobs (real dev server)', () => {
  let services: SyncServices;
  let idPrefix: string;

  beforeAll(async () => {
    services = await syncServices();
    idPrefix = `${services.prefix}-`;
  });

  afterAll(async () => {
    for (const prefix of [idPrefix, `${idPrefix}cli-`, `${idPrefix}late-`]) {
      for (const job of JOB_NAMES)
        await services.client.schedule
          .getHandle(`${prefix}${job}`)
          .delete()
          .catch(() => undefined);
    }
    await services.close();
  });

  it('applied twice, leaves one schedule per job with its interval and overlap skip', async () => {
    const settings = { taskQueue: `${services.prefix}-queue`, jobs: JOB_NAMES, idPrefix, paused: true };
    const first = await applySchedules(services.client, settings);
    expect(first.map((s) => s.action)).toEqual(JOB_NAMES.map(() => 'created'));
    const second = await applySchedules(services.client, { ...settings, intervals: { positions: 15_000 } });
    expect(second.map((s) => s.action)).toEqual(JOB_NAMES.map(() => 'updated'));

    const expected = JOB_NAMES.map((job) => `${idPrefix}${job}`).sort();
    await eventually(async () => (await listSchedules(services.client, idPrefix)).join() === expected.join(), 250);
    expect(await listSchedules(services.client, idPrefix)).toEqual(expected);
    for (const job of JOB_NAMES) {
      const described = await services.client.schedule.getHandle(`${idPrefix}${job}`).describe();
      const everyMs = job === 'positions' ? 15_000 : SYNC_JOBS[job].intervalMs;
      expect(described.spec.intervals?.map((i) => i.every)).toEqual([everyMs]);
      expect(described.policies.overlap).toBe('SKIP');
      expect(described.action).toMatchObject({
        workflowType: 'syncJobWorkflow',
        taskQueue: settings.taskQueue,
        args: [{ job }],
      });
      expect(described.state.paused).toBe(true);
    }
  });

  it('tapehouse schedules apply: created, then updated, with the interval asked for', async () => {
    const apply = () =>
      promisify(execFile)(process.execPath, [
        CLI,
        'schedules',
        'apply',
        '--jobs',
        'positions,pnl',
        '--interval',
        'positions=15s',
        '--paused',
        '--id-prefix',
        `${idPrefix}cli-`,
        '--temporal-address',
        TEMPORAL_ADDRESS,
      ]);
    expect((await apply()).stdout).toBe(
      `created ${idPrefix}cli-positions every 15s (overlap skip), paused\ncreated ${idPrefix}cli-pnl every 30s (overlap skip), paused\n`,
    );
    expect((await apply()).stdout).toBe(
      `updated ${idPrefix}cli-positions every 15s (overlap skip), paused\nupdated ${idPrefix}cli-pnl every 30s (overlap skip), paused\n`,
    );
  });

  it('applied again, keeps the pause an operator set, jitters every job, and deletes the schedule of a job that no longer exists', async () => {
    const prefix = `${idPrefix}keep-`;
    const settings = { taskQueue: `${services.prefix}-queue`, jobs: ['positions', 'pnl'] as const, idPrefix: prefix };
    await applySchedules(services.client, settings);
    await services.client.schedule.getHandle(`${prefix}pnl`).pause('operator: venue maintenance');
    // A job an earlier version had.
    await services.client.schedule.create({
      scheduleId: `${prefix}old_job`,
      spec: { intervals: [{ every: 60_000 }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'syncJobWorkflow',
        taskQueue: settings.taskQueue,
        args: [{ job: 'old_job' }],
      },
      state: { paused: true },
    });
    await eventually(async () => (await listSchedules(services.client, prefix)).includes(`${prefix}old_job`), 250);
    const again = await applySchedules(services.client, settings);
    expect(again.map(({ scheduleId, action, paused }) => ({ scheduleId, action, paused }))).toEqual([
      { scheduleId: `${prefix}old_job`, action: 'deleted', paused: false },
      { scheduleId: `${prefix}positions`, action: 'updated', paused: false },
      { scheduleId: `${prefix}pnl`, action: 'updated', paused: true },
    ]);
    expect((await services.client.schedule.getHandle(`${prefix}pnl`).describe()).state.paused).toBe(true);
    expect((await services.client.schedule.getHandle(`${prefix}positions`).describe()).spec.jitter).toBe(6_000);
    await eventually(async () => !(await listSchedules(services.client, prefix)).includes(`${prefix}old_job`), 250);
    for (const job of settings.jobs) await services.client.schedule.getHandle(`${prefix}${job}`).delete();
  });

  it('tapehouse schedules apply started before Temporal listens waits for it, saying so, then applies', async () => {
    // A proxy to the real server on a port that opens only after a few seconds, as on a first
    // `docker compose up` where `schedules` starts before Temporal's schema is set up.
    const [host, port] = [
      TEMPORAL_ADDRESS.slice(0, TEMPORAL_ADDRESS.lastIndexOf(':')),
      Number(TEMPORAL_ADDRESS.slice(TEMPORAL_ADDRESS.lastIndexOf(':') + 1)),
    ];
    const proxy: Server = createServer((client) => {
      const upstream = connect({ host, port });
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    const late = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    // The port opens once the CLI said it is waiting (not after a fixed delay: on a busy machine the
    // CLI's own start can outlast any delay, and then it never has to wait).
    const child = spawn(
      process.execPath,
      [
        CLI,
        'schedules',
        'apply',
        '--jobs',
        'pnl',
        '--paused',
        '--id-prefix',
        `${idPrefix}late-`,
        '--temporal-address',
        `127.0.0.1:${late}`,
        '--wait-for-temporal',
        '60s',
      ],
      { env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'info' } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('Temporal not answering yet') && !proxy.listening) proxy.listen(late, '127.0.0.1');
    });
    try {
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code, stderr).toBe(0);
      expect(stdout).toBe(`created ${idPrefix}late-pnl every 30s (overlap skip), paused\n`);
      expect(stderr).toContain('Temporal not answering yet; trying again');
      expect(stderr).toContain('Temporal answers');
    } finally {
      child.kill();
      proxy.close();
    }
  });
});
