import type { ClickHouseClient } from '@clickhouse/client';
import { Option, type Command } from 'commander';
import { SettingError } from '../../util/setting-error.ts';
import { COST_METHODS, type CostMethod } from '../../reconcile/cost-basis.ts';
import type { Reconciliation } from '../../reconcile/reconcile.ts';
import type { ReportFormat } from '../../reconcile/render.ts';
import type { WarehouseTarget } from '../../warehouse/target.ts';
import { addSettings, resolveSettings } from '../settings.ts';
import { resolveWarehouse, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

interface ReconcileCliOptions {
  from?: number;
  to?: number;
  account?: string[];
  format: ReportFormat;
  method: CostMethod;
  tolerance: bigint;
  store: boolean;
  details: boolean;
}

/** Where to read, and where to store: the warehouse itself, or the process that owns a busy data directory (its
 * read-only endpoint to read, its `/reconciliations` route to store). */
interface Access {
  client: ClickHouseClient;
  store(run: Reconciliation): Promise<{ rows: number; where: string }>;
  close(): Promise<void>;
}

async function openAccess(target: WarehouseTarget): Promise<Access> {
  const { DataDirectoryBusy, liveEndpoint, requireWarehouse } = await import('../../warehouse/embedded/index.ts');
  // A read creates nothing: a mistyped --data-dir is refused before chDB makes a warehouse there.
  if (target.kind === 'chdb') requireWarehouse(target.dataDir);
  const { openWarehouse } = await import('../../warehouse/warehouse.ts');
  const { storeReconciliation } = await import('../../reconcile/store.ts');
  const { storeThroughJob } = await import('../../reconcile/store-through-job.ts');
  const { ClickHouseLogLevel, createClient } = await import('@clickhouse/client');
  try {
    const warehouse = await openWarehouse(target);
    return {
      client: warehouse.client,
      store: async (run) => ({ rows: await storeReconciliation(warehouse, run), where: 'tapehouse.reconciliations' }),
      close: () => warehouse.close(),
    };
  } catch (err) {
    if (!(err instanceof DataDirectoryBusy) || target.kind !== 'chdb') throw err;
    const endpoint = await liveEndpoint(target.dataDir);
    if (!endpoint) throw err;
    const client = createClient({
      url: endpoint.url,
      request_timeout: 300_000,
      log: { level: ClickHouseLogLevel.OFF },
    });
    return {
      client,
      store: async (run) => ({
        rows: await storeThroughJob(endpoint.url, run),
        where: `tapehouse.reconciliations through the running job (process ${endpoint.pid})`,
      }),
      close: () => client.close(),
    };
  }
}

/**
 * `tapehouse reconcile`: rebuilds each account from its fills and the rest of the warehouse (no
 * venue needed: it works on a copy of the data), compares with what the venue reported, prints the
 * report and stores one row per figure in `reconciliations`.
 */
export function registerReconcile(program: Command): void {
  const command = program
    .command('reconcile')
    .description("rebuild the account from its fills and check the venue's positions, summary, settled PnL and rebates")
    .option('--from <time>', "check the venue's figures reported at or after this time (ISO 8601)", parseTime)
    .option(
      '--to <time>',
      'as of this time (ISO 8601): fills and reports after it are left out (default: the last instant every input of the account covers)',
      parseTime,
    )
    .option(
      '--account <label>',
      'account to reconcile (repeatable; default every account in the warehouse)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--format <format>', 'table, json or csv', parseFormat, 'table' as ReportFormat)
    .option('--method <method>', "cost basis: average (the venue's) or fifo", parseMethod, 'average' as CostMethod)
    // A bigint default is shown by its text: commander would JSON.stringify it in --help, and fail.
    .addOption(
      new Option('--tolerance <micro>', 'differences up to this many micro-units count as equal')
        .argParser(parseTolerance)
        .default(0n, '0'),
    )
    .option(
      '--details',
      'table format: also every figure that is not ok and why, and what each account relied on',
      false,
    )
    .option('--no-store', 'print the report without storing it in the reconciliations table');
  addSettings(command, ['venueRules', ...WAREHOUSE_SETTINGS]).action(async (options: ReconcileCliOptions) => {
    const { reconcile, START_OF_TIME_MS } = await import('../../reconcile/reconcile.ts');
    const { render, withoutRulesNotice } = await import('../../reconcile/render.ts');
    const flags = options as unknown as Record<string, unknown>;
    const { venueRules } = resolveSettings(['venueRules'], flags);
    const target = resolveWarehouse(flags);
    if (options.from !== undefined && options.to !== undefined && options.from > options.to)
      throw new SettingError('--from is after --to');
    const access = await openAccess(target);
    try {
      const run = await reconcile(access.client, {
        accounts: options.account,
        method: options.method,
        toleranceMicro: options.tolerance,
        rules: venueRules,
        fromMs: options.from ?? START_OF_TIME_MS,
        toMs: options.to,
      });
      // The table's first lines say it; json and csv stay machine-readable, so stderr does.
      if (!run.options.rules && options.format !== 'table')
        process.stderr.write(`${withoutRulesNotice().join('\n')}\n`);
      process.stdout.write(render(run, options.format, { details: options.details }));
      if (options.store) {
        const stored = await access.store(run);
        process.stderr.write(
          `tapehouse reconcile: stored ${stored.rows} rows of run ${run.runId} in ${stored.where}\n`,
        );
      }
    } finally {
      await access.close();
    }
  });
}

function parseTime(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new SettingError(`not a time: ${value} (expected ISO 8601, e.g. 2025-01-06T12:00:00Z)`);
  return ms;
}

function parseFormat(value: string): ReportFormat {
  if (value === 'table' || value === 'json' || value === 'csv') return value;
  throw new SettingError(`--format must be table, json or csv (got ${value})`);
}

function parseMethod(value: string): CostMethod {
  const method = COST_METHODS.find((m) => m === value);
  if (!method) throw new SettingError(`--method must be ${COST_METHODS.join(' or ')} (got ${value})`);
  return method;
}

function parseTolerance(value: string): bigint {
  if (!/^\d+$/.test(value)) throw new SettingError(`--tolerance is a whole number of micro-units (got ${value})`);
  return BigInt(value);
}
