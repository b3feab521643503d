import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { DataDirectoryBusy } from './data-dir.ts';
import { DATABASE } from './database.ts';
import { liveEndpoint } from './endpoint-file.ts';
import { describeTarget, type WarehouseTarget } from './target.ts';
import { openEmbeddedWarehouse, openServerWarehouse } from './warehouse.ts';

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

/**
 * Opens the data directory when no one else holds it (and then writes are allowed, as in
 * clickhouse-local); when another process owns it, goes through the read-only endpoint that
 * process publishes in endpoint.json. Unqualified table names resolve in `tapehouse` once it exists.
 */
export async function openQueryRunner(target: WarehouseTarget): Promise<QueryRunner> {
  if (target.kind === 'server') {
    const warehouse = openServerWarehouse(target);
    return runnerOver(warehouse.client, describeTarget(target), await hasTapehouseDatabase(warehouse.client));
  }
  try {
    const warehouse = await openEmbeddedWarehouse(target.dataDir);
    const useTapehouse = await hasTapehouseDatabase(warehouse.client);
    if (useTapehouse) await warehouse.client.command({ query: `USE ${DATABASE}` });
    return runnerOver(warehouse.client, describeTarget(target), false);
  } catch (err) {
    if (!(err instanceof DataDirectoryBusy)) throw err;
    const endpoint = await liveEndpoint(target.dataDir);
    if (!endpoint) throw new DataDirectoryBusy(target.dataDir, undefined);
    const client = createClient({ url: endpoint.url, request_timeout: 300_000, log: { level: ClickHouseLogLevel.OFF } });
    return runnerOver(client, `the endpoint ${endpoint.url} of process ${endpoint.pid}`, await hasTapehouseDatabase(client));
  }
}

async function hasTapehouseDatabase(client: ClickHouseClient): Promise<boolean> {
  const result = await client.query({
    query: `SELECT count() AS n FROM system.databases WHERE name = '${DATABASE}'`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string | number }>();
  return Number(row?.n ?? 0) > 0;
}

/** `databaseParam`: send database=tapehouse with each query (HTTP has no session to USE it in). */
function runnerOver(client: ClickHouseClient, via: string, databaseParam: boolean): QueryRunner {
  return {
    via,
    async run(statement, defaultFormat, params) {
      // Over HTTP these travel as URL parameters (`database` is one the HTTP interface reads);
      // on chDB default_format is an output option, not a SET.
      const settings: Record<string, string> = { default_format: defaultFormat };
      if (databaseParam) settings.database = DATABASE;
      const result = await client.exec({ query: statement, clickhouse_settings: settings, query_params: params });
      const chunks: Buffer[] = [];
      for await (const chunk of result.stream) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    },
    close: () => client.close(),
  };
}
