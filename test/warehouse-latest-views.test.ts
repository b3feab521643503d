import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsertRow } from '../src/warehouse/insert/row-encoder.ts';
import { busRecord, migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

// Every *_latest view, one test each (issue 22, point 5): a view of a table fed by several sources
// merges field by field (a row lacking a field never erases what another source gave), a view of
// a table fed by one source serves that source's newest row whole. Rows are inserted newest first,
// so insert order cannot be what decides. positions_latest and loader_offsets_latest are tested in
// warehouse-views.test.ts, sync_checkpoints_latest in sync-checkpoints.test.ts.

const T = Date.UTC(2026, 2, 2, 12, 0, 0);

describe('latest views', () => {
  let w: TestWarehouse;
  let offset = 0;
  beforeAll(async () => {
    w = await migratedWarehouse();
  }, 60_000);
  afterAll(async () => {
    await w?.cleanup();
  });

  /** Inserts each row on its own, in the order given (as separate loader rounds would). */
  const insert = async (table: string, list: InsertRow[]) => {
    for (const row of list) await w.warehouse.insertRows(table, [{ ...busRecord(++offset, `test.${table}`), ...row }]);
  };
  const read = (query: string) => rows(w.warehouse.client, query);

  it('orders_latest: the cancel reason of the account stream survives a newer REST read, which has none', async () => {
    const order = {
      account: 'acct',
      order_id: 'ord-1',
      token_id: 'tok',
      side: 'BUY',
      type: 'LIMIT',
      price_micro: 450_000n,
      original_size_micro: 10_000_000n,
    };
    await insert('order_observations', [
      { ...order, status: 'CANCELLED', source: 'rest:orders/list', observed_at: T + 5_000 },
      {
        ...order,
        status: 'CANCELLED',
        cancel_reason: 'SELF_TRADE_PREVENTION',
        source: 'ws:order_cancelled',
        observed_at: T + 1_000,
      },
      { ...order, status: 'PENDING', source: 'rest:orders/list', observed_at: T },
    ]);
    expect(
      await read(
        "SELECT status, cancel_reason, source, price_micro FROM tapehouse.orders_latest WHERE order_id = 'ord-1'",
      ),
    ).toEqual([
      {
        status: 'CANCELLED',
        cancel_reason: 'SELF_TRADE_PREVENTION',
        source: 'rest:orders/list',
        price_micro: '450000',
      },
    ]);
    expect(await read("SELECT count() AS n FROM tapehouse.order_observations WHERE order_id = 'ord-1'")).toEqual([
      { n: '3' },
    ]); // history kept whole
  });

  it('orders_latest: at the same instant the REST read outranks a stream frame; a field only the frame has still shows', async () => {
    const order = { account: 'acct', order_id: 'ord-2', token_id: 'tok', observed_at: T };
    await insert('order_observations', [
      { ...order, status: 'CANCELLED', cancel_reason: 'USER', source: 'ws:order_cancelled' },
      { ...order, status: 'MATCHED', size_matched_micro: 5n, source: 'rest:orders/list' },
    ]);
    expect(
      await read(
        "SELECT status, size_matched_micro, cancel_reason FROM tapehouse.orders_latest WHERE order_id = 'ord-2'",
      ),
    ).toEqual([{ status: 'MATCHED', size_matched_micro: '5', cancel_reason: 'USER' }]);
  });

  it('fills_latest (and fills): the settlement status of a newer REST read with the role and hash only the stream gave', async () => {
    const fill = {
      account: 'acct',
      fill_id: 'f-1',
      token_id: 'tok',
      side: 'BUY',
      price_micro: 400_000n,
      shares_micro: 2_000_000n,
      executed_at: T,
    };
    await insert('fill_observations', [
      { ...fill, status: 'CONFIRMED', source: 'rest:portfolio/trades', observed_at: T + 60_000 },
      {
        ...fill,
        status: 'MATCHED',
        role: 'MAKER',
        transaction_hash: '0xabc',
        fee_micro: 3n,
        source: 'ws:fill',
        observed_at: T,
      },
    ]);
    const expected = [{ status: 'CONFIRMED', role: 'MAKER', transaction_hash: '0xabc', notional_micro: '800000' }];
    expect(
      await read(
        "SELECT status, role, transaction_hash, notional_micro FROM tapehouse.fills_latest WHERE fill_id = 'f-1'",
      ),
    ).toEqual(expected);
    expect(
      await read(
        "SELECT status, role, transaction_hash, notional_micro FROM tapehouse.fills_latest WHERE fill_id = 'f-1'",
      ),
    ).toEqual(expected);
  });

  it('portfolio_summaries_latest: the newest figures, and the accounting status only the REST read gives', async () => {
    const summary = { account: 'acct', exchange: 'ex-1' };
    await insert('portfolio_summaries', [
      { ...summary, as_of: T + 2_000, cash_balance_micro: 7n, source: 'sse:portfolio.sync' },
      { ...summary, as_of: T, cash_balance_micro: 5n, accounting_status: 'SETTLED', source: 'rest:portfolio/summary' },
    ]);
    expect(
      await read(
        "SELECT cash_balance_micro, accounting_status, source FROM tapehouse.portfolio_summaries_latest WHERE exchange = 'ex-1'",
      ),
    ).toEqual([{ cash_balance_micro: '7', accounting_status: 'SETTLED', source: 'sse:portfolio.sync' }]);
  });

  it('events_latest: a newer list read keeps the market ids the detail read gave; at one instant the detail read wins', async () => {
    await insert('events', [
      { event_id: 'ev-9', slug: 'ev-9', title: 'Renamed', is_detail: false, observed_at: T + 10_000 },
      { event_id: 'ev-9', slug: 'ev-9', title: 'Detail', market_ids: ['m-1', 'm-2'], is_detail: true, observed_at: T },
      { event_id: 'ev-8', slug: 'ev-8', title: 'From the list', is_detail: false, observed_at: T },
      { event_id: 'ev-8', slug: 'ev-8', title: 'From the detail', is_detail: true, observed_at: T },
    ]);
    expect(
      await read(
        "SELECT event_id, title, market_ids FROM tapehouse.events_latest WHERE event_id IN ('ev-8', 'ev-9') ORDER BY event_id",
      ),
    ).toEqual([
      { event_id: 'ev-8', title: 'From the detail', market_ids: [] },
      { event_id: 'ev-9', title: 'Renamed', market_ids: ['m-1', 'm-2'] },
    ]);
  });

  // Tables of one source: the source's newest read is what the venue says now, whole (a field it
  // no longer sends is gone, not filled in from an older read).
  const singleSource: Array<{
    view: string;
    table: string;
    key: InsertRow;
    time: string;
    older: InsertRow;
    newer: InsertRow;
    field: string;
  }> = [
    {
      view: 'markets_latest',
      table: 'markets',
      key: { market_id: 'mkt-9' },
      time: 'observed_at',
      older: { halted_reason: 'maintenance' },
      newer: { halted_reason: '' },
      field: 'halted_reason',
    },
    {
      view: 'outcomes_latest',
      table: 'outcomes',
      key: { token_id: 'tok-9' },
      time: 'observed_at',
      older: { best_bid_micro: 10n },
      newer: { best_bid_micro: null },
      field: 'best_bid_micro',
    },
    {
      view: 'activities_latest',
      table: 'activity_observations',
      key: { account: 'acct', activity_id: 'act-9', created_at: T },
      time: 'observed_at',
      older: { status: 'OPEN' },
      newer: { status: '' },
      field: 'status',
    },
    {
      view: 'pnl_settled_latest',
      table: 'pnl_settled',
      key: { account: 'acct', bucket_at: T },
      time: 'observed_at',
      older: { mark_run_id: 'run-1' },
      newer: { mark_run_id: '' },
      field: 'mark_run_id',
    },
    {
      view: 'lp_incentives_latest',
      table: 'lp_incentives',
      key: { account: 'acct', epoch_date: '2026-03-02', market_id: 'mkt-9' },
      time: 'observed_at',
      older: { phase: 'ACTIVE' },
      newer: { phase: '' },
      field: 'phase',
    },
    {
      view: 'rebates_latest',
      table: 'rebates',
      key: { account: 'acct-9' },
      time: 'observed_at',
      older: { total_micro: 4n },
      newer: { total_micro: 0n },
      field: 'total_micro',
    },
  ];
  for (const c of singleSource) {
    it(`${c.view}: one source, so its newest read stands whole`, async () => {
      await insert(c.table, [
        { ...c.key, ...c.newer, [c.time]: T + 1_000 },
        { ...c.key, ...c.older, [c.time]: T },
      ]);
      const where = Object.entries(c.key)
        .filter(([, v]) => typeof v === 'string')
        .map(([k, v]) => `${k} = '${String(v)}'`)
        .join(' AND ');
      const newer = c.newer[c.field];
      expect(await read(`SELECT ${c.field} AS v FROM tapehouse.${c.view} WHERE ${where}`)).toEqual([
        { v: typeof newer === 'bigint' ? String(newer) : newer },
      ]);
    });
  }
});
