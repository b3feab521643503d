import type { Command } from 'commander';
import { addSettings } from '../settings.ts';
import { resolveWarehouse, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

/** `tapehouse migrate`: applies the pending numbered migrations from sql/. */
export function registerMigrate(program: Command): void {
  addSettings(
    program.command('migrate').description('apply pending SQL migrations (sql/) to the warehouse'),
    WAREHOUSE_SETTINGS,
  ).action(async (options: Record<string, unknown>) => {
    const { pendingRederives } = await import('../../load/rederive/index.ts');
    const { migrateWarehouse } = await import('../../warehouse/schema/index.ts');
    const { describeTarget } = await import('../../warehouse/target.ts');
    const { openWarehouse } = await import('../../warehouse/warehouse.ts');
    const target = resolveWarehouse(options);
    const warehouse = await openWarehouse(target);
    try {
      const result = await migrateWarehouse(warehouse);
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
