import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The README's quick start, as a newcomer runs it: `npm start` (here with a throw-away data
 * directory and any free port), then the `tapehouse sql` line it prints, then Ctrl-C; a second
 * start must record the stopped interval as a gap.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-quickstart-'));
const running: ChildProcess[] = [];

/** Ctrl-C: SIGINT to the whole process group, as a terminal does. */
function interrupt(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

afterAll(() => {
  for (const child of running) interrupt(child, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  sqlLine: string;
  stdout: () => string;
  /** npm's exit: code 0, or the SIGINT it got with its child, as in a terminal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

async function npmStart(): Promise<Started> {
  const child = spawn('npm', ['start', '--silent', '--', '--data-dir', dataDir, '--http-port', '0', '--rate', '40'], {
    cwd: root,
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so Ctrl-C can be sent the way a terminal sends it: to npm and its child.
    detached: true,
  });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const sqlLine = await waitFor(
    () => /query it:\s+(npx tapehouse sql .*)$/m.exec(out)?.[1],
    () => `no query line; stdout:\n${out}\nstderr:\n${err.slice(-2000)}`,
  );
  return { child, sqlLine, stdout: () => out, exited };
}

async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  explain: () => string,
  limitMs = 90_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() - start > limitMs) throw new Error(`timed out: ${explain()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Runs the printed command with another query, the way a user edits it. */
function runPrinted(sqlLine: string, query: string): Record<string, string>[] {
  const args = sqlLine
    .replace(/^npx tapehouse /, '')
    .replace(/"SELECT count\(\) FROM trades"$/, '')
    .trim()
    .split(/\s+/);
  const result = spawnSync(process.execPath, [join(root, 'bin/tapehouse.js'), ...args, '--format', 'json', query], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`tapehouse sql failed: ${result.stderr}`);
  return result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, string>);
}

function expectCleanExit(exit: { code: number | null; signal: NodeJS.Signals | null }): void {
  expect(exit.code === 0 || exit.signal === 'SIGINT').toBe(true);
}

const COUNTS = `SELECT
  (SELECT count() FROM trades) AS trades,
  (SELECT count() FROM book_changes) AS book_changes,
  (SELECT count() FROM markets) AS markets,
  (SELECT count() FROM order_observations) AS orders,
  (SELECT count() FROM fills_latest) AS fills`;

describe('quick start: npm start, query, Ctrl-C, start again', () => {
  let firstExitAt = 0;

  it('makes trades, book changes, markets and account rows queryable through the printed command, and stops cleanly on SIGINT', async () => {
    const job = await npmStart();
    expect(job.sqlLine).toMatch(/^npx tapehouse sql --data-dir \S+ "SELECT count\(\) FROM trades"$/);
    const counts = await waitFor(
      () => {
        const [row] = runPrinted(job.sqlLine, COUNTS);
        return row && Object.values(row).every((n) => Number(n) > 0) ? row : undefined;
      },
      () => `tables still empty: ${JSON.stringify(runPrinted(job.sqlLine, COUNTS))}`,
    );
    expect(Number(counts.trades)).toBeGreaterThan(0);
    interrupt(job.child);
    const exit = await job.exited;
    firstExitAt = exit.at;
    expectCleanExit(exit);
    // The job's own last words: it flushed and stopped, it was not killed.
    expect(job.stdout()).toMatch(/stopping \(SIGINT\): flushing what was captured…\nstopped cleanly\.\n$/);
  }, 150_000);

  it('records the stopped interval as a capture gap on the next start', async () => {
    const restartAt = Date.now();
    const job = await npmStart();
    // Each stream's gap is its own record: they need not land in the same insert.
    const market = await waitFor(
      () => {
        const rows = runPrinted(
          job.sqlLine,
          "SELECT stream, toUnixTimestamp64Milli(gap_start) AS start_ms, toUnixTimestamp64Milli(gap_end) AS end_ms FROM capture_gaps WHERE reason = 'capture_not_running' AND stream = 'market'",
        );
        return rows[0];
      },
      () => 'no capture_not_running gap of the market stream recorded',
    );
    // The whole stopped interval, from the first run's exit to the restart, lies inside the gap.
    expect(Number(market!.start_ms)).toBeLessThanOrEqual(firstExitAt);
    expect(Number(market!.end_ms)).toBeGreaterThanOrEqual(restartAt);
    interrupt(job.child);
    expectCleanExit(await job.exited);
  }, 150_000);
});
