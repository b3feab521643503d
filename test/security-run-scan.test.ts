import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../src/simulator/index.ts';
import { filesUnder, findSecrets, tapehouse, type Finished } from './security/scan.ts';

/**
 * The access token never shows up anywhere a full run leaves something: its stdout and stderr at
 * the most verbose log level, every file under its working and data directories, and every row of
 * every warehouse table. The run meets REST errors (5xx, 429 storms), refused and dropped stream
 * connections, malformed frames, and then the revocation of its token (401 on every read, the
 * account socket closed); a second run holds a token the venue does not know at all.
 */

const TOKEN = `pat_canary_${randomBytes(16).toString('hex')}`;
const WRONG_TOKEN = `pat_wrong_${randomBytes(16).toString('hex')}`;
/** How long the job runs once up; it is then stopped with SIGTERM, as a service manager does. */
const UP_SECONDS = 14;

const work = mkdtempSync(join(tmpdir(), 'tapehouse-security-run-'));
let sim: SimulatorHandle;
let good: Finished;
let wrong: Finished;
const goodDir = join(work, 'good');
const wrongDir = join(work, 'wrong');

function runJob(
  dir: string,
  token: string,
  options: { duration?: string; stop?: AbortSignal; onStdout?: (stdout: string) => void },
): Promise<Finished> {
  mkdirSync(dir, { recursive: true });
  const duration = options.duration ? ['--duration', options.duration] : [];
  // cwd is the job's own folder, so anything it writes relative to it is scanned too.
  return tapehouse(
    ['run', '--base-url', sim.url, '--data-dir', join(dir, 'data'), '--http-port', '0', '--status', 'log', ...duration],
    { TAPEHOUSE_TOKEN: token, TAPEHOUSE_LOG_LEVEL: 'trace' },
    { cwd: dir, timeoutMs: 120_000, stop: options.stop, onStdout: options.onStdout },
  );
}

/** Every faulty path the simulator offers that a reader meets, spread over the run once the job is up. */
function injectFaults(stop: AbortController): NodeJS.Timeout[] {
  const at = (seconds: number, act: () => void): NodeJS.Timeout => setTimeout(act, seconds * 1000);
  return [
    at(1, () => sim.faults.inject({ kind: 'rest_server_error', strategy: 'none', duration_ms: 4_000, fraction: 0.7 })),
    at(2, () => sim.faults.inject({ kind: 'malformed_frames', endpoint: 'market', variant: 'invalid_json', count: 2 })),
    at(3, () => sim.faults.inject({ kind: 'drop_connection', endpoint: 'account' })),
    at(4, () => sim.faults.inject({ kind: 'refuse_connections', endpoint: 'market', duration_ms: 3_000 })),
    at(4, () => sim.faults.inject({ kind: 'drop_connection', endpoint: 'market' })),
    at(5, () =>
      sim.faults.inject({ kind: 'rest_rate_limit_storm', duration_ms: 4_000, fraction: 0.7, retry_after_seconds: 1 }),
    ),
    at(5, () => sim.faults.inject({ kind: 'drop_connection', endpoint: 'portfolio' })),
    at(7, () => sim.faults.inject({ kind: 'error_frame', endpoint: 'market', action: 'reconnect' })),
    at(7, () => sim.faults.inject({ kind: 'malformed_frames', endpoint: 'market', variant: 'wrong_types', count: 2 })),
    // The token stops working: every authenticated read answers 401, the account socket closes.
    at(9, () => (sim.venue.demo.token.revokedAtMs = Date.now())),
    at(UP_SECONDS, () => stop.abort()),
  ];
}

/** Every string a warehouse table holds that contains the token, through `tapehouse sql` once the job has stopped. */
async function tableRowsWith(
  dataDir: string,
  secrets: readonly string[],
): Promise<{ tables: number; hits: string; orders: number }> {
  const listed = await tapehouse([
    'sql',
    '--data-dir',
    dataDir,
    '--format',
    'json',
    "SELECT name FROM system.tables WHERE database = 'tapehouse' AND engine NOT IN ('View', 'MaterializedView')",
  ]);
  if (listed.code !== 0) throw new Error(`tapehouse sql failed: ${listed.stderr}`);
  const tables = listed.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { name: string }).name);
  const conditions = secrets.map((secret) => `position(formatRow('TSV', *), '${secret}') > 0`).join(' OR ');
  const scans = tables.map(
    (table) => `SELECT '${table}' AS t, count() AS n FROM tapehouse.\`${table}\` WHERE ${conditions}`,
  );
  const query = [...scans, "SELECT 'orders stored' AS t, count() AS n FROM tapehouse.order_observations"].join(
    ' UNION ALL ',
  );
  const counted = await tapehouse(['sql', '--data-dir', dataDir, '--format', 'json', query]);
  if (counted.code !== 0) throw new Error(`tapehouse sql failed: ${counted.stderr}`);
  const counts = counted.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { t: string; n: string });
  const hits = counts.filter((row) => row.t !== 'orders stored' && row.n !== '0');
  return {
    tables: tables.length,
    hits: JSON.stringify(hits),
    orders: Number(counts.find((row) => row.t === 'orders stored')?.n),
  };
}

beforeAll(async () => {
  sim = await startSimulator({ token: TOKEN, seed: 12, rate: 40 });
  const stop = new AbortController();
  let timers: NodeJS.Timeout[] = [];
  const startFaultsOnceUp = (stdout: string): void => {
    if (timers.length === 0 && stdout.includes('tapehouse is running')) timers = injectFaults(stop);
  };
  try {
    [good, wrong] = await Promise.all([
      runJob(goodDir, TOKEN, { stop: stop.signal, onStdout: startFaultsOnceUp }),
      runJob(wrongDir, WRONG_TOKEN, { duration: '8s' }),
    ]);
  } finally {
    timers.forEach(clearTimeout);
  }
}, 150_000);

afterAll(async () => {
  await sim?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the access token in everything a full run leaves behind', () => {
  it('the scan finds a token wherever it is: in output, in a file, base64-encoded', () => {
    const canaryDir = join(work, 'canary');
    mkdirSync(join(canaryDir, 'nested'), { recursive: true });
    writeFileSync(
      join(canaryDir, 'nested', 'file.bin'),
      Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`x${TOKEN}y`)]),
    );
    const findings = findSecrets(
      [TOKEN],
      { stdout: `{"authorization":"Bearer ${TOKEN}"}`, basic: Buffer.from(TOKEN).toString('base64') },
      [canaryDir],
    );
    expect(findings.map((f) => f.where.replace(canaryDir, ''))).toEqual(['stdout', 'basic', '/nested/file.bin']);
    rmSync(canaryDir, { recursive: true });
  });

  it('the run used the token, met REST and stream errors and the revocation, and stopped cleanly on SIGTERM', () => {
    expect(good.code, good.stderr.slice(-3000)).toBe(0);
    expect(good.stdout).toMatch(/stopped cleanly\.\n$/);
    // trace level: the venue's answers are logged, failures among them.
    expect(good.stderr).toMatch(/"level":10|"level":20/);
    expect(good.stderr).toMatch(/"status":5\d\d/);
    expect(good.stderr).toMatch(/"status":429|rate_limited/);
    expect(good.stderr).toMatch(/"status":401|invalid_personal_access_token/);
    expect(good.stderr).toMatch(/stream connection attempt failed|stream coverage lost/);
  });

  it('a run with a token the venue does not know reports the refusal', () => {
    expect(wrong.stdout + wrong.stderr).toMatch(/401|invalid_personal_access_token/);
  });

  it('appears in no output, no file and no row of either run', async () => {
    const secrets = [TOKEN, WRONG_TOKEN];
    const outputs = {
      'good stdout': good.stdout,
      'good stderr': good.stderr,
      'wrong stdout': wrong.stdout,
      'wrong stderr': wrong.stderr,
    };
    expect(filesUnder(goodDir).some((file) => file.endsWith('endpoint.json') || file.includes('coverage'))).toBe(true);
    expect(findSecrets(secrets, outputs, [goodDir, wrongDir])).toEqual([]);
    const stored = await tableRowsWith(join(goodDir, 'data'), secrets);
    expect(stored.tables).toBeGreaterThan(10);
    expect(stored.hits).toBe('[]');
    // Account rows: the token was accepted before it was revoked, so there was something to leak.
    expect(stored.orders).toBeGreaterThan(0);
  }, 60_000);
});
