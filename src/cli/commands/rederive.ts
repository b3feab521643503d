import type { Command } from 'commander';
import type { RederiveResult } from '../../load/rederive/index.ts';
import { SettingError } from '../../util/setting-error.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { addSettings } from '../settings.ts';
import { resolveWarehouse, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

interface RederiveOptions {
  table?: string[];
  since?: Date;
  [setting: string]: unknown;
}

/**
 * `tapehouse rederive [--table T] [--since TIME]`: maps stored rows again from their raw text
 * (src/load/rederive). Without --table, the tables migrations asked for.
 */
export function registerRederive(program: Command): void {
  const command = program
    .command('rederive')
    .description(
      're-derive typed tables from the raw text their rows keep (after a mapping change), exactly once and resumable',
    )
    .option(
      '--table <table>',
      'a table to re-derive (repeatable; a name that cannot be is refused with the list); default: the tables migrations asked for',
      collect,
    )
    .option(
      '--since <time>',
      'only partitions holding rows at or after this ISO time (each partition is rebuilt whole)',
      parseTime,
    )
    .addHelpText(
      'after',
      `
Stop the loaders writing these tables first (tapehouse run does this itself before its loaders
start). A run that stops midway resumes where it stopped when run again with the same --since.`,
    );
  addSettings(command, WAREHOUSE_SETTINGS).action(async (options: RederiveOptions) => {
    const { pendingRederives, REDERIVABLE } = await import('../../load/rederive/index.ts');
    const { migrateWarehouse } = await import('../../warehouse/schema/index.ts');
    const { describeTarget } = await import('../../warehouse/target.ts');
    const { openWarehouse } = await import('../../warehouse/warehouse.ts');
    for (const table of options.table ?? []) {
      if (!REDERIVABLE[table])
        throw new SettingError(
          `--table: ${table} cannot be re-derived (one of ${Object.keys(REDERIVABLE).join(', ')})`,
        );
    }
    const target = resolveWarehouse(options);
    const warehouse = await openWarehouse(target);
    try {
      await migrateWarehouse(warehouse);
      const tables = options.table ?? (await pendingRederives(warehouse.client));
      if (tables.length === 0) {
        process.stdout.write(
          `${describeTarget(target)}: nothing to re-derive (no migration asks for it; name a table with --table)\n`,
        );
        return;
      }
      for (const table of tables)
        process.stdout.write(`${summary(await rederiveWithBar(warehouse, table, options.since))}\n`);
    } finally {
      await warehouse.close();
    }
  });
}

/** Re-derives one table with a progress bar on stderr. */
export async function rederiveWithBar(warehouse: Warehouse, table: string, since?: Date): Promise<RederiveResult> {
  const { rederiveTable } = await import('../../load/rederive/index.ts');
  const { ProgressBar } = await import('../progress-bar.ts');
  const bar = new ProgressBar();
  try {
    return await rederiveTable(warehouse, table, {
      ...(since ? { since } : {}),
      onProgress: (p) =>
        bar.update(
          `rederive ${p.table}`,
          p.partitionsDone,
          p.partitionsTotal,
          `partitions, ${p.rowsRederived} rows mapped again`,
        ),
    });
  } finally {
    bar.end();
  }
}

export function summary(r: RederiveResult): string {
  const resumed = r.partitionsResumed > 0 ? ` (resumed: ${r.partitionsResumed} done before)` : '';
  const failed = r.rowsFailed > 0 ? `, ${r.rowsFailed} records did not map again (their rows kept as they were)` : '';
  const stores = r.storesRefreshed.length > 0 ? `; ${r.storesRefreshed.join(', ')} given the new rows` : '';
  return `${r.table}: ${r.partitionsTotal} partitions${resumed}, ${r.rowsRederived} rows mapped again${failed}, rows ${r.rowsBefore} → ${r.rowsAfter}${stores}`;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  ];
}

function parseTime(value: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw new SettingError(`--since: ${value} is not an ISO time (2026-03-02 or 2026-03-02T12:00:00Z)`);
  return at;
}
