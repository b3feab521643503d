import { Readable } from 'node:stream';
import { drainStream, type ClickHouseClient } from '@clickhouse/client';
import type { ChdbConnection } from 'chdb/connection';
import { qualifiedTableName, sqlString } from '../database.ts';
import { compileNativeEncoder, type NativeEncoder } from './native-encoder.ts';
import { InsertFiles } from './insert-files.ts';
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
  /** How the rows travel: Native where the transport takes it and every value has an exact Native form. */
  format: InsertFormat;
}

/** A batch already encoded, to be sent later: a loader encodes the next batch while one is in flight. */
export interface PreparedInsert extends InsertSummary {
  send(): Promise<InsertSummary>;
}

export type InsertFormat = 'TabSeparated' | 'Native';

/** One INSERT as the transports see it. Settings travel only in its SQL SETTINGS clause. */
export interface InsertStatement {
  table: string;
  columns: readonly string[];
  settings: Readonly<Record<string, string | number>>;
  format: InsertFormat;
}

export interface InsertTransport {
  /** Whether it takes Native payloads (else TabSeparated only). */
  readonly native: boolean;
  send(statement: InsertStatement, payload: Buffer): Promise<void>;
}

/**
 * Settings of every insert, written into its SQL SETTINGS clause: they apply to that statement
 * only, never to the session (chDB keeps per-call settings for all later calls).
 */
export function insertSettings(
  dedupToken: string | undefined,
  format: InsertFormat = 'TabSeparated',
): InsertStatement['settings'] {
  return {
    // Acknowledged means stored: on a server whose profile turns async inserts on (with
    // wait_for_async_insert = 0 the answer comes before the data is durable), the loaders would
    // record `after` and commit the bus for rows still in a buffer. Deduplication tokens also
    // only hold for synchronous inserts.
    async_insert: 0,
    insert_deduplicate: 1,
    // Rows a deduplicated insert would push into materialized views are dropped too (26.x
    // default; older servers need it said).
    deduplicate_blocks_in_dependent_materialized_views: 1,
    date_time_input_format: 'best_effort',
    // \N (TabSeparated) or NULL (Native, read by INSERT … SELECT) in a column that is not Nullable takes its DEFAULT.
    ...(format === 'Native' ? { insert_null_as_default: 1 } : { input_format_null_as_default: 1 }),
    ...(dedupToken === undefined ? {} : { insert_deduplication_token: dedupToken }),
  };
}

function settingsSql(settings: InsertStatement['settings']): string {
  return Object.entries(settings)
    .map(([name, value]) => `${name} = ${typeof value === 'number' ? value : sqlString(value)}`)
    .join(', ');
}

/** The statement of an insert whose rows follow it (`FORMAT …`, then the payload). */
export function insertStatementSql(statement: InsertStatement): string {
  return `INSERT INTO ${statement.table} (${statement.columns.join(', ')}) SETTINGS ${settingsSql(statement.settings)} FORMAT ${statement.format}`;
}

/** The statement of an insert whose rows the engine reads from a file of the statement's format. */
export function insertFromFileSql(statement: InsertStatement, path: string): string {
  return (
    `INSERT INTO ${statement.table} (${statement.columns.join(', ')}) SETTINGS ${settingsSql(statement.settings)} ` +
    `SELECT * FROM file(${sqlString(path)}, ${statement.format})`
  );
}

/**
 * chDB. Native: the block is written to a file on tmpfs and read by `INSERT … SELECT FROM file()`
 * in this session (chDB's raw insert takes text formats only); TabSeparated: the payload Buffer
 * goes to the engine zero-copy (chdb's raw insert).
 */
export function chdbTransport(connection: ChdbConnection): InsertTransport {
  const files = new InsertFiles(connection.chdb.session.path);
  return {
    native: true,
    async send(statement, payload) {
      if (statement.format === 'Native') {
        await files.with(payload, (path) =>
          connection.chdb.queryAsync(insertFromFileSql(statement, path), { format: 'TabSeparated' }),
        );
        return;
      }
      await connection.chdb.rawInsert({
        table: statement.table,
        columns: statement.columns,
        format: statement.format,
        settings: { ...statement.settings },
        values: payload,
      });
    },
  };
}

/** A ClickHouse server: the statement in the URL, the payload (TabSeparated) as the request body. */
export function httpTransport(client: ClickHouseClient): InsertTransport {
  return {
    native: false,
    async send(statement, payload) {
      const result = await client.exec({ query: insertStatementSql(statement), values: Readable.from([payload]) });
      await drainStream(result.stream);
    },
  };
}

interface Encoders {
  tsv: RowEncoder;
  /** Undefined when a column's type has no Native writer. */
  native: NativeEncoder | undefined;
}

/**
 * The insert path the loaders call: rows → Native or TabSeparated bytes (encoders compiled from
 * the table's columns, read once from system.columns) → one INSERT with its settings in SQL.
 * Native when the transport takes it and every value has an exact Native form, TabSeparated
 * otherwise (see native-encoder.ts): the same rows are stored either way.
 */
export class RowInserter {
  readonly #client: ClickHouseClient;
  readonly #transport: InsertTransport;
  readonly #encoders = new Map<string, Promise<Encoders>>();

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
    const summary: InsertSummary = { table: name, rows: rows.length, bytes: 0, format: 'TabSeparated' };
    if (rows.length === 0) return { ...summary, send: async () => summary };
    const encoders = await this.#encoderFor(name, options.columns);
    const native = this.#transport.native ? nativeOrUndefined(encoders.native, rows) : undefined;
    const payload = native ?? encoders.tsv.encode(rows);
    if (native) summary.format = 'Native';
    summary.bytes = payload.length;
    const statement = {
      table: name,
      columns: encoders.tsv.columns,
      settings: insertSettings(options.dedupToken, summary.format),
      format: summary.format,
    };
    return {
      ...summary,
      send: async () => {
        await this.#transport.send(statement, payload);
        return summary;
      },
    };
  }

  /** Drop cached column lists (after a migration changed tables). */
  forgetSchemas(): void {
    this.#encoders.clear();
  }

  #encoderFor(table: string, columns: readonly string[] | undefined): Promise<Encoders> {
    const key = columns ? `${table}(${columns.join(',')})` : table;
    let encoder = this.#encoders.get(key);
    if (!encoder) {
      encoder = readColumns(this.#client, table).then((specs) => {
        const tsv = compileRowEncoder(table, specs, columns);
        return { tsv, native: compileNativeEncoder(specs, tsv.columns) };
      });
      encoder.catch(() => this.#encoders.delete(key));
      this.#encoders.set(key, encoder);
    }
    return encoder;
  }
}

/**
 * The Native block of the rows, or undefined for TabSeparated. A failure inside the Native writer
 * falls back too: TabSeparated is the reference, and stores the rows or names the bad value.
 */
function nativeOrUndefined(encoder: NativeEncoder | undefined, rows: readonly InsertRow[]): Buffer | undefined {
  try {
    return encoder?.encode(rows);
  } catch {
    return undefined;
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
