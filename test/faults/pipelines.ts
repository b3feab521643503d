import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { JOB_NAMES } from '../../src/sync/job-names.ts';
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

/**
 * Sync jobs every 10 s in both modes' schedules, so the settle window sees every job run: the jobs
 * from catalogue through pnl (those later in the list keep their own intervals).
 */
const SYNC_INTERVALS = JOB_NAMES.slice(0, JOB_NAMES.indexOf('pnl') + 1).flatMap((job) => ['--interval', `${job}=10s`]);

async function upWhen(proc: Proc, ready: () => Promise<void>): Promise<void> {
  proc.start();
  await ready();
}

/**
 * Brings a mode's processes up; when one does not come up, kills those already running before
 * rethrowing: a failed start left a loader host and a capture running for the rest of a session.
 */
async function allUp(procs: readonly Proc[], start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    await Promise.all(procs.filter((p) => p.running).map((p) => p.kill9()));
    throw error;
  }
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
  await allUp([run], () => upWhen(run, ready));
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

function services(command: 'restart' | 'stop' | 'start', service: Service, env: Record<string, string> = {}): void {
  const result = spawnSync('bash', [join(ROOT, 'scripts/services.sh'), command, service], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) throw new Error(`services.sh ${command} ${service} failed: ${result.stderr}`);
}

/** The first port of the kernel's ephemeral range: outgoing connections take their local ports from it. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port free now on 127.0.0.1, below the ephemeral range. A port from `listen(0)` is in that
 * range, so while the broker's JVM starts, or while it is down for the "Kafka away" fault, one of
 * the thousands of connections the modes open can take it as its local port: the scale-out mode
 * failed once with "Address already in use" that way.
 */
async function listenablePort(not: readonly number[] = []): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (!not.includes(port) && (await canListen(port))) return port;
  }
  throw new Error(`no free port found between 10000 and ${low}`);
}

export interface OwnKafka {
  brokers: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * A Kafka broker of the scale-out mode's own (scripts/services.sh with its own state directory
 * and ports), so that its outage does not reach the modes running at the same time.
 */
export async function startOwnKafka(work: string): Promise<OwnKafka> {
  // A listener that took a port between our check and the broker's bind: new ports, a new directory
  // (the formatted quorum names the controller's port).
  const started = async (attempt: number): Promise<Record<string, string>> => {
    const port = await listenablePort();
    const controller = await listenablePort([port]);
    const env = {
      TAPEHOUSE_SERVICES_DIR: join(work, `kafka-service-${attempt}`),
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(controller),
    };
    try {
      services('start', 'kafka', env);
      return env;
    } catch (err) {
      if (attempt === 3 || !/Address already in use/.test((err as Error).message)) throw err;
      return started(attempt + 1);
    }
  };
  const env = await started(1);
  return {
    brokers: `127.0.0.1:${env.KAFKA_PORT}`,
    stop: async () => services('stop', 'kafka', env),
    start: async () => services('start', 'kafka', env),
  };
}

/** `tapehouse capture` and `tapehouse worker` on Kafka and Temporal, with their schedules applied. */
async function startProducers(ctx: PipelineContext) {
  const bus = ['--kafka-brokers', ctx.kafkaBrokers, '--topic-prefix', ctx.runId];
  const token = { TAPEHOUSE_TOKEN: ctx.token };
  const proc = (name: Target, args: string[], env: Record<string, string> = {}) =>
    new Proc({
      name,
      args,
      cwd: ctx.work,
      env: { TAPEHOUSE_TEMPORAL_ADDRESS: ctx.temporalAddress, ...env },
      logFile: ctx.logFile,
    });
  const capture = proc(
    'capture',
    ['capture', '--base-url', ctx.venueUrl, '--coverage-file', join(ctx.work, 'coverage.json'), ...bus],
    token,
  );
  const worker = proc(
    'worker',
    [
      'worker',
      '--base-url',
      ctx.venueUrl,
      '--task-queue',
      ctx.runId,
      '--checkpoint-file',
      join(ctx.work, 'checkpoints.json'),
      ...bus,
    ],
    token,
  );
  const ready = {
    capture: async () => void (await capture.waitFor(/^capturing /m, 120_000)),
    worker: async () => void (await worker.waitFor(/^worker ready/m, 120_000)),
  };
  return {
    bus,
    proc,
    capture,
    worker,
    ready,
    async start(): Promise<void> {
      await upWhen(capture, ready.capture);
      await upWhen(worker, ready.worker);
      const apply = spawnSync(
        process.execPath,
        [
          join(ROOT, 'bin/tapehouse.js'),
          'schedules',
          'apply',
          '--task-queue',
          ctx.runId,
          '--id-prefix',
          `${ctx.runId}-`,
          '--temporal-address',
          ctx.temporalAddress,
          ...SYNC_INTERVALS,
        ],
        { cwd: ctx.work, encoding: 'utf8' },
      );
      if (apply.status !== 0) throw new Error(`schedules apply failed: ${apply.stderr}`);
    },
    /** Producers first (schedules deleted), then whatever loads drains what they published. */
    async stop(stopLoaders: () => Promise<number | null>): Promise<Record<string, number | null>> {
      await deleteSchedules(ctx);
      const codes: Record<string, number | null> = {};
      codes.capture = await capture.stop();
      codes.worker = await worker.stop();
      await sleep(5_000);
      codes.load = await stopLoaders();
      return codes;
    },
  };
}

export async function startKafkaMode(ctx: PipelineContext): Promise<Pipeline> {
  const producers = await startProducers(ctx);
  const { capture, worker } = producers;
  const load = producers.proc('load', ['load', '--data-dir', ctx.dataDir, '--http-port', '0', ...producers.bus]);
  const ready: Record<Target, () => Promise<void>> = {
    load: async () => void (await load.waitFor(/^loading \d+ topics/m, 180_000)),
    ...producers.ready,
    run: async () => undefined,
  };
  const procs = { load, capture, worker };
  await allUp([load, capture, worker], async () => {
    await upWhen(load, ready.load);
    await producers.start();
  });

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
    stop: () => producers.stop(() => load.stop()),
  };
}

/**
 * The scale-out mode: capture and worker as in the Kafka mode, and the loaders as members of one
 * group that join and leave (test/faults/loader-host.ts), around a warehouse that can be taken
 * down, restored from a backup, and a Kafka that can be away for a while.
 */
export interface ScaleOutPipeline extends Pipeline {
  /** One more loader in the group; resolves once it has joined. */
  join(): Promise<void>;
  /** The oldest loader stops cleanly and leaves the group. */
  leave(): Promise<void>;
  /** Every warehouse call refused (a server that does not answer) until `warehouse(false)`. */
  warehouse(down: boolean): Promise<void>;
  /**
   * A backup of the warehouse (loaders stopped, data directory copied), `keepMs` of loading, then
   * the loaders stopped and the backup put back: `loader_offsets` and every table as they were,
   * while Kafka still holds what was loaded since. The loaders start again with one member.
   */
  restoreFromBackup(keepMs: number): Promise<void>;
  /** Kafka stopped for `downMs`, then started on the same state. */
  kafkaOutage(downMs: number): Promise<void>;
}

/** `ctx.kafkaBrokers` is the mode's own broker (`startOwnKafka`). */
export async function startScaleOut(ctx: PipelineContext, kafka: OwnKafka): Promise<ScaleOutPipeline> {
  const producers = await startProducers(ctx);
  const host = new Proc({
    name: 'load',
    script: join(ROOT, 'test/faults/loader-host.ts'),
    args: ['--data-dir', ctx.dataDir, '--kafka-brokers', ctx.kafkaBrokers, '--topic-prefix', ctx.runId],
    // tsx is found from the project's folder.
    cwd: ROOT,
    logFile: ctx.logFile,
  });
  let control = '';
  const hostReady = async () => {
    control = (await host.waitFor(/control on (\S+)/, 180_000))[1]!;
  };
  // A loader process that died is started again, as a supervisor would (its crash is counted).
  const call = async (path: string, attempt = 1): Promise<void> => {
    if (!host.running) await upWhen(host, hostReady);
    const response = await fetch(`${control}${path}`, { method: 'POST', signal: AbortSignal.timeout(240_000) }).catch(
      (error: unknown) => error as Error,
    );
    if (response instanceof Error) {
      if (attempt >= 10) throw new Error(`loader host ${path}: ${response.message}`);
      await sleep(2_000);
      return call(path, attempt + 1);
    }
    if (response.status !== 200) throw new Error(`loader host ${path}: ${response.status} ${await response.text()}`);
  };
  await allUp([host, producers.capture, producers.worker], async () => {
    await upWhen(host, hostReady);
    await producers.start();
  });
  const backup = `${ctx.dataDir}.backup`;
  return {
    procs: [host, producers.capture, producers.worker],
    async kill() {
      throw new Error('the scale-out mode makes loaders leave, it does not kill them');
    },
    async restart(service) {
      services('restart', service);
    },
    join: () => call('/join'),
    leave: () => call('/leave'),
    warehouse: (down) => call(`/warehouse?down=${down ? 1 : 0}`),
    async restoreFromBackup(keepMs) {
      // A stop that does not end cleanly ends with SIGKILL after the grace time: the directory
      // is still whole for the copy (chDB keeps it consistent across a kill).
      if (!host.running) await upWhen(host, hostReady);
      await host.stop();
      cpSync(ctx.dataDir, backup, { recursive: true });
      await upWhen(host, hostReady);
      await sleep(keepMs);
      await host.stop();
      rmSync(ctx.dataDir, { recursive: true, force: true });
      renameSync(backup, ctx.dataDir);
      await upWhen(host, hostReady);
    },
    async kafkaOutage(downMs) {
      await kafka.stop();
      await sleep(downMs);
      await kafka.start();
    },
    stop: () =>
      producers.stop(async () => {
        if (!host.running) await upWhen(host, hostReady);
        return host.stop();
      }),
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
