import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertClientHonoursConnection,
  compareVersions,
  installedClientVersion,
} from '../src/warehouse/embedded/client-version.ts';
import { endpointFileOf, readEndpointFile } from '../src/warehouse/embedded/endpoint-file.ts';
import { PerCallSettingsRefused } from '../src/warehouse/embedded/settings-guard.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { migrate } from '../src/warehouse/schema/migrations.ts';
import { busRecord, rows, temporaryDataDir } from './warehouse-fixtures.ts';

// Each guard against a chDB trap listed in DEVELOPERS.md, shown by what a user would notice.

function trade(offset: number, overrides: Record<string, unknown> = {}) {
  return {
    token_id: 'tok-guard',
    trade_id: `t${offset}`,
    side: 'BUY',
    price_micro: 400_000n,
    shares_micro: 2_000_000n,
    executed_at: '2024-05-01T12:00:00.000Z',
    ...busRecord(offset),
    ...overrides,
  };
}

describe('chDB traps are guarded', () => {
  const dir = temporaryDataDir();
  let warehouse: EmbeddedWarehouse;

  beforeAll(async () => {
    // A file left behind by a killed owner: opening the directory proves it stale and removes it.
    writeFileSync(
      endpointFileOf(dir.dataDir),
      JSON.stringify({ url: 'http://127.0.0.1:9', pid: 2 ** 22 + 1, started_at: '' }),
    );
    warehouse = await openEmbeddedWarehouse(dir.dataDir);
    await migrate(warehouse.client);
  });

  afterAll(async () => {
    await warehouse.close();
    dir.remove();
  });

  it('removes a stale endpoint.json when it opens the data directory', () => {
    expect(readEndpointFile(dir.dataDir)).toBeUndefined();
  });

  it('refuses @clickhouse/client older than 1.23, which ignores `connection` and dials localhost:8123', () => {
    expect(() => assertClientHonoursConnection('1.22.0')).toThrow(/1\.22\.0 is too old for chDB.*localhost:8123/);
    expect(() => assertClientHonoursConnection('1.23.0-head.b25cda1.1')).toThrow(/too old/);
    expect(() => assertClientHonoursConnection(installedClientVersion())).not.toThrow();
    expect(compareVersions(installedClientVersion(), '1.23.0')).toBeGreaterThanOrEqual(0);
    expect(compareVersions('1.23.10', '1.23.9')).toBe(1);
  });

  it('refuses per-call clickhouse_settings on chDB, which would stick to the session', async () => {
    const attempt = warehouse.client.query({ query: 'SELECT 1', clickhouse_settings: { max_threads: 1 } });
    await expect(attempt).rejects.toBeInstanceOf(PerCallSettingsRefused);
    await expect(
      warehouse.client.insert({
        table: 'tapehouse.trades',
        values: [
          {
            token_id: 'tok-guard',
            side: 'BUY',
            price_micro: '1',
            shares_micro: '1',
            executed_at: '2024-05-01 00:00:00',
            ...busRecord(99),
          },
        ],
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplication_token: 'x' },
      }),
    ).rejects.toThrow(/insert_deduplication_token.*SQL SETTINGS clause/);
    const [stored] = await rows<{ n: string }>(
      warehouse.client,
      'SELECT count() AS n FROM tapehouse.trades WHERE _offset = 99',
    );
    expect(stored?.n).toBe('0');
  });

  it("keeps an insert's dedup token to that insert: the next insert lands", async () => {
    await warehouse.insertRows('trades', [trade(1)], { dedupToken: 'leak-check' });
    await warehouse.insertRows('trades', [trade(2)]); // no token: must not inherit 'leak-check'
    await warehouse.insertRows('trades', [trade(3)], { dedupToken: 'leak-check-2' });
    const landed = await rows<{ _offset: string }>(
      warehouse.client,
      "SELECT _offset FROM tapehouse.trades WHERE token_id = 'tok-guard' AND _offset <= 3 ORDER BY _offset",
    );
    expect(landed.map((r) => Number(r._offset))).toEqual([1, 2, 3]);
    const [session] = await rows<{ token: string }>(
      warehouse.client,
      "SELECT getSetting('insert_deduplication_token') AS token",
    );
    expect(session?.token).toBe('');
  });

  it('round-trips 64-bit integers above 2^53 exactly in JSON output', async () => {
    const big = [9_007_199_254_740_993n, 9_223_372_036_854_775_807n];
    await warehouse.insertRows('trades', [
      trade(10, { token_id: 'tok-big', shares_micro: big[0], price_micro: 1n }),
      trade(11, { token_id: 'tok-big', shares_micro: big[1], price_micro: 1n }),
    ]);
    const back = await rows<{ shares_micro: string }>(
      warehouse.client,
      "SELECT shares_micro FROM tapehouse.trades WHERE token_id = 'tok-big' ORDER BY _offset",
    );
    expect(back.map((r) => r.shares_micro)).toEqual(big.map(String));
  });

  it('lands a block inserted twice with the same dedup token once, in the table and in its materialized views', async () => {
    const batch = [trade(20, { token_id: 'tok-dedup' }), trade(21, { token_id: 'tok-dedup', price_micro: 410_000n })];
    await warehouse.insertRows('trades', batch, { dedupToken: 'test.records/0/20-21' });
    await warehouse.insertRows('trades', batch, { dedupToken: 'test.records/0/20-21' }); // a loader's retry
    const [count] = await rows<{ n: string }>(
      warehouse.client,
      "SELECT count() AS n FROM tapehouse.trades WHERE token_id = 'tok-dedup'",
    );
    expect(count?.n).toBe('2');
    const [candle] = await rows<{ trade_count: string; volume_shares_micro: string }>(
      warehouse.client,
      "SELECT trade_count, volume_shares_micro FROM tapehouse.candles_1m WHERE token_id = 'tok-dedup'",
    );
    expect(candle).toEqual({ trade_count: '2', volume_shares_micro: '4000000' });
  });

  it('relies on non_replicated_deduplication_window for that: every table the loaders insert into has one', async () => {
    // Bookkeeping written directly, not by the loaders' deduplicated batches, needs none.
    const missing = await rows<{ name: string }>(
      warehouse.client,
      `SELECT name FROM system.tables
       WHERE database = 'tapehouse' AND engine LIKE '%MergeTree' AND name NOT IN ('loader_offsets', 'bus_coverage', 'sync_checkpoints', 'schema_migrations', 'pipeline_health', 'rederive_requests', 'rederive_progress', 'warehouse_identity', 'loader_groups')
         AND NOT match(create_table_query, 'non_replicated_deduplication_window = [1-9]')`,
    );
    expect(missing).toEqual([]);
  });
});
