import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { SettingError } from '../../util/setting-error.ts';
import { openQueryRunner } from '../../warehouse/query-access.ts';
import { renderTable, TABLE_SOURCE_FORMAT } from '../../warehouse/result-table.ts';
import { statementFormat } from '../../warehouse/sql-clauses.ts';
import { splitStatements } from '../../warehouse/sql-lexer.ts';
import { resolveTarget } from '../../warehouse/target.ts';

type OutputFormat = 'table' | 'json' | 'csv';

/** ClickHouse format fetched for each --format; json is one object per line with 64-bit integers as strings. */
const SOURCE_FORMAT: Record<OutputFormat, string> = {
  table: TABLE_SOURCE_FORMAT,
  json: 'JSONEachRow',
  csv: 'CSVWithNames',
};

interface SqlOptions {
  dataDir?: string;
  clickhouseUrl?: string;
  format: OutputFormat;
}

/**
 * `tapehouse sql "SELECT …"`: runs SQL against the data directory (opened directly when free,
 * otherwise through the owning process's read-only endpoint) or a ClickHouse server. Several
 * statements separated by `;` run in order. A statement with its own FORMAT clause prints as is.
 */
export function registerSql(program: Command): void {
  program
    .command('sql')
    .description('run SQL against the warehouse (the data directory, its owner\'s endpoint, or a ClickHouse server)')
    .argument('<query>', 'the SQL; - reads it from stdin')
    .option('--data-dir <dir>', 'embedded warehouse data directory (default ./data)')
    .option('--clickhouse-url <url>', 'ClickHouse server URL (user and password from TAPEHOUSE_CLICKHOUSE_USER / _PASSWORD)')
    .option('--format <format>', 'table, json (one object per line) or csv', parseFormat, 'table' as OutputFormat)
    .action(async (query: string, options: SqlOptions) => {
      const sql = query === '-' ? readFileSync(0, 'utf8') : query;
      const statements = splitStatements(sql);
      if (statements.length === 0) throw new SettingError('no SQL to run');
      const runner = await openQueryRunner(resolveTarget(options));
      try {
        for (const statement of statements) {
          const own = statementFormat(statement);
          const output = await runner.run(statement, SOURCE_FORMAT[options.format]);
          const text = own === undefined && options.format === 'table' ? renderTable(output.toString('utf8')) : output;
          process.stdout.write(text);
        }
      } finally {
        await runner.close();
      }
    });
}

function parseFormat(value: string): OutputFormat {
  if (value === 'table' || value === 'json' || value === 'csv') return value;
  throw new SettingError(`--format must be table, json or csv (got ${value})`);
}
