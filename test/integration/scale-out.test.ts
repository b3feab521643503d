import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRADE_KEY_SQL } from '../../src/api/trade-key.ts';
import { parsePrometheus } from '../../src/run/status-report.ts';
import { KAFKA_BROKERS, TEMPORAL_ADDRESS, requireService } from './services.ts';

/**
 * The scale-out mode: the simulator, `tapehouse capture`, `tapehouse worker` with
 * `schedules apply`, and `tapehouse load` (owning a chDB data directory) as separate processes on
 * real Kafka and Temporal — against the embedded `tapehouse run` for the same seed.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/tapehouse.js');
const run = `scaleout${Date.now()}`;
const work = mkdtempSync(join(tmpdir(), 'tapehouse-scaleout-'));
const scaleOutDir = join(work, 'scale-out');
const embeddedDir = join(work, 'embedded');
const SEED = '7';
const children: ChildProcess[] = [];
const common = ['--kafka-brokers', KAFKA_BROKERS.join(','), '--topic-prefix', run];

function start(args: string[], env: Record<string, string> = {}): { child: ChildProcess; out: () => string } {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: work,
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return { child, out: () => out };
}

/** Polls `probe` (whose failures, e.g. a table not created yet, count as "not yet"). */
async function waitFor<T>(probe: () => T | undefined, what: string | (() => string), limitMs = 120_000): Promise<T> {
  const startedAt = Date.now();
  for (;;) {
    let value: T | undefined;
    try {
      value = probe();
    } catch {
      value = undefined;
    }
    if (value !== undefined) return value;
    if (Date.now() - startedAt > limitMs)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

function sql(dataDir: string, query: string): Record<string, string>[] {
  const result = spawnSync(process.execPath, [bin, 'sql', '--data-dir', dataDir, '--format', 'json', query], {
    cwd: work,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`tapehouse sql: ${result.stderr}`);
  return result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);
}

const TABLES = [
  'trades',
  'book_changes',
  'book_snapshots',
  'quotes',
  'markets',
  'outcomes',
  'events',
  'orders',
  'fills',
  'positions',
  'portfolio_summaries',
  'activities',
];
const counts = (dataDir: string) =>
  sql(dataDir, `SELECT ${TABLES.map((t) => `(SELECT count() FROM ${t}) AS ${t}`).join(', ')}`)[0]!;
const allFilled = (row: Record<string, string>) => TABLES.every((t) => Number(row[t]) > 0);
/** The seeded catalogue, less recurring cycles (which depend on the start minute). */
const CATALOGUE =
  "SELECT event_id, slug, event_type FROM events_latest WHERE event_type != 'RECURRING_PROPOSITION' ORDER BY event_id";
/** Public fills stored twice, by their natural key (a trade of several fills is several rows). */
const DUPLICATE_TRADES = `SELECT count() - uniqExact${TRADE_KEY_SQL} AS duplicates FROM trades`;

let simUrl = '';
let demoToken = '';

beforeAll(async () => {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
  await requireService('Temporal', TEMPORAL_ADDRESS);
  const sim = start(['simulate', '--port', '0', '--seed', SEED, '--rate', '40']);
  simUrl = await waitFor(() => /simulator listening on (\S+)/.exec(sim.out())?.[1], 'the simulator');
  demoToken = await waitFor(() => /demo token .*?\): (\S+)/.exec(sim.out())?.[1], 'the demo token');
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  // Schedules of this run would go on starting workflows nobody serves.
  const connection = await Connection.connect({ address: TEMPORAL_ADDRESS });
  const client = new Client({ connection });
  for await (const schedule of client.schedule.list()) {
    if (schedule.scheduleId.startsWith(run)) await client.schedule.getHandle(schedule.scheduleId).delete();
  }
  await connection.close();
  rmSync(work, { recursive: true, force: true });
});

describe('scale-out processes on Kafka, Temporal and chDB', () => {
  it('fill the same tables as the embedded run of the same seed, with the same catalogue and no duplicate', async () => {
    const token = { TAPEHOUSE_TOKEN: demoToken };
    const load = start(['load', '--data-dir', scaleOutDir, '--http-port', '0', '--metrics-port', '0', ...common]);
    // Only once the loader owns the directory (it publishes its endpoint) may anyone else look in.
    await waitFor(
      () => (existsSync(join(scaleOutDir, 'endpoint.json')) ? true : undefined),
      () => `the loader's endpoint: ${load.out()}`,
    );
    const capture = start(
      [
        'capture',
        '--base-url',
        simUrl,
        '--coverage-file',
        join(work, 'coverage.json'),
        '--metrics-port',
        '0',
        ...common,
      ],
      token,
    );
    const worker = start(
      [
        'worker',
        '--base-url',
        simUrl,
        '--task-queue',
        run,
        '--checkpoint-file',
        join(work, 'checkpoints.json'),
        '--metrics-port',
        '0',
        ...common,
      ],
      token,
    );
    const intervals = ['catalogue', 'portfolio_summary', 'positions', 'orders', 'order_trades', 'activities'].flatMap(
      (job) => ['--interval', `${job}=5s`],
    );
    const apply = spawnSync(
      process.execPath,
      [bin, 'schedules', 'apply', '--task-queue', run, '--id-prefix', `${run}-`, ...intervals],
      {
        cwd: work,
        encoding: 'utf8',
      },
    );
    expect(apply.status, apply.stderr).toBe(0);

    const scaleOut = await waitFor(
      () => {
        const row = counts(scaleOutDir);
        return allFilled(row) ? row : undefined;
      },
      () => `every table filled by the scale-out processes: ${JSON.stringify(counts(scaleOutDir))}`,
    );

    const embedded = start([
      'run',
      '--data-dir',
      embeddedDir,
      '--seed',
      SEED,
      '--rate',
      '40',
      '--http-port',
      '0',
      '--status',
      'off',
    ]);
    await waitFor(() => (/query it:/.test(embedded.out()) ? true : undefined), 'the embedded run');
    const embeddedCounts = await waitFor(
      () => {
        const row = counts(embeddedDir);
        return allFilled(row) ? row : undefined;
      },
      () => `every table filled by the embedded run: ${JSON.stringify(counts(embeddedDir))}`,
    );

    expect(Object.keys(scaleOut)).toEqual(Object.keys(embeddedCounts));
    expect(sql(scaleOutDir, CATALOGUE)).toEqual(sql(embeddedDir, CATALOGUE));
    expect(sql(scaleOutDir, CATALOGUE).length).toBeGreaterThan(10);
    expect(sql(scaleOutDir, DUPLICATE_TRADES)).toEqual([{ duplicates: '0' }]);
    expect(sql(embeddedDir, DUPLICATE_TRADES)).toEqual([{ duplicates: '0' }]);

    // Every scale-out process serves its own /metrics: what Prometheus scrapes in docker-compose.yml.
    const scrape = async (out: () => string, what: string) => {
      const url = await waitFor(() => /metrics at (\S+)/.exec(out())?.[1], `${what}'s metrics URL`);
      return parsePrometheus(await (await fetch(url)).text());
    };
    const value = (samples: ReturnType<typeof parsePrometheus>, name: string, labels: Record<string, string> = {}) =>
      samples
        .filter((m) => m.name === name && Object.entries(labels).every(([k, v]) => m.labels[k] === v))
        .reduce((sum, m) => sum + m.value, 0);
    const captured = await scrape(capture.out, 'capture');
    for (const stream of ['market', 'account', 'portfolio'])
      expect(value(captured, 'tapehouse_frames_total', { stream }), stream).toBeGreaterThan(0);
    expect(captured.some((m) => m.name === 'tapehouse_rows_loaded_total')).toBe(false);
    const loaded = await scrape(load.out, 'load');
    expect(value(loaded, 'tapehouse_rows_loaded_total', { table: 'trades' })).toBeGreaterThan(0);
    expect(value(loaded, 'tapehouse_freshness_seconds_count')).toBeGreaterThan(0);
    expect(value(loaded, 'tapehouse_insert_duration_seconds_count')).toBeGreaterThan(0);
    expect(value(loaded, 'tapehouse_endpoint_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    const synced = await scrape(worker.out, 'worker');
    expect(value(synced, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(synced.some((m) => m.name === 'tapehouse_freshness_seconds_count')).toBe(false);
  }, 400_000);
});
