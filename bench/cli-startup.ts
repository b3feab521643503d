/**
 * How fast the `tapehouse` command answers (issue 37), in one run, against `node -e 0` on the same
 * machine at the same time:
 *
 * - `tapehouse --version` and `--help`: aim ≤ 2 × node + 100 ms;
 * - `tapehouse sql --data-dir D "SELECT 1"` while a job holds D (read through its endpoint):
 *   aim ≤ 3 × node + 200 ms;
 * - first queryable trade of `tapehouse run` (the spawn to the first row of `trades` the endpoint
 *   answers): aim ≤ 3 s on a quiet machine (the load average at the start is printed).
 *
 * Each command runs `--runs` times (default 5); the median counts. The compiled build is made
 * first (scripts/build.mjs) when it is missing or older than the sources, as `npm install` would.
 *
 *   npm run bench -- cli-startup [--runs 5]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 5;
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/tapehouse.js');

const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { encoding: 'utf8' });
if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`);

/** Median wall time (ms) of `node …args`, each run to its end; a non-zero exit fails the bench. */
function timed(nodeArgs: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, nodeArgs, { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (run.status !== 0) throw new Error(`node ${nodeArgs.join(' ')} exited ${run.status}: ${run.stderr}`);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** Starts the main job on a fresh data directory; resolves with its endpoint and the first trade's time. */
async function startJob(dataDir: string): Promise<{ stop: () => Promise<number | null>; firstTradeS: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [bin, 'run', '--data-dir', dataDir, '--http-port', '0', '--status', 'off'], {
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const stop = async () => {
    child.kill('SIGINT');
    return exited;
  };
  let url: string | undefined;
  while (Date.now() - started < 120_000) {
    if (child.exitCode !== null) throw new Error(`the job exited ${child.exitCode}:\n${out}`);
    url ??= /endpoint:\s+(http:\/\/\S+)/.exec(out)?.[1];
    if (url) {
      const count = await fetch(url, { method: 'POST', body: 'SELECT count() FROM tapehouse.trades' })
        .then((r) => r.text())
        .catch(() => '0');
      if (Number(count.trim()) > 0) return { stop, firstTradeS: (Date.now() - started) / 1000 };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error('no trade within 120 s');
}

const load = loadavg()[0]!.toFixed(1);
const nodeMs = timed(['-e', '0']);
const versionMs = timed([bin, '--version']);
const helpMs = timed([bin, '--help']);
const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-bench-cli-'));
try {
  const job = await startJob(dataDir);
  const sqlMs = timed([bin, 'sql', '--data-dir', dataDir, 'SELECT 1']);
  const code = await job.stop();
  const line = (name: string, ms: number, aimMs: number) =>
    `${name.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms  ${(ms / nodeMs).toFixed(2).padStart(5)} × node  aim ≤ ${aimMs.toFixed(0)} ms: ${ms <= aimMs ? 'met' : 'NOT met'}`;
  process.stdout.write(
    [
      `load average at the start ${load} (2 cores); median of ${runs} runs each`,
      `${'node -e 0'.padEnd(34)} ${nodeMs.toFixed(0).padStart(6)} ms`,
      line('tapehouse --version', versionMs, 2 * nodeMs + 100),
      line('tapehouse --help', helpMs, 2 * nodeMs + 100),
      line('tapehouse sql "SELECT 1" (job up)', sqlMs, 3 * nodeMs + 200),
      `${'first queryable trade of run'.padEnd(34)} ${job.firstTradeS.toFixed(2).padStart(6)} s   aim ≤ 3 s on a quiet machine: ${job.firstTradeS <= 3 ? 'met' : 'NOT met'}`,
      `the job's exit code after SIGINT: ${code}`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
