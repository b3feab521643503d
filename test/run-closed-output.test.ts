import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readEndpointFile } from '../src/warehouse/embedded/endpoint-file.ts';

/**
 * Stopping is safe whatever stdout is: `tapehouse run | head -n 1` (the reader exits while the job
 * runs, so every later write meets a closed pipe), then Ctrl-C; and a terminal that goes away
 * (SIGHUP, twice). Each time the job must flush what it holds and exit 0, its bus drained.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'run-closed-output-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function until<T>(probe: () => T | undefined, explain: () => string, limitMs = 90_000): Promise<T> {
  for (const start = Date.now(); ;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - start > limitMs) throw new Error(`timed out: ${explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function sql(dataDir: string, query: string): Record<string, string>[] {
  const result = spawnSync(
    process.execPath,
    [join(root, 'bin/tapehouse.js'), 'sql', '--data-dir', dataDir, '--format', 'json', query],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`tapehouse sql failed: ${result.stderr}`);
  return result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, string>);
}

/** The run's bus epoch ended drained (the next start records no bus gap), with rows stored. */
function expectDrained(dataDir: string): void {
  const [epoch] = sql(
    dataDir,
    "SELECT bus_epoch, countIf(state = 'drained') AS drained FROM tapehouse.bus_coverage GROUP BY bus_epoch",
  );
  expect(epoch?.drained).toBe('1');
  const [rows] = sql(
    dataDir,
    'SELECT (SELECT count() FROM tapehouse.book_changes) AS book_changes, (SELECT count() FROM tapehouse.markets) AS markets',
  );
  expect(Number(rows!.book_changes)).toBeGreaterThan(0);
  expect(Number(rows!.markets)).toBeGreaterThan(0);
}

describe('tapehouse run with its output closed under it', () => {
  it('piped into a reader that exits, then Ctrl-C: flushes, leaves no bus gap, exits 0', async () => {
    const dataDir = join(work, 'pipe');
    const first = join(work, 'first-line');
    const status = join(work, 'job-exit-code');
    // A real pipeline: head exits after the first line; the job's later writes (status lines every
    // 10 s, its last words) meet EPIPE. PIPESTATUS keeps the job's own exit code.
    const shell = spawn(
      'bash',
      [
        '-c',
        `node bin/tapehouse.js run --data-dir ${dataDir} --http-port 0 --status log 2>${join(work, 'pipe.log')} | head -n 1 >${first}; echo "\${PIPESTATUS[0]}" >${status}`,
      ],
      { cwd: root, env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' }, stdio: 'ignore' },
    );
    const job = await until(
      () => readEndpointFile(dataDir),
      () => 'the job never served its endpoint',
    );
    const stopJob = () => spawnSync('kill', ['-KILL', String(job.pid)]); // after a failed check only
    try {
      expect(
        await until(
          () => (existsSync(first) ? readFileSync(first, 'utf8') : undefined) || undefined,
          () => 'head got no line',
        ),
      ).toMatch(/^tapehouse is running/);
      // Past the first status line (10 s after the start): written to a pipe nobody reads any more.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, Date.parse(job.started_at) + 12_000 - Date.now())),
      );
      expect(spawnSync('kill', ['-0', String(job.pid)]).status).toBe(0); // still running
      process.kill(job.pid, 'SIGINT');
      await new Promise((resolve) => shell.once('exit', resolve));
      expect(readFileSync(status, 'utf8').trim()).toBe('0');
    } finally {
      if (!existsSync(status)) stopJob();
    }
    expect(readFileSync(join(work, 'pipe.log'), 'utf8')).not.toMatch(/EPIPE|uncaught|segmentation/i);
    expectDrained(dataDir);
  }, 150_000);

  it('on SIGHUP (the terminal went away), stops as on Ctrl-C; a second SIGHUP does not cut the flush', async () => {
    const dataDir = join(work, 'hangup');
    const child = spawn(
      process.execPath,
      ['bin/tapehouse.js', 'run', '--data-dir', dataDir, '--http-port', '0', '--status', 'off'],
      {
        cwd: root,
        env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(
        () => (/Ctrl-C to stop/.test(out) ? true : undefined),
        () => `no welcome: ${out}`,
      );
      // Some data first: the markets come with the first catalogue sync.
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      child.kill('SIGHUP');
      await until(
        () => (/stopping \(SIGHUP\)/.test(out) ? true : undefined),
        () => out,
      );
      child.kill('SIGHUP');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL'); // after a failed check only
    }
    expect(out).toMatch(/stopped cleanly\.\n$/);
    expectDrained(dataDir);
  }, 150_000);
});
