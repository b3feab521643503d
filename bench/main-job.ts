/**
 * The main job as a user meets it: `tapehouse run` in a child process on a fresh data directory.
 * Prints seconds from start to the first queryable trade, freshness (venue trade time → row
 * queryable through the endpoint) p50/p99, and the process's RSS at the end, for each rate asked.
 *
 *   npx tsx bench/main-job.ts [--seconds 60] [--rates 20,200]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@clickhouse/client';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const seconds = Number(option('seconds', '60'));
const rates = option('rates', '20,200').split(',').map(Number);
const root = fileURLToPath(new URL('..', import.meta.url));

for (const rate of rates) await measure(rate);

async function measure(rate: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-bench-run-'));
  const started = Date.now();
  const child = spawn(process.execPath, [join(root, 'bin/tapehouse.js'), 'run', '--data-dir', dataDir, '--http-port', '0', '--rate', String(rate), '--status', 'off'], {
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await until(() => /endpoint:\s+(http:\/\/\S+)/.exec(out)?.[1]);
  const client = createClient({ url, clickhouse_settings: { output_format_json_quote_64bit_integers: 1 } });
  let firstTradeS: number | null = null;
  let lastSeenMs = 0;
  const freshness: number[] = [];
  let peakRssKb = 0;
  const deadline = started + seconds * 1000;
  while (Date.now() < deadline) {
    const polledAt = Date.now();
    const result = await client
      .query({
        query: `SELECT toUnixTimestamp64Milli(executed_at) AS t FROM tapehouse.trades WHERE executed_at > fromUnixTimestamp64Milli(${lastSeenMs}) ORDER BY t`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ t: string }>())
      .catch(() => []);
    const seenAt = Date.now();
    for (const { t } of result) {
      const venueMs = Number(t);
      // The row became queryable between the previous poll and this one: count it at this poll's midpoint.
      freshness.push((polledAt + seenAt) / 2 - venueMs);
      lastSeenMs = Math.max(lastSeenMs, venueMs);
    }
    if (firstTradeS === null && result.length > 0) firstTradeS = (seenAt - started) / 1000;
    peakRssKb = Math.max(peakRssKb, rssKb(child.pid!));
    await new Promise((r) => setTimeout(r, 200));
  }
  const endRssKb = rssKb(child.pid!);
  await client.close();
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  freshness.sort((a, b) => a - b);
  const pct = (p: number) => (freshness.length ? Math.round(freshness[Math.min(freshness.length - 1, Math.floor(p * freshness.length))]!) : NaN);
  console.log(
    `rate ${rate} book changes/s, ${seconds} s: first queryable trade after ${firstTradeS?.toFixed(1)} s; ` +
      `freshness over ${freshness.length} trades p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms (poll every 200 ms); ` +
      `RSS at end ${Math.round(endRssKb / 1024)} MiB (peak ${Math.round(peakRssKb / 1024)} MiB)`,
  );
}

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the main job did not print its endpoint within 60 s');
}
