import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { busRecord, rows, temporaryDataDir } from './warehouse-fixtures.ts';

// Migration 0170 renames the account's histories (orders → order_observations, positions →
// position_observations) on a warehouse that already holds rows: nothing lost, the latest views
// and the materialized view behind orders_latest go on, the old names read as before.

const T = Date.UTC(2026, 2, 2, 12, 0, 0);

describe('migration 0170: history and latest names', () => {
  const dir = temporaryDataDir();
  let warehouse: EmbeddedWarehouse;
  const read = (query: string) => rows(warehouse.client, query);
  const order = (status: string, observedAt: number, offset: number) => ({
    account: 'acct',
    order_id: 'ord-1',
    status,
    token_id: 'tok',
    side: 'BUY',
    type: 'LIMIT',
    price_micro: 450_000n,
    original_size_micro: 10_000_000n,
    source: 'rest:orders/list',
    observed_at: observedAt,
    ...busRecord(offset, 'sync.orders'),
  });
  const positionRead = async (table: string, asOf: number, offset: number, token: string) => {
    const record = busRecord(offset, 'portfolio');
    await warehouse.insertRows('position_snapshots', [
      {
        account: 'acct',
        as_of: asOf,
        position_count: 1,
        change_count: 1,
        anchor: true,
        source: 'sse:portfolio.sync',
        ...record,
      },
    ]);
    await warehouse.insertRows(table, [
      {
        account: 'acct',
        as_of: asOf,
        token_id: token,
        condition_id: 'c',
        shares_micro: 2_000_000n,
        source: 'sse:portfolio.sync',
        ...record,
        _index: 1,
      },
    ]);
  };

  beforeAll(async () => {
    warehouse = await openEmbeddedWarehouse(dir.dataDir);
    await migrate(
      warehouse.client,
      loadMigrations().filter((m) => m.version < 170),
    );
    await warehouse.insertRows('orders', [order('PENDING', T, 1)]);
    await positionRead('positions', T, 2, 'tok-before');
    await migrate(warehouse.client, loadMigrations());
  }, 120_000);
  afterAll(async () => {
    await warehouse?.close();
    dir.remove();
  });

  it('keeps the rows stored before it under the new names, and the old names as views of them', async () => {
    const engines = await read(
      "SELECT name, engine FROM system.tables WHERE database = 'tapehouse' AND name IN ('orders', 'order_observations', 'positions', 'position_observations') ORDER BY name",
    );
    expect(engines).toEqual([
      { name: 'order_observations', engine: 'MergeTree' },
      { name: 'orders', engine: 'View' },
      { name: 'position_observations', engine: 'MergeTree' },
      { name: 'positions', engine: 'View' },
    ]);
    expect(await read('SELECT order_id, status FROM tapehouse.order_observations')).toEqual([
      { order_id: 'ord-1', status: 'PENDING' },
    ]);
    expect(await read('SELECT order_id, status FROM tapehouse.orders')).toEqual([
      { order_id: 'ord-1', status: 'PENDING' },
    ]);
    expect(await read('SELECT token_id FROM tapehouse.positions')).toEqual([{ token_id: 'tok-before' }]);
    expect(await read('SELECT token_id FROM tapehouse.positions_latest')).toEqual([{ token_id: 'tok-before' }]);
  });

  it('feeds orders_latest and positions_latest from rows written to the new tables', async () => {
    await warehouse.insertRows('order_observations', [order('MATCHED', T + 1_000, 3)]);
    expect(await read('SELECT status FROM tapehouse.orders_latest')).toEqual([{ status: 'MATCHED' }]);
    await positionRead('position_observations', T + 1_000, 4, 'tok-after');
    expect(await read('SELECT token_id FROM tapehouse.positions_latest')).toEqual([{ token_id: 'tok-after' }]);
    expect(await read('SELECT count() AS n FROM tapehouse.orders')).toEqual([{ n: '2' }]);
  });

  it('does nothing when applied again', async () => {
    await migrate(warehouse.client, loadMigrations());
    expect(await read('SELECT count() AS n FROM tapehouse.order_observations')).toEqual([{ n: '2' }]);
    expect(await read('SELECT status FROM tapehouse.orders_latest')).toEqual([{ status: 'MATCHED' }]);
  });
});
