import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsStoredTwice } from './faults/stored-twice.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * The fault suite's judge of "nothing doubled" (test/faults/stored-twice.ts), checked on a
 * warehouse with rows planted twice: it must name what it is there to find, or a suite that
 * reports "0 rows twice" proves nothing.
 */
let t: TestWarehouse;

beforeAll(async () => {
  t = await migratedWarehouse();
}, 60_000);

afterAll(async () => {
  await t?.cleanup();
});

const trade = (offset: number, receivedAt: string, tradeId: string): string =>
  `('tok-1', 'T-${tradeId}', 'buy', 500000, 1000000, '2025-01-06 12:00:00.000', 'fault.trades', 0, ${offset}, 0, '${receivedAt}')`;

const insertTrades = (values: string[]): Promise<unknown> =>
  t.warehouse.client.command({
    query: `INSERT INTO tapehouse.trades (token_id, trade_id, side, price_micro, shares_micro, executed_at, _topic, _partition, _offset, _index, _received_at) VALUES ${values.join(', ')}`,
  });

describe('the fault suite’s check for rows stored twice', () => {
  it('reports nothing on a warehouse where every bus position is stored once, an epoch’s reused offset included', async () => {
    await insertTrades([trade(1, '2025-01-06 12:00:00.100000', 'a'), trade(2, '2025-01-06 12:00:00.200000', 'b')]);
    // The embedded bus starts its offsets over in a new epoch: the same offset, received later, is another record.
    await insertTrades([trade(1, '2025-01-06 13:00:00.100000', 'c')]);
    const found = await rowsStoredTwice((sql) => rows(t.warehouse.client, sql));
    expect(found.duplicateRows.trades).toBe(0);
    expect(Object.keys(found.duplicateRows)).toEqual(expect.arrayContaining(['trades', 'quotes', 'orders_by_source']));
    expect(Object.values(found.duplicateRows).every((n) => n === 0)).toBe(true);
    expect(found.duplicateExamples).toEqual([]);
  });

  it('names the table and the row of a record stored twice by two inserts, with the parts holding it', async () => {
    await insertTrades([trade(5, '2025-01-06 12:00:00.500000', 'e')]);
    // A second insert carrying the same record among others: not a block the deduplication window drops.
    await insertTrades([trade(5, '2025-01-06 12:00:00.500000', 'e'), trade(6, '2025-01-06 12:00:00.600000', 'f')]);
    const found = await rowsStoredTwice((sql) => rows(t.warehouse.client, sql));
    expect(found.duplicateRows.trades).toBe(1);
    expect(found.duplicateExamples).toHaveLength(1);
    expect(found.duplicateExamples[0]).toMatch(
      /^trades: fault\.trades\[0\]@5#0 received 2025-01-06 12:00:00\.500000, 2 copies in \S+, \S+$/,
    );
  });
});
