import type { Command } from 'commander';
import { liveStatus, storedStatus } from '../../run/status-report.ts';
import { liveEndpoint } from '../../warehouse/embedded/index.ts';
import { openQueryRunner } from '../../warehouse/query-access.ts';
import { resolveTarget } from '../../warehouse/target.ts';

/** `tapehouse status`: what the running job is doing, or what the last run left. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description("what the running main job is doing (its live figures), or the last run's summary from the warehouse")
    .option('--data-dir <dir>', 'embedded warehouse data directory', './data')
    .option('--clickhouse-url <url>', 'a ClickHouse server (the stored summary only)')
    .action(async (options: { dataDir: string; clickhouseUrl?: string }) => {
      const live = options.clickhouseUrl ? null : await liveStatus(options.dataDir);
      if (live) {
        process.stdout.write(`${live}\n`);
        return;
      }
      // Held by a process that serves reads but no figures (tapehouse load): say so, and read through it.
      const holder = options.clickhouseUrl ? undefined : await liveEndpoint(options.dataDir);
      const runner = await openQueryRunner(
        resolveTarget({
          dataDir: options.clickhouseUrl ? undefined : options.dataDir,
          clickhouseUrl: options.clickhouseUrl,
        }),
      );
      try {
        process.stdout.write(`${await storedStatus(runner, holder)}\n`);
      } finally {
        await runner.close();
      }
    });
}
