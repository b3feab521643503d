import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Proc, ROOT, sleep } from './procs.ts';
import type { Service, Target } from './fault-plan.ts';

/**
 * The pipeline in its two modes, as separate processes against one simulator process:
 * - embedded: one `tapehouse run --base-url` (capture, sync scheduler, in-process bus, loaders and
 *   chDB in one process), so a SIGKILL takes all of them at once;
 * - kafka: `tapehouse capture`, `tapehouse load` (owning the chDB directory) and `tapehouse worker`
 *   on real Kafka and Temporal, with `tapehouse schedules apply`.
 */

export interface PipelineContext {
  work: string;
  dataDir: string;
  venueUrl: string;
  token: string;
  logFile: string;
  /** Kafka topic prefix and Temporal task queue of this run (kafka mode). */
  runId: string;
  kafkaBrokers: string;
  temporalAddress: string;
}

export interface Pipeline {
  readonly procs: readonly Proc[];
  /** SIGKILL, stay down `downMs`, start again and wait until it is up. */
  kill(target: Target, downMs: number): Promise<void>;
  restart(service: Service): Promise<void>;
  /** A clean stop of every process (SIGTERM), in the order that loses nothing. Returns exit codes. */
  stop(): Promise<Record<string, number | null>>;
}

/** Sync jobs every 10 s in both modes' schedules, so the settle window sees every job run. */
const SYNC_INTERVALS = ['catalogue', 'portfolio_summary', 'positions', 'open_orders', 'orders', 'order_trades', 'portfolio_trades', 'activities', 'pnl'].flatMap((job) => ['--interval', `${job}=10s`]);

async function upWhen(proc: Proc, ready: () => Promise<void>): Promise<void> {
  proc.start();
  await ready();
}

export async function startEmbedded(ctx: PipelineContext): Promise<Pipeline> {
  const run = new Proc({
    name: 'run',
    args: ['run', '--base-url', ctx.venueUrl, '--data-dir', ctx.dataDir, '--http-port', '0', '--status', 'off'],
    cwd: ctx.work,
    env: { TAPEHOUSE_TOKEN: ctx.token },
    logFile: ctx.logFile,
  });
  const ready = async () => void (await run.waitFor(/query it:/, 180_000));
  await upWhen(run, ready);
  return {
    procs: [run],
    async kill(_target, downMs) {
      await run.kill9();
      await sleep(downMs);
      await upWhen(run, ready);
    },
    async restart(service) {
      throw new Error(`the embedded mode uses no ${service}`);
    },
    async stop() {
      return { run: await run.stop() };
    },
  };
}

function services(command: string, service: Service): void {
  const result = spawnSync('bash', [join(ROOT, 'scripts/services.sh'), command, service], { encoding: 'utf8', env: process.env });
  if (result.status !== 0) throw new Error(`services.sh ${command} ${service} failed: ${result.stderr}`);
}

export async function startKafkaMode(ctx: PipelineContext): Promise<Pipeline> {
  const bus = ['--kafka-brokers', ctx.kafkaBrokers, '--topic-prefix', ctx.runId];
  const token = { TAPEHOUSE_TOKEN: ctx.token };
  const proc = (name: Target, args: string[], env: Record<string, string> = {}) => new Proc({ name, args, cwd: ctx.work, env: { TAPEHOUSE_TEMPORAL_ADDRESS: ctx.temporalAddress, ...env }, logFile: ctx.logFile });
  const load = proc('load', ['load', '--data-dir', ctx.dataDir, '--http-port', '0', ...bus]);
  const capture = proc('capture', ['capture', '--base-url', ctx.venueUrl, '--coverage-file', join(ctx.work, 'coverage.json'), ...bus], token);
  const worker = proc('worker', ['worker', '--base-url', ctx.venueUrl, '--task-queue', ctx.runId, '--checkpoint-file', join(ctx.work, 'checkpoints.json'), ...bus], token);
  const ready: Record<Target, () => Promise<void>> = {
    load: async () => void (await load.waitFor(/^loading \d+ topics/m, 180_000)),
    capture: async () => void (await capture.waitFor(/^capturing /m, 120_000)),
    worker: async () => void (await worker.waitFor(/^worker ready/m, 120_000)),
    run: async () => undefined,
  };
  const procs = { load, capture, worker };
  await upWhen(load, ready.load);
  await upWhen(capture, ready.capture);
  await upWhen(worker, ready.worker);
  const apply = spawnSync(process.execPath, [join(ROOT, 'bin/tapehouse.js'), 'schedules', 'apply', '--task-queue', ctx.runId, '--id-prefix', `${ctx.runId}-`, '--temporal-address', ctx.temporalAddress, ...SYNC_INTERVALS], { cwd: ctx.work, encoding: 'utf8' });
  if (apply.status !== 0) throw new Error(`schedules apply failed: ${apply.stderr}`);

  return {
    procs: [load, capture, worker],
    async kill(target, downMs) {
      const p = procs[target as keyof typeof procs];
      await p.kill9();
      await sleep(downMs);
      await upWhen(p, ready[target]);
    },
    async restart(service) {
      services('restart', service);
    },
    async stop() {
      await deleteSchedules(ctx);
      // Producers first, then the loader drains what they published.
      const codes: Record<string, number | null> = {};
      codes.capture = await capture.stop();
      codes.worker = await worker.stop();
      await sleep(5_000);
      codes.load = await load.stop();
      return codes;
    },
  };
}

async function deleteSchedules(ctx: PipelineContext): Promise<void> {
  const connection = await Connection.connect({ address: ctx.temporalAddress });
  try {
    const client = new Client({ connection });
    for await (const schedule of client.schedule.list()) {
      if (schedule.scheduleId.startsWith(ctx.runId)) await client.schedule.getHandle(schedule.scheduleId).delete();
    }
  } finally {
    await connection.close();
  }
}
