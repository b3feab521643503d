import type { Command } from 'commander';
import { parseDuration } from '../../util/duration.ts';
import { SettingError } from '../../util/setting-error.ts';
// No imports of its own: cheap enough for --help's path.
import { isTransientWarehouseError } from '../../warehouse/transient-error.ts';
import { addSettings } from '../settings.ts';
import { resolveWarehouse, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

/** `tapehouse migrate`: applies the pending numbered migrations from sql/. */
export function registerMigrate(program: Command): void {
  addSettings(
    program.command('migrate').description('apply pending SQL migrations (sql/) to the warehouse'),
    WAREHOUSE_SETTINGS,
  )
    .option(
      '--retry-for <duration>',
      'retry a failure that passes by itself (the server starting, unreachable, busy) for this long; others end at once (default: no retry)',
    )
    .action(async (options: Record<string, unknown>) => {
      const { pendingRederives } = await import('../../load/rederive/index.ts');
      const { migrateWarehouse } = await import('../../warehouse/schema/index.ts');
      const { describeTarget } = await import('../../warehouse/target.ts');
      const { openWarehouse } = await import('../../warehouse/warehouse.ts');
      const target = resolveWarehouse(options);
      const retryForMs = retryWindow(options.retryFor);
      const warehouse = await openWarehouse(target);
      try {
        const result = await migrateWithRetries(() => migrateWarehouse(warehouse), retryForMs, describeTarget(target));
        if (result.fromBaseline)
          process.stdout.write(
            'a fresh warehouse: built from sql/baseline/schema.sql, which stands for the migrations below\n',
          );
        for (const migration of result.applied) process.stdout.write(`applied ${migration.file}\n`);
        for (const name of result.recreated)
          process.stdout.write(`recreated ${name}: it was missing (dropped outside the migrations); it starts empty\n`);
        const total = result.alreadyApplied + result.applied.length;
        process.stdout.write(`${describeTarget(target)}: schema up to date (${total} migrations applied)\n`);
        // What the migrations asked to re-derive from _raw: tapehouse run does it before its loaders start.
        const pending = await pendingRederives(warehouse.client, { withRows: true });
        if (pending.length > 0)
          process.stdout.write(
            `to re-derive from _raw: ${pending.join(', ')} (tapehouse rederive, or tapehouse run does it before loading)\n`,
          );
      } finally {
        await warehouse.close();
      }
    });
}

function retryWindow(text: unknown): number {
  if (text === undefined) return 0;
  try {
    return parseDuration(String(text));
  } catch (err) {
    throw new SettingError(`--retry-for: ${JSON.stringify(text)} ${(err as Error).message}`);
  }
}

/**
 * Runs the migrations, again after a failure that passes by itself (1 s doubling up to 15 s) until
 * `windowMs` is spent; a failure that will not pass (a wrong password, an SQL error) ends it at
 * once. docker-compose.yml's `migrate` job runs with `--retry-for`, so that a ClickHouse still
 * starting does not leave load and worker never started.
 */
async function migrateWithRetries<T>(attempt: () => Promise<T>, windowMs: number, where: string): Promise<T> {
  const deadline = Date.now() + windowMs;
  for (let waitMs = 1_000; ; waitMs = Math.min(15_000, waitMs * 2)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransientWarehouseError(error) || Date.now() + waitMs > deadline) throw error;
      process.stderr.write(
        `tapehouse migrate: ${where} failed (${(error as Error).message.split('\n', 1)[0]}); trying again in ${waitMs / 1000} s\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
