import { Readable } from 'node:stream';
import { drainStream, type ClickHouseClient } from '@clickhouse/client';
import type { ChdbConnection } from 'chdb/connection';
import { qualifiedTableName, sqlString } from '../database.ts';
import { compileRowEncoder, type ColumnSpec, type InsertRow, type RowEncoder } from './row-encoder.ts';

export interface InsertOptions {
  /**
   * Insert deduplication token: a second insert into the same table with the same token is
   * dropped by ClickHouse (on tables with `non_replicated_deduplication_window`), and so are the
   * rows it would have pushed into materialized views. Loaders derive it from the batch's offset
   * range so that a retried batch lands once.
   */
  dedupToken?: string;
  /** Columns to send (default: every insertable column; a missing value takes its DEFAULT). */
  columns?: readonly string[];
}

export interface InsertSummary {
  table: string;
  rows: number;
  bytes: number;
}

/** A batch already encoded, to be sent later: a loader encodes the next batch while one is in flight. */
export interface PreparedInsert extends InsertSummary {
  send(): Promise<InsertSummary>;
}

/** One INSERT as the transports see it. Settings travel only in its SQL SETTINGS clause. */
export interface InsertStatement {
  table: string;
  columns: readonly string[];
  settings: Readonly<Record<string, string | number>>;
}

export type InsertTransport = (statement: InsertStatement, payload: Buffer) => Promise<void>;

export const INSERT_FORMAT = 'TabSeparated';

/**
 * Settings of every insert, written into its SQL SETTINGS clause: they apply to that statement
 * only, never to the session (chDB keeps per-call settings for all later calls).
 */
export function insertSettings(dedupToken: string | undefined): InsertStatement['settings'] {
  return {
    insert_deduplicate: 1,
    // Rows a deduplicated insert would push into materialized views are dropped too (26.x
    // default; older servers need it said).
    deduplicate_blocks_in_dependent_materialized_views: 1,
    date_time_input_format: 'best_effort',
    input_format_null_as_default: 1,
    ...(dedupToken === undefined ? {} : { insert_deduplication_token: dedupToken }),
  };
}

export function insertStatementSql(statement: InsertStatement): string {
  const settings = Object.entries(statement.settings)
    .map(([name, value]) => `${name} = ${typeof value === 'number' ? value : sqlString(value)}`)
    .join(', ');
  return `INSERT INTO ${statement.table} (${statement.columns.join(', ')}) SETTINGS ${settings} FORMAT ${INSERT_FORMAT}`;
}

/** chDB: the payload Buffer goes to the engine zero-copy (chdb's raw insert); its parser runs in parallel. */
export function chdbTransport(connection: ChdbConnection): InsertTransport {
  return async (statement, payload) => {
    await connection.chdb.rawInsert({
      table: statement.table,
      columns: statement.columns,
      format: INSERT_FORMAT,
      settings: { ...statement.settings },
      values: payload,
    });
  };
}

/** A ClickHouse server: the statement in the URL, the payload as the request body. */
export function httpTransport(client: ClickHouseClient): InsertTransport {
  return async (statement, payload) => {
    const result = await client.exec({ query: insertStatementSql(statement), values: Readable.from([payload]) });
    await drainStream(result.stream);
  };
}

/**
 * The insert path the loaders call: rows → TabSeparated bytes (encoders compiled from the
 * table's columns, read once from system.columns) → one INSERT with its settings in SQL.
 */
export class RowInserter {
  readonly #client: ClickHouseClient;
  readonly #transport: InsertTransport;
  readonly #encoders = new Map<string, Promise<RowEncoder>>();

  constructor(client: ClickHouseClient, transport: InsertTransport) {
    this.#client = client;
    this.#transport = transport;
  }

  async insertRows(table: string, rows: readonly InsertRow[], options: InsertOptions = {}): Promise<InsertSummary> {
    return (await this.prepareInsert(table, rows, options)).send();
  }

  /** Encodes now (throwing InsertValueError for a bad value), sends when asked. */
  async prepareInsert(table: string, rows: readonly InsertRow[], options: InsertOptions = {}): Promise<PreparedInsert> {
    const name = qualifiedTableName(table).qualified;
    const summary = { table: name, rows: rows.length, bytes: 0 };
    if (rows.length === 0) return { ...summary, send: async () => summary };
    const encoder = await this.#encoderFor(name, options.columns);
    const payload = encoder.encode(rows);
    summary.bytes = payload.length;
    const statement = { table: name, columns: encoder.columns, settings: insertSettings(options.dedupToken) };
    return {
      ...summary,
      send: async () => {
        await this.#transport(statement, payload);
        return summary;
      },
    };
  }

  /** Drop cached column lists (after a migration changed tables). */
  forgetSchemas(): void {
    this.#encoders.clear();
  }

  #encoderFor(table: string, columns: readonly string[] | undefined): Promise<RowEncoder> {
    const key = columns ? `${table}(${columns.join(',')})` : table;
    let encoder = this.#encoders.get(key);
    if (!encoder) {
      encoder = readColumns(this.#client, table).then((specs) => compileRowEncoder(table, specs, columns));
      encoder.catch(() => this.#encoders.delete(key));
      this.#encoders.set(key, encoder);
    }
    return encoder;
  }
}

export async function readColumns(client: ClickHouseClient, table: string): Promise<ColumnSpec[]> {
  const name = qualifiedTableName(table);
  const result = await client.query({
    query:
      'SELECT name, type, default_kind AS defaultKind FROM system.columns ' +
      'WHERE database = {database:String} AND table = {table:String} ORDER BY position',
    query_params: { database: name.database, table: name.table },
    format: 'JSONEachRow',
  });
  const specs = await result.json<ColumnSpec>();
  if (specs.length === 0) throw new Error(`table ${name.qualified} does not exist (run: tapehouse migrate)`);
  return specs;
}
