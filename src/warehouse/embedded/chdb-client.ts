import { mkdirSync } from 'node:fs';
import type { ClickHouseClient, createClient } from '@clickhouse/client';
import type { ChdbConnection } from 'chdb/connection';
import { loadChdb } from './chdb-library.ts';
import { assertClientHonoursConnection } from './client-version.ts';
import { chdbPathOf, DataDirectoryBusy, dataDirectoryHolder } from './data-dir.ts';
import { readEndpointFile } from './endpoint-file.ts';
import { SettingsGuardedConnection } from './settings-guard.ts';

/**
 * Session settings every chDB session needs, applied once with SET when it opens (on chDB a SET
 * lasts for the session, which is what we want here and nowhere else). 64-bit integers must come
 * back quoted, or JSON formats return them as lossy doubles (a `_micro` above 2^53 would change).
 */
export const CHDB_SESSION_SETTINGS = ['SET output_format_json_quote_64bit_integers = 1'];

export interface ChdbSession {
  /** @clickhouse/client over chDB; refuses per-call clickhouse_settings (see settings-guard.ts). */
  client: ClickHouseClient;
  /** The raw connection, for chDB's zero-copy insert. */
  connection: ChdbConnection;
}

/**
 * Opens chDB on `<dataDir>/clickhouse` through @clickhouse/client. Fails with DataDirectoryBusy
 * (naming the directory and the owner's endpoint) when another process holds it.
 */
export async function openChdbSession(dataDir: string): Promise<ChdbSession> {
  assertClientHonoursConnection();
  const path = chdbPathOf(dataDir);
  mkdirSync(path, { recursive: true });
  // Name the holder's endpoint only if the file is the holder's (not one left by a killed owner).
  const busy = (holder: number) => {
    const endpoint = readEndpointFile(dataDir);
    return new DataDirectoryBusy(dataDir, endpoint?.pid === holder ? endpoint : undefined);
  };
  const holder = dataDirectoryHolder(dataDir);
  if (holder !== undefined) throw busy(holder);
  const { createChdbConnection } = (await loadChdb()).connection;
  let connection: ChdbConnection;
  try {
    connection = createChdbConnection({ path });
  } catch (err) {
    const raced = dataDirectoryHolder(dataDir); // another process took the lock first
    if (raced !== undefined) throw busy(raced);
    throw err;
  }
  // chdb types its connection against the deprecated @clickhouse/client-common; the runtime
  // contract is the one @clickhouse/client ≥ 1.23 expects, so the cast is confined here.
  const guarded = new SettingsGuardedConnection(connection) as unknown as NonNullable<
    Parameters<typeof createClient>[0]
  >['connection'];
  // Loaded here, not with the module: a command that only reads a job's endpoint never needs it.
  const { createClient: clientOver } = await import('@clickhouse/client');
  const client = clientOver({ connection: guarded });
  try {
    for (const statement of CHDB_SESSION_SETTINGS) await client.command({ query: statement });
  } catch (err) {
    await client.close();
    throw err;
  }
  return { client, connection };
}
