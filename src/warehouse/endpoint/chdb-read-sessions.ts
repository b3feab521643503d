import type { Session } from 'chdb';
import { loadChdb } from '../embedded/index.ts';
import { isIdentifier } from '../database.ts';
import type { BoundParameter } from './query-parameters.ts';
import { QueryRefused } from './query-refused.ts';
import { streamModeOf } from './stream-formats.ts';

export interface ReadRequest {
  sql: string;
  /** Database unqualified names resolve in. */
  database: string;
  /** Output format when the statement has no FORMAT clause. */
  format: string;
  /** Values for the statement's `{name:Type}` placeholders (see query-parameters.ts). */
  queryParams: Readonly<Record<string, BoundParameter>>;
}

/** A piece of the answer as the engine produced it, and how many rows it holds. */
export interface ReadChunk {
  data: Buffer;
  rows: number;
}

/** Runs read-only queries for the HTTP endpoint, streaming their output. */
export interface ReadExecutor {
  /** The answer chunk by chunk; leaving the loop early cancels the query. */
  stream(request: ReadRequest): AsyncIterable<ReadChunk>;
  /** What the engine says of itself, for the endpoint's version() and error texts. */
  serverVersion(): Promise<string>;
  /** Names of every table function the engine has (system.table_functions). */
  tableFunctions(): Promise<string[]>;
  close(): Promise<void>;
}

const MAX_SESSIONS = 16;

/**
 * chDB sessions of this process on the data directory it owns. chDB streams one result per
 * session at a time and has no per-query "current database", so each request leases a session
 * of its database for the time of its answer: a session runs `USE` once when it opens and is then
 * switched to readonly=2 (which also refuses a later USE or SET). At most 16 are open; a request
 * beyond that waits for one to come free. They are separate from the writer's session, so nothing
 * a reader does reaches the loaders' inserts.
 */
export class ChdbReadSessions implements ReadExecutor {
  readonly #path: string;
  readonly #idle = new Map<string, Session[]>();
  readonly #waiting: Array<() => void> = [];
  #open = 0;
  #closed = false;
  #info: Promise<{ version: string; tableFunctions: string[] }> | undefined;

  constructor(chdbPath: string) {
    this.#path = chdbPath;
  }

  async *stream(request: ReadRequest): AsyncIterable<ReadChunk> {
    const session = await this.#lease(request.database);
    let healthy = true;
    try {
      const mode = streamModeOf(request.format);
      const params = request.queryParams as object; // chDB's binder takes null for \N; its typings say object
      const hasParams = Object.keys(params).length > 0;
      const options = { format: request.format };
      const whole = async (): Promise<ReadChunk> => {
        const result = hasParams
          ? await session.queryBindAsync(request.sql, params, options)
          : await session.queryAsync(request.sql, options);
        return { data: Buffer.from(result.bytes()), rows: result.rowsRead };
      };
      if (mode.kind === 'whole') {
        yield await whole();
        return;
      }
      let first = true;
      try {
        const chunks = hasParams
          ? session.queryStreamBind(request.sql, params, options)
          : session.queryStream(request.sql, options);
        for await (const chunk of chunks) {
          let data = Buffer.from(chunk.raw());
          if (!first && mode.kind === 'strip') data = data.subarray(mode.headerLength(data));
          first = false;
          yield { data, rows: chunk.numRows };
        }
      } catch (err) {
        // Some statements (SHOW …) chDB runs only without streaming.
        if (!first || !/Streaming query is not supported/.test(String((err as Error).message))) throw err;
        yield await whole();
      }
    } catch (err) {
      healthy = !(err instanceof Error && /closed|connection/i.test(err.name));
      throw err;
    } finally {
      this.#release(request.database, session, healthy);
    }
  }

  async serverVersion(): Promise<string> {
    return (await this.#engineInfo()).version;
  }

  async tableFunctions(): Promise<string[]> {
    return (await this.#engineInfo()).tableFunctions;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const sessions of this.#idle.values()) for (const session of sessions) session.close();
    this.#idle.clear();
    for (const wake of this.#waiting.splice(0)) wake();
  }

  #engineInfo(): Promise<{ version: string; tableFunctions: string[] }> {
    this.#info ??= (async () => {
      const session = await this.#lease('system');
      try {
        const text = async (sql: string) =>
          Buffer.from((await session.queryAsync(sql, { format: 'TSV' })).bytes()).toString('utf8');
        const version = (await text('SELECT version()')).trim();
        const tableFunctions = (await text('SELECT name FROM system.table_functions ORDER BY name'))
          .split('\n')
          .filter(Boolean);
        return { version, tableFunctions };
      } finally {
        this.#release('system', session, true);
      }
    })();
    return this.#info;
  }

  async #lease(database: string): Promise<Session> {
    if (!isIdentifier(database)) throw new QueryRefused(81, 'UNKNOWN_DATABASE', `Database ${database} does not exist`);
    for (;;) {
      if (this.#closed) throw new QueryRefused(210, 'NETWORK_ERROR', 'the endpoint is closing');
      const idle = this.#idle.get(database)?.pop();
      if (idle) return idle;
      if (this.#open < MAX_SESSIONS) break;
      // Another database's idle session makes room; otherwise wait for one to come back.
      const spare = [...this.#idle.values()].find((sessions) => sessions.length > 0)?.pop();
      if (spare) {
        spare.close();
        this.#open--;
        break;
      }
      await new Promise<void>((wake) => this.#waiting.push(wake));
    }
    this.#open++;
    try {
      return await this.#openSession(database);
    } catch (err) {
      this.#open--;
      this.#waiting.shift()?.();
      throw err;
    }
  }

  #release(database: string, session: Session, healthy: boolean): void {
    if (this.#closed || !healthy || !session.open) {
      session.close();
      this.#open--;
    } else {
      const list = this.#idle.get(database) ?? [];
      list.push(session);
      this.#idle.set(database, list);
    }
    this.#waiting.shift()?.();
  }

  async #openSession(database: string): Promise<Session> {
    const { Session } = (await loadChdb()).chdb;
    const session = new Session(this.#path);
    try {
      for (const statement of [
        `USE \`${database}\``,
        'SET output_format_json_quote_64bit_integers = 1', // ClickHouse server's default; chDB's is 0
        "SET session_timezone = 'UTC'", // what X-ClickHouse-Timezone says; clients ask timeZone() too
        'SET readonly = 2',
      ]) {
        await session.queryAsync(statement, { format: 'TSV' });
      }
      return session;
    } catch (err) {
      session.close();
      throw err;
    }
  }
}
