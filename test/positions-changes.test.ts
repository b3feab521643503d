import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { PositionChain } from '../src/capture/account/position-chain.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import type { Row, TableName } from '../src/load/mapping/types.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * The portfolio stream's positions as changes: capture's chain (anchors and changes), the loader's
 * rows, and the views that put reads back together — against the whole reads they stand for.
 */

const START = Date.UTC(2026, 2, 2, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

interface Position {
  token_id: string;
  shares_micro: string;
  current_price_micro: string;
}

const position = (token: string, shares: number, price = 500_000): Position => ({
  token_id: token,
  shares_micro: String(shares),
  current_price_micro: String(price),
});

/** A `portfolio.sync` event's data as capture makes it a payload. */
function event(seq: number, atMs: number, positions: Position[], unavailable: string[] = [], streamId = 'stream-1') {
  return {
    type: 'portfolio.sync',
    seq: String(seq),
    stream_id: streamId,
    positions: { as_of: iso(atMs), positions, unavailable_exchanges: unavailable },
    summary: { summaries: [{ exchange: 'SERVICE', as_of: iso(atMs), cash_balance_micro: '1000000' }] },
    account: 'demo',
  };
}

/** The reads a portfolio stream sent, in order (at, positions[, unavailable]). */
const READS: Array<[number, Position[], string[]?]> = [
  [0, [position('a', 1), position('b', 2), position('c', 3)]],
  [500, [position('a', 1), position('b', 2), position('c', 3)]], // nothing changed
  [1000, [position('a', 1, 510_000), position('b', 2), position('c', 3)]], // a's mark moved
  [1500, [position('a', 1, 510_000), position('c', 4), position('d', 5)]], // b sold out, c bought more, d new
  [2000, [], ['SERVICE']], // not usable (§2.5): stands for nothing, and ends the chain
  [2500, [position('a', 1, 510_000), position('c', 4), position('d', 5)]], // anchors a new chain
  [3000, [position('a', 1, 510_000), position('d', 6)]],
  [63_000, [position('a', 1, 510_000), position('d', 6)]], // a minute after the chain's anchor: anchors again
  [63_500, [position('d', 6)]],
];

let w: TestWarehouse;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
});

describe('positions stored as changes', () => {
  const chain = new PositionChain(
    60_000_000n,
    (() => {
      let n = 0;
      return () => `chain-${++n}`;
    })(),
  );
  const records: ReceivedRecord[] = READS.map(([at, positions, unavailable], i) => {
    const shaped = chain.shape(
      event(i + 1, START + at, positions, unavailable),
      `{"frame":${i}}`,
      BigInt(START + at) * 1000n,
    );
    return {
      kind: 'portfolio_sync',
      key: 'demo',
      venueTime: iso(START + at),
      receivedAtUs: BigInt(START + at) * 1000n + 7n,
      source: { type: 'stream', connection: 'portfolio-1', frame: i },
      payload: shaped.payload,
      raw: shaped.raw,
    };
  });
  const mapped = records.map((record, i) =>
    mapDelivery({ offset: BigInt(i), ok: true, record }, { topic: 'pf.account.portfolio', partition: 1, group: 'g' }),
  );

  it('capture sends an anchor whole, then only what changed; a new chain after an unusable read and a minute on', () => {
    const links = records.map(
      (r) => (r.payload as { position_chain?: { id: string; anchor: boolean; removed: string[] } }).position_chain,
    );
    expect(links.map((l) => (l ? `${l.id}${l.anchor ? ' anchor' : ''}` : 'whole'))).toEqual([
      'chain-1 anchor',
      'chain-1',
      'chain-1',
      'chain-1',
      'whole',
      'chain-2 anchor',
      'chain-2',
      'chain-3 anchor',
      'chain-3',
    ]);
    expect(links[3]?.removed).toEqual(['b']);
    // An anchor keeps its raw frame; a change record has none (its payload is what it adds).
    expect(records.map((r) => r.raw !== null)).toEqual([true, false, false, false, true, true, false, true, false]);
    const positionRows = mapped.map((list) => list.filter((r) => r.table === 'position_observations').length);
    expect(positionRows).toEqual([3, 0, 1, 3, 0, 3, 2, 2, 1]);
  });

  it('positions_latest and positions_as_of give every read as it was sent, from its chain', async () => {
    const byTable = new Map<TableName, Row[]>();
    for (const list of mapped)
      for (const { table, row } of list) byTable.set(table, [...(byTable.get(table) ?? []), row]);
    for (const [table, list] of byTable) await w.warehouse.insertRows(table, list);

    const asOf = async (atMs: number) =>
      rows<{ token_id: string; shares_micro: string; current_price_micro: string; as_of: string }>(
        w.warehouse.client,
        `SELECT token_id, toString(shares_micro) AS shares_micro, toString(current_price_micro) AS current_price_micro, toString(as_of) AS as_of
         FROM tapehouse.positions_as_of(at = '${iso(atMs).replace('T', ' ').replace('Z', '')}') ORDER BY token_id`,
      );
    const expected = (index: number) => {
      // The newest usable read at or before it.
      let i = index;
      while (READS[i]![2]?.length) i--;
      const [at, positions] = READS[i]!;
      return positions
        .map((p) => ({
          ...p,
          as_of: iso(START + at)
            .replace('T', ' ')
            .replace('Z', ''),
        }))
        .sort((x, y) => x.token_id.localeCompare(y.token_id));
    };
    for (let i = 0; i < READS.length; i++) expect(await asOf(START + READS[i]![0] + 100)).toEqual(expected(i));
    expect(await asOf(START - 1)).toEqual([]);
    expect(
      await rows(
        w.warehouse.client,
        'SELECT token_id, toString(shares_micro) AS shares_micro FROM tapehouse.positions_latest ORDER BY token_id',
      ),
    ).toEqual([{ token_id: 'd', shares_micro: '6' }]);
  });

  it('a change read whose rows are not all stored yet leaves the read before it standing', async () => {
    const next = chain.shape(event(20, START + 64_000, [position('d', 7)]), '{}', BigInt(START + 64_000) * 1000n);
    const record: ReceivedRecord = {
      kind: 'portfolio_sync',
      key: 'demo',
      venueTime: iso(START + 64_000),
      receivedAtUs: BigInt(START + 64_000) * 1000n,
      source: { type: 'stream', connection: 'portfolio-1', frame: 20 },
      payload: next.payload,
      raw: next.raw,
    };
    const list = mapDelivery(
      { offset: 20n, ok: true, record },
      { topic: 'pf.account.portfolio', partition: 1, group: 'g' },
    );
    await w.warehouse.insertRows(
      'position_snapshots',
      list.filter((r) => r.table === 'position_snapshots').map((r) => r.row),
    );
    const latest = () =>
      rows(
        w.warehouse.client,
        'SELECT token_id, toString(shares_micro) AS shares_micro FROM tapehouse.positions_latest ORDER BY token_id',
      );
    expect(await latest()).toEqual([{ token_id: 'd', shares_micro: '6' }]);
    await w.warehouse.insertRows(
      'position_observations',
      list.filter((r) => r.table === 'position_observations').map((r) => r.row),
    );
    expect(await latest()).toEqual([{ token_id: 'd', shares_micro: '7' }]);
  });
});
