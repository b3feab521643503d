import { rmSync } from 'node:fs';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ChdbConnection } from 'chdb/connection';
import { endpointFileOf, loadChdb, openChdbSession } from './embedded/index.ts';
import {
  chdbTransport,
  httpTransport,
  RowInserter,
  type InsertOptions,
  type InsertTransport,
  type InsertSummary,
  type PreparedInsert,
  type InsertRow,
} from './insert/index.ts';
import type { ChdbTarget, ServerTarget, WarehouseTarget } from './target.ts';

/** An open warehouse: chDB in this process, or a ClickHouse server. */
export interface Warehouse {
  readonly target: WarehouseTarget;
  /** For reads and DDL. On chDB it refuses per-call clickhouse_settings (they would stick to the session). */
  readonly client: ClickHouseClient;
  /** The loaders' insert path; see insert/insert-rows.ts. */
  insertRows(table: string, rows: readonly InsertRow[], options?: InsertOptions): Promise<InsertSummary>;
  /** The same in two steps, so the next batch can be encoded while one is being inserted. */
  prepareInsert(table: string, rows: readonly InsertRow[], options?: InsertOptions): Promise<PreparedInsert>;
  /** Forget cached table columns (after migrations). */
  forgetSchemas(): void;
  /**
   * The same warehouse on a connection of its own, for work that must not wait behind this one's
   * queries: chDB runs one query at a time per session, and sessions on one data directory run in
   * parallel. A server's client already sends requests side by side, so a server warehouse answers
   * with itself (and its close() is then a no-op). Closed by its own close(), or else with this one.
   */
  ownSession(): Promise<Warehouse>;
  close(): Promise<void>;
}

export interface EmbeddedWarehouse extends Warehouse {
  readonly target: ChdbTarget;
  readonly connection: ChdbConnection;
}

export async function openWarehouse(target: WarehouseTarget): Promise<Warehouse> {
  return target.kind === 'chdb' ? openEmbeddedWarehouse(target.dataDir) : openServerWarehouse(target);
}

/** Opens chDB on a data directory this process then owns (see DataDirectoryBusy). */
export async function openEmbeddedWarehouse(dataDir: string): Promise<EmbeddedWarehouse> {
  const warehouse = await openChdbWarehouse(dataDir);
  // We hold the directory's lock, so an endpoint file left behind (by a killed owner) is stale.
  rmSync(endpointFileOf(dataDir), { force: true });
  return warehouse;
}

async function openChdbWarehouse(dataDir: string): Promise<EmbeddedWarehouse> {
  const { client, connection } = await openChdbSession(dataDir);
  const warehouse = assemble({ kind: 'chdb', dataDir }, client, chdbTransport(connection));
  // The engine lives while any session on its directory is open (its merges go on writing there):
  // closing this warehouse closes the sessions opened from it that are still open, such as those
  // of a loader that never stopped.
  const sessions = new Set<() => Promise<void>>();
  let closing: Promise<void> | undefined;
  const owner: EmbeddedWarehouse = {
    ...warehouse,
    connection,
    async ownSession() {
      const session = await openChdbSession(dataDir);
      const assembled = assemble({ kind: 'chdb', dataDir }, session.client, chdbTransport(session.connection));
      const close = async () => {
        sessions.delete(close);
        await assembled.close();
      };
      sessions.add(close);
      return { ...assembled, ownSession: owner.ownSession, close };
    },
    // A query whose caller gave up (a timeout, a loader's stop deadline) still runs on a libuv
    // thread, and chDB defers the connection's teardown behind it: a process.exit() before it
    // ends tears the engine down under it (a SIGSEGV). Closed means nothing native still runs —
    // the owner's close only: a session's waits for nobody else's queries.
    close: () =>
      (closing ??= (async () => {
        await Promise.all([...sessions].map((close) => close()));
        await warehouse.close();
        await (await loadChdb()).chdb.drainPending();
      })()),
  };
  return owner;
}

export function openServerWarehouse(target: ServerTarget): Warehouse {
  const client = createClient({
    url: target.url,
    ...(target.user === undefined ? {} : { username: target.user }),
    ...(target.password === undefined ? {} : { password: target.password.reveal() }),
    ...(target.tls === undefined ? {} : { tls: tlsOptions(target.tls) }),
    request_timeout: 300_000,
    // Over HTTP, settings are per request (URL parameters) and cannot leak into later queries.
    clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
  });
  const assembled = assemble(target, client, httpTransport(client));
  const warehouse: Warehouse = {
    ...assembled,
    ownSession: async () => ({ ...warehouse, close: async () => undefined }),
  };
  return warehouse;
}

function assemble<Target extends WarehouseTarget>(
  target: Target,
  client: ClickHouseClient,
  transport: InsertTransport,
): Omit<Warehouse, 'ownSession'> & { target: Target } {
  const inserter = new RowInserter(client, transport);
  return {
    target,
    client,
    insertRows: (table, rows, options) => inserter.insertRows(table, rows, options),
    prepareInsert: (table, rows, options) => inserter.prepareInsert(table, rows, options),
    forgetSchemas: () => inserter.forgetSchemas(),
    close: () => client.close(),
  };
}

// clickhouse-js picks mutual TLS when the object *has* cert and key keys, so leave them out unless set.
function tlsOptions(tls: NonNullable<ServerTarget['tls']>) {
  return tls.cert && tls.key ? { ca_cert: tls.caCert, cert: tls.cert, key: tls.key } : { ca_cert: tls.caCert };
}
