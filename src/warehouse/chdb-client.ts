import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';

/**
 * Settings every warehouse session needs. 64-bit integers must come back quoted, or JSON formats
 * return them as lossy doubles (a `_micro` above 2^53 would silently change).
 */
export const SESSION_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
};

/**
 * `@clickhouse/client` on chDB (ClickHouse in-process) over the data directory `path`.
 * Needs @clickhouse/client ≥ 1.23 (1.22 ignores `connection` and dials localhost:8123).
 * chDB allows one process per data directory: a second open fails on a lock.
 */
export function createChdbClient(path: string): ClickHouseClient {
  // chdb types its connection against the deprecated @clickhouse/client-common; the runtime
  // contract is the one @clickhouse/client ≥ 1.23 expects, so the cast is confined here.
  const connection = createChdbConnection({ path }) as unknown as NonNullable<
    Parameters<typeof createClient>[0]
  >['connection'];
  return createClient({ connection, clickhouse_settings: SESSION_SETTINGS });
}
