/**
 * The embedded default's disk use against what it stores: `tapehouse run` on a fresh data
 * directory, and every minute the directory's size on disk (what `du` says: allocated blocks of
 * every file under it) next to the bytes of the active parts (system.parts, active: the data one
 * copy of which is needed). Ratio = directory ÷ active parts; the aim is ≤ 2. Outdated parts are
 * the merged-away copies waiting for cleanup.
 *
 *   npm run bench -- disk                         10 minutes
 *   TAPEHOUSE_BENCH_MINUTES=3 npm run bench -- disk
 *   TAPEHOUSE_BENCH_BIN=/other/checkout/bin/tapehouse.js npm run bench -- disk   (before/after)
 */
import { spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEndpointFile } from '../src/warehouse/embedded/endpoint-file.ts';

const minutes = Number(process.env.TAPEHOUSE_BENCH_MINUTES ?? 10);
const bin = process.env.TAPEHOUSE_BENCH_BIN ?? fileURLToPath(new URL('../bin/tapehouse.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'bench-disk-'));

/** Bytes under `dir`: allocated (st_blocks × 512, as du counts) and apparent (file sizes, as du --apparent-size). */
function sizes(dir: string, into = { allocated: 0, apparent: 0 }): { allocated: number; apparent: number } {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    try {
      const stat = lstatSync(path);
      into.allocated += stat.blocks * 512;
      if (entry.isDirectory()) sizes(path, into);
      else into.apparent += stat.size;
    } catch {
      // removed meanwhile (a part cleaned up, a temporary insert file)
    }
  }
  return into;
}

async function parts(
  url: string,
): Promise<{ active: number; activeParts: number; outdated: number; outdatedBytes: number }> {
  const query =
    'SELECT sumIf(bytes_on_disk, active = 1) AS active_bytes, countIf(active = 1) AS active_parts, countIf(active = 0) AS outdated_parts, sumIf(bytes_on_disk, active = 0) AS outdated_bytes FROM system.parts FORMAT JSONEachRow';
  const response = await fetch(`${url}/?query=${encodeURIComponent(query)}`);
  const row = JSON.parse(await response.text()) as Record<string, string>;
  return {
    active: Number(row.active_bytes),
    activeParts: Number(row.active_parts),
    outdated: Number(row.outdated_parts),
    outdatedBytes: Number(row.outdated_bytes),
  };
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const job = spawn(process.execPath, [bin, 'run', '--data-dir', dataDir, '--http-port', '0', '--status', 'off'], {
  env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'error' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  let endpoint = readEndpointFile(dataDir);
  while (!endpoint) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    endpoint = readEndpointFile(dataDir);
  }
  const started = Date.now();
  process.stdout.write(`tapehouse run (${bin}) on ${dataDir}, sampled every minute for ${minutes} minutes\n`);
  process.stdout.write(
    'minute | data dir MiB (apparent) | active parts MiB (parts) | outdated parts (MiB) | data dir ÷ active (apparent ÷ active)\n',
  );
  let worst = 0;
  let worstApparent = 0;
  for (let minute = 1; minute <= minutes; minute++) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + minute * 60_000 - Date.now())));
    const sample = await parts(endpoint.url);
    const size = sizes(dataDir);
    const ratio = size.allocated / Math.max(1, sample.active);
    const apparent = size.apparent / Math.max(1, sample.active);
    worst = Math.max(worst, ratio);
    worstApparent = Math.max(worstApparent, apparent);
    process.stdout.write(
      `${String(minute).padStart(6)} | ${`${mib(size.allocated)} (${mib(size.apparent)})`.padStart(23)} | ${`${mib(sample.active)} (${sample.activeParts})`.padStart(24)} | ${`${sample.outdated} (${mib(sample.outdatedBytes)})`.padStart(20)} | ${ratio.toFixed(2)} (${apparent.toFixed(2)})\n`,
    );
  }
  process.stdout.write(
    `worst ratio over the run: ${worst.toFixed(2)} on disk, ${worstApparent.toFixed(2)} apparent (data dir ÷ active parts; aim ≤ 2)\n`,
  );
} finally {
  job.kill('SIGINT');
  await new Promise((resolve) => job.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
