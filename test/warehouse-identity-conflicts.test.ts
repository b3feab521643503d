import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRADE_KEY_FIELDS } from '../src/api/trade-key.ts';
import { findConflicts, NATURAL_KEYS, recordConflicts } from '../src/warehouse/identity-conflicts.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * Venue ids seen again with different content that cannot change: two entities under one id. Every
 * row stays; each id becomes one data_quality finding, once. An id seen again with the same content
 * (a re-published record) or with fields one source leaves out (a stream frame without the price)
 * is the same entity.
 */
let store: TestWarehouse;
const T = Date.UTC(2026, 10, 1, 12, 0, 0);
let offset = 0;
const provenance = (receivedMs: number) => ({
  _topic: 'test',
  _partition: 0,
  _offset: offset++,
  _received_at: BigInt(receivedMs) * 1000n,
});

const trade = (id: string, price: number, atMs: number, receivedMs = atMs) => ({
  token_id: 'tok-a',
  condition_id: 'c1',
  trade_id: id,
  side: 'BUY',
  price_micro: price,
  shares_micro: 5_000_000,
  executed_at: new Date(atMs),
  ...provenance(receivedMs),
});
const fill = (id: string, atMs: number, source: string) => ({
  account: 'demo',
  fill_id: id,
  trade_id: `t-${id}`,
  order_id: 'o1',
  token_id: 'tok-a',
  side: 'BUY',
  role: 'TAKER',
  price_micro: 400_000,
  shares_micro: 1_000_000,
  executed_at: new Date(atMs),
  source,
  observed_at: new Date(atMs + 5_000),
  ...provenance(atMs + 5_000),
});
const order = (id: string, createdMs: number, price: number | null, source: string) => ({
  account: 'demo',
  order_id: id,
  status: 'PENDING',
  type: 'LIMIT',
  side: 'BUY',
  token_id: 'tok-a',
  price_micro: price,
  original_size_micro: price === null ? null : 1_000_000,
  created_at: new Date(createdMs),
  source,
  observed_at: new Date(createdMs + 1_000),
  ...provenance(createdMs + 1_000),
});

beforeAll(async () => {
  store = await migratedWarehouse();
  const w = store.warehouse;
  await w.insertRows('trades', [
    trade('t1', 450_000, T),
    trade('t1', 450_000, T), // the same trade twice: one entity
    trade('t2', 450_000, T + 1_000),
    trade('t2', 470_000, T + 60_000, T + 3_600_000), // a restarted venue's t2, an hour later
    trade('t3', 500_000, T + 2_000),
  ]);
  await w.insertRows('fill_observations', [
    fill('f1', T, 'rest:portfolio/trades'),
    fill('f1', T, 'ws:fill'), // one fill, two sources
    fill('f2', T, 'ws:fill'),
    fill('f2', T + 90_000, 'rest:portfolio/trades'), // two executions under one id
  ]);
  await w.insertRows('order_observations', [
    order('o1', T, null, 'ws:order_accepted'),
    order('o1', T, 400_000, 'rest:orders/list'), // a frame without the price: same order
    order('o2', T, 400_000, 'rest:orders/list'),
    order('o2', T + 120_000, 400_000, 'rest:orders/list'), // created twice
  ]);
});

afterAll(() => store?.cleanup());

describe('identity conflicts', () => {
  it('key trades as capture does: public fills by (trade_id, fill_id)', () => {
    expect(NATURAL_KEYS.find((k) => k.table === 'trades')!.key).toEqual([...TRADE_KEY_FIELDS]);
  });

  it('finds the ids that name two entities, per table, with what differs', async () => {
    const found = await Promise.all(NATURAL_KEYS.map((spec) => findConflicts(store.warehouse.client, spec)));
    expect(
      found.map((list) =>
        list.map((c) => ({ key: c.key, variants: c.variants, differing: c.differing, rows: c.rows })),
      ),
    ).toEqual([
      [{ key: { trade_id: 't2' }, variants: 2, differing: ['price_micro', 'executed_at'], rows: 2 }],
      [{ key: { account: 'demo', fill_id: 'f2' }, variants: 2, differing: ['executed_at'], rows: 2 }],
      [{ key: { account: 'demo', order_id: 'o2' }, variants: 2, differing: ['created_at'], rows: 2 }],
    ]);
    expect(found[0]![0]).toMatchObject({ firstAtMs: T + 1_000, tokenIds: ['tok-a'] });
    // Only ids with a row received since: the restarted venue's t2 arrived an hour later.
    expect(
      (await findConflicts(store.warehouse.client, NATURAL_KEYS[0]!, { receivedSinceMs: T + 1_800_000 })).map(
        (c) => c.key,
      ),
    ).toEqual([{ trade_id: 't2' }]);
    expect(await findConflicts(store.warehouse.client, NATURAL_KEYS[0]!, { receivedSinceMs: T + 7_200_000 })).toEqual(
      [],
    );
  });

  it('records each once in data_quality, keeps every row, and records again only when an id names more entities', async () => {
    const first = await recordConflicts(store.warehouse, {}, T + 4_000_000);
    expect(first.recorded).toBe(3);
    const findings = await rows<{ problem: string; stream: string; token_id: string; detail: string }>(
      store.warehouse.client,
      "SELECT problem, stream, token_id, detail FROM tapehouse.data_quality WHERE problem = 'identity_conflict' ORDER BY detail",
    );
    expect(findings.map((f) => f.detail.split(':')[0])).toEqual([
      'fill f2 of account demo names 2 different fills (executed_at differ)',
      'order o2 of account demo names 2 different orders (created_at differ)',
      'trade t2 names 2 different trades (price_micro, executed_at differ)',
    ]);
    expect(findings.every((f) => f.stream === 'warehouse' && f.token_id === 'tok-a')).toBe(true);
    expect((await recordConflicts(store.warehouse, {}, T + 4_100_000)).recorded).toBe(0);

    await store.warehouse.insertRows('trades', [trade('t2', 490_000, T + 120_000, T + 7_200_000)]);
    expect((await recordConflicts(store.warehouse, {}, T + 7_300_000)).recorded).toBe(1);
    expect(
      await rows(store.warehouse.client, "SELECT count() AS n FROM tapehouse.trades WHERE trade_id = 't2'"),
    ).toEqual([{ n: '3' }]);
  });

  it('compares the new trades of a check with the week before them only; a full check sees all', async () => {
    const day = 86_400_000;
    await store.warehouse.insertRows('trades', [
      trade('t5', 450_000, T - 10 * day),
      trade('t5', 480_000, T + 8 * 3_600_000),
    ]);
    const since = T + 7 * 3_600_000;
    expect(
      (await findConflicts(store.warehouse.client, NATURAL_KEYS[0]!, { receivedSinceMs: since })).map(
        (c) => c.key.trade_id,
      ),
    ).toEqual([]);
    expect((await findConflicts(store.warehouse.client, NATURAL_KEYS[0]!)).map((c) => c.key.trade_id)).toEqual([
      't2',
      't5',
    ]);
  });
});
