import type { Command } from 'commander';
import { addSettings } from '../settings.ts';
import { resolveWarehouse, tellWaiting, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

/** `tapehouse status`: what the running job is doing, or what the last run left. */
export function registerStatus(program: Command): void {
  const command = program
    .command('status')
    .description("what the running main job is doing (its live figures), or the last run's summary from the warehouse");
  command.option(
    '--metrics-url <url>',
    "a process's /metrics (a scale-out capture, load or worker: http://host:9464): its live figures",
  );
  addSettings(command, WAREHOUSE_SETTINGS).action(async (options: Record<string, unknown>) => {
    const { liveStatus, metricsUrlStatus, storedStatus } = await import('../../run/status-report.ts');
    if (typeof options.metricsUrl === 'string') {
      process.stdout.write(`${await metricsUrlStatus(options.metricsUrl)}\n`);
      return;
    }
    const { liveEndpoint } = await import('../../warehouse/embedded/index.ts');
    const { openQueryRunner } = await import('../../warehouse/query-access.ts');
    // A server gives the stored summary only: live figures are a data directory's.
    const target = resolveWarehouse(options);
    const live = target.kind === 'chdb' ? await liveStatus(target.dataDir) : null;
    if (live) {
      process.stdout.write(`${live}\n`);
      return;
    }
    // Held by a process that serves reads but no figures (tapehouse load): say so, and read through it.
    const holder = target.kind === 'chdb' ? await liveEndpoint(target.dataDir) : undefined;
    const runner = await openQueryRunner(target, { onWaiting: tellWaiting });
    try {
      process.stdout.write(`${await storedStatus(runner, holder)}\n`);
    } finally {
      await runner.close();
    }
  });
}
