import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { SettingError } from '../../util/setting-error.ts';
import type { QueryRunner } from '../../warehouse/query-access.ts';
import { renderTable, TABLE_SOURCE_FORMAT } from '../../warehouse/result-table.ts';
import { addSettings } from '../settings.ts';
import { resolveWarehouse, tellWaiting, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

type OutputFormat = 'table' | 'json' | 'csv';

/** ClickHouse format fetched for each --format; json is one object per line with 64-bit integers as strings. */
const SOURCE_FORMAT: Record<OutputFormat, string> = {
  table: TABLE_SOURCE_FORMAT,
  json: 'JSONEachRow',
  csv: 'CSVWithNames',
};

interface SqlOptions {
  format: OutputFormat;
  allowWrites?: boolean;
  [setting: string]: unknown;
}

/**
 * `tapehouse sql "SELECT …"`: runs SQL against the data directory (opened directly when free,
 * otherwise through the owning process's read-only endpoint) or a ClickHouse server. Several
 * statements separated by `;` run in order. A statement with its own FORMAT clause prints as is.
 */
export function registerSql(program: Command): void {
  const command = program
    .command('sql')
    .description("run SQL against the warehouse (the data directory, its owner's endpoint, or a ClickHouse server)")
    .argument('<query>', 'the SQL; - reads it from stdin')
    .option('--format <format>', 'table, json (one object per line) or csv', parseFormat, 'table' as OutputFormat)
    .option(
      '--allow-writes',
      'let the statements write (INSERT, DDL); only with no job holding the data directory. Without it the warehouse is read-only here: schema changes go through tapehouse migrate',
    )
    .addHelpText(
      'after',
      `
Examples:
  tapehouse sql "SELECT count() FROM trades"
  tapehouse sql --format json "SELECT * FROM candles_1m ORDER BY bucket DESC LIMIT 5"
  echo "SELECT 1; SELECT 2" | tapehouse sql -
The warehouse is read-only to tapehouse sql (whether or not a job runs): a DROP, INSERT or ALTER
is refused with exit code 2 unless --allow-writes is given on a data directory no job holds.`,
    );
  addSettings(command, WAREHOUSE_SETTINGS).action(async (query: string, options: SqlOptions) => {
    const { isReadOnlyRefusal, openQueryRunner, WritesRefused } = await import('../../warehouse/query-access.ts');
    const { statementFormat } = await import('../../warehouse/endpoint/index.ts');
    const { splitStatements } = await import('../../warehouse/sql-lexer.ts');
    const sql = query === '-' ? readFileSync(0, 'utf8') : query;
    const statements = splitStatements(sql);
    if (statements.length === 0) throw new SettingError('no SQL to run');
    let runner: QueryRunner;
    try {
      runner = await openQueryRunner(resolveWarehouse(options), {
        allowWrites: options.allowWrites,
        onWaiting: tellWaiting,
      });
    } catch (err) {
      if (err instanceof WritesRefused) throw new SettingError(`--allow-writes: ${err.message}`);
      throw err;
    }
    try {
      for (const statement of statements) {
        const own = statementFormat(statement);
        const output = await runner.run(statement, SOURCE_FORMAT[options.format]).catch((err: unknown) => {
          throw isReadOnlyRefusal(err) ? readOnlyRefusal(err) : err;
        });
        const text = own === undefined && options.format === 'table' ? renderTable(output.toString('utf8')) : output;
        process.stdout.write(text);
      }
    } finally {
      await runner.close();
    }
  });
}

/** A write the read-only session refused: bad usage, with the ways to do it properly. */
function readOnlyRefusal(err: unknown): SettingError {
  const first = (err instanceof Error ? err.message : String(err)).split('\n', 1)[0];
  return new SettingError(
    `${first}\ntapehouse sql is read-only: schema changes go through tapehouse migrate (which also recreates what is missing); ` +
      'a deliberate write takes --allow-writes, with no job holding the data directory',
  );
}

function parseFormat(value: string): OutputFormat {
  if (value === 'table' || value === 'json' || value === 'csv') return value;
  throw new SettingError(`--format must be table, json or csv (got ${value})`);
}
