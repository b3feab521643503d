import type { ClickHouseClient } from '@clickhouse/client';
import {
  chdbPathOf,
  dataDirectoryHolder,
  DataDirectoryBusy,
  liveEndpoint,
  namedEndpoint,
  requireWarehouse,
  type EndpointInfo,
} from './embedded/index.ts';
import { DATABASE } from './database.ts';
import { describeTarget, type WarehouseTarget } from './target.ts';
import type { EmbeddedWarehouse } from './warehouse.ts';

// @clickhouse/client, chDB's sessions and the warehouse are loaded where a path needs them: a
// read through a running job's endpoint (tapehouse sql, status, book) needs none but the client.

/** Somewhere to run ad-hoc SQL: the data directory itself, its owner's endpoint, or a server. */
export interface QueryRunner {
  /** Human description of the path taken, e.g. "chDB on ./data". */
  readonly via: string;
  /**
   * Runs one statement; `defaultFormat` applies unless the statement names its own FORMAT.
   * `params` fill the statement's `{name:Type}` placeholders server-side: values from a user
   * never become SQL text.
   */
  run(statement: string, defaultFormat: string, params?: Readonly<Record<string, string>>): Promise<Buffer>;
  close(): Promise<void>;
}

export interface QueryAccess {
  /**
   * Let statements write (INSERT, DDL, …). Off by default: the warehouse is written by the job and
   * by `tapehouse migrate`; a stray `DROP TABLE` through an ad-hoc query must not break it. Only
   * possible on a data directory no job holds, or a server.
   */
  allowWrites?: boolean;
  /** Told once when the directory's holder serves no endpoint yet (a job starting up) and we wait for it. */
  onWaiting?: (pid: number) => void;
  /** How long to wait for that endpoint (default 30 s). */
  waitMs?: number;
}

/**
 * Opens the data directory when no one else holds it; when another process owns it, goes through
 * the read-only endpoint that process publishes in endpoint.json. Either way statements run
 * read-only (ClickHouse's readonly = 2: no INSERT, no DDL, no SYSTEM) unless `allowWrites`.
 * Unqualified table names resolve in `tapehouse` once it exists.
 */
export async function openQueryRunner(target: WarehouseTarget, access: QueryAccess = {}): Promise<QueryRunner> {
  if (target.kind === 'chdb' && !access.allowWrites) {
    // The file naming a live process is taken at its word: the first statement is the first
    // request to the job (no /ping, no database check: the job serves once its schema is up).
    // An endpoint that does not take the connection is looked for as before.
    requireWarehouse(target.dataDir);
    const named = namedEndpoint(target.dataDir);
    if (named) return endpointRunner(named, () => openAnyQueryRunner(target, access));
  }
  return openAnyQueryRunner(target, access);
}

async function openAnyQueryRunner(target: WarehouseTarget, access: QueryAccess): Promise<QueryRunner> {
  const { openEmbeddedWarehouse, openServerWarehouse } = await import('./warehouse.ts');
  if (target.kind === 'server') {
    const warehouse = openServerWarehouse(target);
    return runnerOver(
      warehouse.client,
      describeTarget(target),
      await hasTapehouseDatabase(warehouse.client),
      !access.allowWrites,
    );
  }
  // A read creates nothing: a directory without a warehouse is refused before chDB loads.
  if (!access.allowWrites) requireWarehouse(target.dataDir);
  // A job holding the directory is read through its endpoint, found before chDB loads (seconds).
  let endpoint = await holderEndpoint(target.dataDir, access);
  let warehouse: EmbeddedWarehouse | undefined;
  if (!endpoint) {
    try {
      warehouse = await openEmbeddedWarehouse(target.dataDir);
    } catch (err) {
      if (!(err instanceof DataDirectoryBusy)) throw err;
      endpoint = await holderEndpoint(target.dataDir, access);
      if (!endpoint) throw err;
    }
  }
  if (endpoint) {
    if (access.allowWrites)
      throw new WritesRefused(
        `${target.dataDir} is held by process ${endpoint.pid} (a running job), whose endpoint is read-only: stop it first to write`,
      );
    const client = await endpointClient(endpoint);
    return runnerOver(client, endpointVia(endpoint), await hasTapehouseDatabase(client), false);
  }
  if (!warehouse) throw new DataDirectoryBusy(target.dataDir, undefined); // not reached: one of the two is set
  const database = (await hasTapehouseDatabase(warehouse.client)) ? DATABASE : 'default';
  if (access.allowWrites) {
    await warehouse.client.command({ query: `USE ${database}` });
    return runnerOver(warehouse.client, describeTarget(target), false, false);
  }
  // Read-only sessions of this process on the directory it now holds, as the endpoint serves them.
  const { ChdbReadSessions, statementFormat } = await import('./endpoint/index.ts');
  const readers = new ChdbReadSessions(chdbPathOf(target.dataDir));
  return {
    via: describeTarget(target),
    async run(statement, defaultFormat, params) {
      const format = statementFormat(statement) ?? defaultFormat;
      const chunks: Buffer[] = [];
      for await (const chunk of readers.stream({ sql: statement, database, format, queryParams: params ?? {} }))
        chunks.push(chunk.data);
      return Buffer.concat(chunks);
    },
    async close() {
      await readers.close();
      await warehouse.close();
    },
  };
}

async function endpointClient(endpoint: EndpointInfo): Promise<ClickHouseClient> {
  const { ClickHouseLogLevel, createClient } = await import('@clickhouse/client');
  return createClient({ url: endpoint.url, request_timeout: 300_000, log: { level: ClickHouseLogLevel.OFF } });
}

function endpointVia(endpoint: EndpointInfo): string {
  return `the endpoint ${endpoint.url} of process ${endpoint.pid}`;
}

/**
 * Statements through the endpoint `named` names, with database=tapehouse (asked without it once
 * the endpoint does not know that database). Until a first answer, an endpoint that refuses the
 * connection (a file a crashed job left, its process number taken again) hands over to `instead`.
 */
function endpointRunner(named: EndpointInfo, instead: () => Promise<QueryRunner>): QueryRunner {
  let client: ClickHouseClient | undefined;
  let replaced: QueryRunner | undefined;
  let withDatabase = true;
  let answered = false;
  return {
    get via() {
      return replaced?.via ?? endpointVia(named);
    },
    async run(statement, defaultFormat, params) {
      if (replaced) return replaced.run(statement, defaultFormat, params);
      client ??= await endpointClient(named);
      const settings = (): Record<string, string> => ({
        default_format: defaultFormat,
        ...(withDatabase ? { database: DATABASE } : {}),
      });
      try {
        const output = await execute(client, statement, settings(), params);
        answered = true;
        return output;
      } catch (err) {
        if (withDatabase && String((err as { code?: unknown }).code) === UNKNOWN_DATABASE) {
          withDatabase = false;
          return execute(client, statement, settings(), params);
        }
        if (answered || !refusedConnection(err)) throw err;
        await client.close();
        replaced = await instead();
        return replaced.run(statement, defaultFormat, params);
      }
    },
    close: () => (replaced ?? client)?.close() ?? Promise.resolve(),
  };
}

/** ClickHouse's code for a database it does not have. */
const UNKNOWN_DATABASE = '81';

function refusedConnection(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return code === 'ECONNREFUSED' || cause?.code === 'ECONNREFUSED';
}

/** `allowWrites` where writing is not possible (a running job holds the data directory). */
export class WritesRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WritesRefused';
  }
}

/** ClickHouse refused a statement because the session is read-only (code 164, READONLY). */
export function isReadOnlyRefusal(error: unknown): boolean {
  const { code, type, message } = (error ?? {}) as { code?: unknown; type?: unknown; message?: unknown };
  return String(code) === '164' || type === 'READONLY' || /\(READONLY\)|readonly mode/.test(String(message ?? ''));
}

async function hasTapehouseDatabase(client: ClickHouseClient): Promise<boolean> {
  const result = await client.query({
    query: `SELECT count() AS n FROM system.databases WHERE name = '${DATABASE}'`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string | number }>();
  return Number(row?.n ?? 0) > 0;
}

/**
 * `databaseParam`: send database=tapehouse with each query (HTTP has no session to USE it in).
 * `readOnly`: send readonly=2 with each query (a server); a user the server already keeps
 * read-only cannot change that setting, and is asked again without it.
 */
function runnerOver(client: ClickHouseClient, via: string, databaseParam: boolean, readOnly: boolean): QueryRunner {
  let askReadOnly = readOnly;
  return {
    via,
    async run(statement, defaultFormat, params) {
      // Over HTTP these travel as URL parameters (`database` is one the HTTP interface reads);
      // on chDB default_format is an output option, not a SET.
      const settings: Record<string, string> = { default_format: defaultFormat };
      if (databaseParam) settings.database = DATABASE;
      if (askReadOnly) {
        try {
          return await execute(client, statement, { ...settings, readonly: '2' }, params);
        } catch (err) {
          if (!/Cannot modify 'readonly' setting/.test(String((err as Error).message))) throw err;
          askReadOnly = false; // the server keeps this user read-only already
        }
      }
      return execute(client, statement, settings, params);
    },
    close: () => client.close(),
  };
}

async function execute(
  client: ClickHouseClient,
  statement: string,
  settings: Record<string, string>,
  params: Readonly<Record<string, string>> | undefined,
): Promise<Buffer> {
  const result = await client.exec({ query: statement, clickhouse_settings: settings, query_params: params });
  const chunks: Buffer[] = [];
  for await (const chunk of result.stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * The endpoint of the live process holding the data directory. A holder that serves none yet is
 * a job starting up (it holds the directory from the moment chDB opens, and serves once its
 * schema is up to date): wait for its endpoint rather than call it "another process". Undefined
 * when nobody holds the directory; DataDirectoryBusy when the holder serves nothing in time.
 */
async function holderEndpoint(dataDir: string, access: QueryAccess): Promise<EndpointInfo | undefined> {
  const deadline = Date.now() + (access.waitMs ?? 30_000);
  let told = false;
  for (;;) {
    const endpoint = await liveEndpoint(dataDir);
    if (endpoint) return endpoint;
    const holder = dataDirectoryHolder(dataDir);
    if (holder === undefined) return undefined;
    if (Date.now() >= deadline) throw new DataDirectoryBusy(dataDir, undefined);
    if (!told) access.onWaiting?.(holder);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
