import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMainJob } from '../src/run/main-job.ts';
import { createLogger } from '../src/util/log.ts';
import { parsePrometheus } from '../src/run/status-report.ts';
import { chdbPathOf } from '../src/warehouse/embedded/data-dir.ts';
import { loadChdb } from '../src/warehouse/embedded/chdb-library.ts';

/**
 * A loader that cannot insert is visible: a table the job writes disappears under it (here dropped
 * through a second session of this process; before, `tapehouse sql` could do it). The status line
 * and /metrics say so while it lasts, and the stop names the records left unloaded instead of
 * "stopped cleanly".
 */
const dataDir = mkdtempSync(join(tmpdir(), 'run-loader-failing-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the main job with a table gone under its loaders', () => {
  it('shows LOADER FAILING on the status line and /metrics, and stops not cleanly, naming what stayed unloaded', async () => {
    const lines: string[] = [];
    const job = await startMainJob({
      account: 'default',
      dataDir,
      httpPort: 0,
      simulator: { seed: 3, rate: 40 },
      onStatus: (line) => lines.push(line),
      stopTimeoutMs: 3_000,
      log: createLogger('run', 'silent'),
    });
    try {
      const { createChdbConnection } = (await loadChdb()).connection;
      const session = createChdbConnection({ path: chdbPathOf(dataDir) });
      await session.command({ query: 'DROP TABLE tapehouse.book_changes' });
      await session.close();
      const failing = () => lines.find((line) => /^LOADER FAILING since \d\d:\d\d:\d\d UTC: .*book_changes/.test(line));
      for (let waited = 0; !failing() && waited < 60_000; waited += 250)
        await new Promise((resolve) => setTimeout(resolve, 250));
      expect(failing()).toBeDefined();
      const metrics = parsePrometheus(await (await fetch(`${job.httpUrl}/metrics`)).text());
      const gauge = metrics.find((m) => m.name === 'tapehouse_loader_failing_since_seconds');
      expect(gauge?.value).toBeGreaterThan(Date.UTC(2026, 0, 1) / 1000);
      expect(gauge?.labels.reason).toMatch(/book_changes/);
    } finally {
      const report = await job.stop();
      expect(report.clean).toBe(false);
      expect(report.problems.join('\n')).toMatch(
        /^\d+ records stayed unloaded \(.*book_changes.*\); the next start records them as a gap$/m,
      );
    }
  }, 120_000);
});
