import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { END_OF_TIME_MS, reconcile } from '../src/reconcile/reconcile.ts';
import { SIMULATOR_VENUE_RULES } from '../src/reconcile/venue-rules.ts';
import { alive } from '../src/util/file-lock.ts';
import { findConflicts, NATURAL_KEYS } from '../src/warehouse/identity-conflicts.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';

/**
 * DESIGN.md: "a restart of `npm start` restarts the pipeline, not the venue, and two venue entities
 * are never merged silently". `tapehouse run` on one data directory: started, stopped (Ctrl-C),
 * started again, killed (SIGKILL), started again — the built-in venue goes on through all of it,
 * and the warehouse holds no id that names two things.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'run-venue-restarts-'));
const stateFile = join(dataDir, 'venue', 'state.json');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  out: () => string;
  endpoint: string;
  exited: Promise<number | null>;
}

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, ms = 90_000): Promise<T> {
  for (const end = Date.now() + ms; ;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function start(): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['bin/tapehouse.js', 'run', '--data-dir', dataDir, '--http-port', '0', '--status', 'off', '--rate', '40'],
    {
      env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = await until(() => /endpoint:\s+(http:\/\/\S+)/.exec(out)?.[1], 'the endpoint line');
  return { child, out: () => out, endpoint, exited };
}

async function count(run: Run, sql: string): Promise<number> {
  const res = await fetch(`${run.endpoint}/?query=${encodeURIComponent(`${sql} FORMAT TSV`)}`).catch(() => undefined);
  return res?.ok ? Number((await res.text()).trim()) : 0;
}

/** Trades and the demo account's fills stored by this run, beyond what earlier runs stored. */
async function tradeSome(run: Run, trades: number): Promise<void> {
  const had = await count(run, 'SELECT count() FROM tapehouse.trades');
  await until(
    async () => ((await count(run, 'SELECT count() FROM tapehouse.trades')) >= had + trades ? true : undefined),
    `${trades} more trades`,
  );
}

describe('tapehouse run, restarted twice and killed once, on one data directory', () => {
  it('goes on with one venue: the same world resumed each time, no id naming two things, the reconciliation consistent', async () => {
    const runs: Run[] = [];
    try {
      runs.push(await start());
      expect(runs[0]!.out()).toMatch(/built-in simulator, a new world saved in/);
      await tradeSome(runs[0]!, 15);
      runs[0]!.child.kill('SIGINT');
      expect(await runs[0]!.exited).toBe(0);

      runs.push(await start());
      expect(runs[1]!.out()).toMatch(/built-in simulator, resumed from/);
      await tradeSome(runs[1]!, 15);
      // Killed: no flush, no stop. Its venue process sees the job gone, saves and ends.
      const venuePid = Number(readFileSync(`${stateFile}.lock`, 'utf8'));
      runs[1]!.child.kill('SIGKILL');
      await runs[1]!.exited;
      await until(() => (alive(venuePid) ? undefined : true), 'the venue process to end');

      runs.push(await start());
      expect(runs[2]!.out()).toMatch(/built-in simulator, resumed from/);
      await tradeSome(runs[2]!, 15);
      runs[2]!.child.kill('SIGINT');
      expect(await runs[2]!.exited).toBe(0);
    } finally {
      for (const run of runs)
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }

    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { generation: number; clean: boolean };
    expect([saved.generation, saved.clean]).toEqual([2, true]);
    expect(existsSync(`${stateFile}.lock`)).toBe(false);
    const warehouse = await openEmbeddedWarehouse(dataDir);
    try {
      const rows = async (sql: string) =>
        (await warehouse.client.query({ query: sql, format: 'JSONEachRow' })).json<Record<string, string>>();
      const [trades] = await rows('SELECT count() AS n, uniqExact(trade_id, fill_id) AS ids FROM tapehouse.trades');
      expect(Number(trades!.n)).toBeGreaterThanOrEqual(45);
      expect(trades!.ids).toBe(trades!.n);
      for (const spec of NATURAL_KEYS) expect(await findConflicts(warehouse.client, spec)).toEqual([]);
      expect(await rows("SELECT detail FROM tapehouse.data_quality WHERE problem = 'identity_conflict'")).toEqual([]);
      const run = await reconcile(warehouse.client, {
        method: 'average',
        toleranceMicro: 0n,
        rules: SIMULATOR_VENUE_RULES,
        fromMs: 0,
        toMs: END_OF_TIME_MS,
      });
      const different = run.accounts.flatMap((a) =>
        a.rows.filter((r) => r.status === 'different').map((r) => `${a.account} ${r.scope} ${r.field}: ${r.detail}`),
      );
      expect(different).toEqual([]);
      expect(run.accounts.flatMap((a) => a.rows).filter((r) => r.status === 'ok').length).toBeGreaterThan(0);
    } finally {
      await warehouse.close();
    }
  }, 240_000);
});
