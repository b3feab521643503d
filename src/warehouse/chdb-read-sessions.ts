import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { isIdentifier } from './database.ts';
import { QueryRefused } from './query-refused.ts';

export interface ReadRequest {
  sql: string;
  /** Database unqualified names resolve in. */
  database: string;
  /** Output format when the statement has no FORMAT clause. */
  format: string;
  queryParams: Readonly<Record<string, string>>;
}

export interface ReadResult {
  body: Buffer;
  rowsRead: number;
  bytesRead: number;
  elapsedNs: number;
}

/** Runs read-only queries for the HTTP endpoint. */
export interface ReadExecutor {
  run(request: ReadRequest): Promise<ReadResult>;
  close(): Promise<void>;
}

const MAX_SESSIONS = 16;

/**
 * chDB sessions of this process on the data directory it owns, one per database a client asks
 * for: chDB has no per-query "current database", so each session runs `USE` once and then only
 * read statements (it is switched to readonly=2, which also refuses a later USE or SET). They are
 * separate from the writer's session, so nothing a reader does reaches the loaders' inserts.
 */
export class ChdbReadSessions implements ReadExecutor {
  readonly #path: string;
  readonly #sessions = new Map<string, Promise<ChdbConnection>>();

  constructor(chdbPath: string) {
    this.#path = chdbPath;
  }

  async run(request: ReadRequest): Promise<ReadResult> {
    const connection = await this.#session(request.database);
    const result = await connection.exec({
      query: request.sql,
      query_params: request.queryParams,
      // chDB maps default_format to its output option (no SET), so it does not stick. Any format
      // the engine knows is fine here, not only the ones the client library types.
      clickhouse_settings: { default_format: request.format as 'JSON' },
    });
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(Buffer.from(chunk as Uint8Array));
    return {
      body: Buffer.concat(chunks),
      rowsRead: Number(result.summary?.read_rows ?? 0),
      bytesRead: Number(result.summary?.read_bytes ?? 0),
      elapsedNs: Number(result.summary?.elapsed_ns ?? 0),
    };
  }

  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const session of sessions) {
      try {
        await (await session).close();
      } catch {
        // a session that failed to open has nothing to close
      }
    }
  }

  #session(database: string): Promise<ChdbConnection> {
    if (!isIdentifier(database)) throw new QueryRefused(81, 'UNKNOWN_DATABASE', `Database ${database} does not exist`);
    let session = this.#sessions.get(database);
    if (!session) {
      if (this.#sessions.size >= MAX_SESSIONS) {
        throw new QueryRefused(202, 'TOO_MANY_SIMULTANEOUS_QUERIES', `this endpoint serves at most ${MAX_SESSIONS} databases`);
      }
      session = this.#open(database);
      session.catch(() => this.#sessions.delete(database));
      this.#sessions.set(database, session);
    }
    return session;
  }

  async #open(database: string): Promise<ChdbConnection> {
    const connection = createChdbConnection({ path: this.#path });
    try {
      for (const statement of [
        `USE \`${database}\``,
        'SET output_format_json_quote_64bit_integers = 1', // ClickHouse server's default; chDB's is 0
        "SET session_timezone = 'UTC'", // what X-ClickHouse-Timezone says; clients ask timeZone() too
        'SET readonly = 2',
      ]) {
        await connection.command({ query: statement });
      }
      return connection;
    } catch (err) {
      await connection.close();
      throw err;
    }
  }
}
