import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedRecord, RecordKind } from '../src/bus/record.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import { pendingRederives, rederiveTable } from '../src/load/rederive/index.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

// `tapehouse rederive` (issue 22, point 4): rows stored by an older mapping get the columns
// migration 0136 added, from the raw text they keep — every row once, none lost, a run stopped
// midway resumed. The frames are the simulator's (src/simulator/README.md, "market_status kinds";
// src/simulator/streams/wire.ts for trades and account frames; render/market.ts for display).

/**
 * The columns migrations 0136 and 0180 added that a rederive fills from the raw text: rows mapped
 * before them had none of them (0180's `frame_seq` is the frame envelope's `seq`).
 */
const NEW_COLUMNS: Record<string, string[]> = {
  market_status: [
    'proposed_token_id',
    'proposed_outcome',
    'proposal_round',
    'winning_outcome',
    'payout_outcomes',
    'resolution',
    'redeemed_positions',
    'replacement_market_id',
    'replacement_condition_id',
    'replacement_slug',
    'replacement_token_ids',
    'previous_market_id',
    'previous_condition_id',
    'opens_at',
    'closes_at',
    'frame_seq',
  ],
  trades: ['market_id', 'frame_seq'],
  account_events: [
    'shares_micro',
    'price_micro',
    'resolution_price_micro',
    'payout_micro',
    'collateral_micro',
    'frame_seq',
  ],
  markets: [
    'resolution_criteria',
    'reference_price_micro',
    'currency',
    'reference_at',
    'observe_at',
    'cadence_seconds',
    'band_index',
    'band_lower_micro',
    'band_upper_micro',
    'band_label',
    'oracle_feed_id',
    'oracle_benchmark_symbol',
    'oracle_pro_symbol',
    'charting_symbol',
  ],
};

let offset = 0;
const CONNECTION_NO = 1_772_000_000_000_000;

function streamRecord(
  kind: RecordKind,
  type: string,
  key: string,
  ts: string,
  data: Record<string, unknown>,
): ReceivedRecord {
  return {
    kind,
    key,
    venueTime: ts,
    receivedAtUs: BigInt(Date.parse(ts)) * 1000n + 123n,
    // Capture's number of the connection, which no frame holds: a rederive keeps it as stored.
    source: { type: 'stream', connection: 'conn-1', frame: offset, conn: CONNECTION_NO },
    payload: data as ReceivedRecord['payload'],
    raw: JSON.stringify({ type, seq: offset, ts, data }),
  };
}

const statusFrame = (ts: string, data: Record<string, unknown>) =>
  streamRecord('market_status', 'market_status', 'cond-1', ts, {
    condition_id: 'cond-1',
    market_id: 'mkt-1',
    event_id: 'ev-1',
    status_at: ts,
    ...data,
  });

describe('tapehouse rederive', () => {
  let w: TestWarehouse;
  beforeAll(async () => {
    // Replayed: the rows below stand for rows stored before migration 0136, which asked for their re-derive.
    w = await migratedWarehouse({ oneByOne: true });
  }, 60_000);
  afterAll(async () => {
    await w?.cleanup();
  });

  /** Stores a record as a mapping without 0136's columns did: each table's rows without them. */
  async function storeAsBefore(record: ReceivedRecord, topic = 'test.records'): Promise<void> {
    const mapped = mapDelivery({ offset: BigInt(++offset), ok: true, record }, { topic, partition: 0, group: 'test' });
    const byTable = new Map<string, Record<string, unknown>[]>();
    for (const { table, row } of mapped) {
      for (const column of NEW_COLUMNS[table] ?? []) delete row[column];
      byTable.set(table, [...(byTable.get(table) ?? []), row]);
    }
    for (const [table, list] of byTable) await w.warehouse.insertRows(table, list as never);
  }
  const read = (query: string) => rows(w.warehouse.client, query);
  /** Rows stored, and distinct rows by their bus identity: equal when nothing is doubled. */
  const identity = async (table: string) =>
    (
      await read(
        `SELECT count() AS rows, uniqExact(_topic, _partition, _offset, _index) AS distinct_rows FROM tapehouse.${table}`,
      )
    )[0];

  it('migration 0136 asks for its four tables; a run fills the new columns of every old row, once', async () => {
    // Nothing to do on a fresh warehouse: `migrate` names no table (it names those holding rows).
    expect(await pendingRederives(w.warehouse.client, { withRows: true })).toEqual([]);
    await storeAsBefore(
      statusFrame('2026-01-10T10:00:00.000Z', {
        kind: 'outcome_proposed',
        proposed_token_id: 'tok-yes',
        proposed_outcome: 'Yes',
        proposal_round: 2,
      }),
    );
    await storeAsBefore(
      statusFrame('2026-01-11T10:00:00.000Z', {
        kind: 'market_resolution_completed',
        resolution: 'winner',
        winning_token_id: 'tok-yes',
        winning_outcome: 'Yes',
        redeemed_positions: 3,
        replacement: {
          market_id: 'mkt-2',
          condition_id: 'cond-2',
          slug: 'btc-next',
          outcomes: [
            { outcome_id: 'o-1', token_id: 'tok-2y', label: 'Up' },
            { outcome_id: 'o-2', token_id: 'tok-2n', label: 'Down' },
          ],
        },
      }),
    );
    await storeAsBefore(
      statusFrame('2026-03-01T09:00:00.000Z', {
        kind: 'current_market_changed',
        previous_market_id: 'mkt-0',
        previous_condition_id: 'cond-0',
        opens_at: '2026-03-01T09:00:00Z',
        closes_at: '2026-03-01T09:05:00Z',
        outcomes: [{ token_id: 'tok-1y' }],
      }),
    );
    await storeAsBefore(
      streamRecord('trade', 'trades', 'cond-1', '2026-03-01T09:01:00.000Z', {
        token_id: 'tok-yes',
        condition_id: 'cond-1',
        market_id: 'mkt-1',
        trade_id: 't-1',
        side: 'BUY',
        price_micro: '450000',
        shares_micro: '2000000',
        executed_at: '2026-03-01T09:01:00.000Z',
      }),
    );
    await storeAsBefore(
      streamRecord('account_event', 'account_event', 'acct', '2026-03-01T09:02:00.000Z', {
        kind: 'position_redeemed',
        condition_id: 'cond-1',
        token_id: 'tok-yes',
        shares_micro: '5000000',
        resolution_price_micro: '1000000',
        payout_micro: '5000000',
        redeemed_at: '2026-03-01T09:02:00.000Z',
      }),
    );
    // An order frame: its account_events row keeps the raw text, its orders row (index 1) does not.
    await storeAsBefore(
      streamRecord('account_event', 'account_event', 'acct', '2026-03-01T09:03:00.000Z', {
        kind: 'order_cancelled',
        reason: 'USER',
        order: {
          internal_id: 'ord-1',
          status: 'CANCELLED',
          token_id: 'tok-yes',
          price_micro: '450000',
          collateral_amount_micro: '900000',
        },
      }),
    );
    // A market of an event detail read: the sync job adds event_id to the payload, not to the raw item.
    const market = {
      id: 'mkt-1',
      condition_id: 'cond-1',
      slug: 'btc-up',
      question: 'BTC up?',
      display: {
        resolution_criteria: 'Chainlink BTC/USD at close',
        reference_price: 95123.5,
        currency: 'USD',
        reference_at: '2026-03-01T09:00:00Z',
        observe_at: '2026-03-01T09:05:00Z',
        cadence_seconds: 300,
        band_lower: '95000',
        band_upper: 96000,
        oracle_feed_id: 'BTC-USD',
        oracle_benchmark_symbol: 'BTC/USD',
        charting_symbol: 'BTCUSD',
      },
      outcomes: [{ token_id: 'tok-yes', index: 0, label: 'Up' }],
    };
    await storeAsBefore(
      {
        kind: 'market',
        key: 'cond-1',
        venueTime: null,
        receivedAtUs: 1_772_355_600_000_000n,
        source: { type: 'sync', job: 'catalogue', page: 0 },
        payload: { ...market, event_id: 'ev-1' },
        raw: JSON.stringify(market),
      },
      'sync.catalogue',
    );

    // 0180 asks for quotes too, which hold no rows here.
    expect(await pendingRederives(w.warehouse.client)).toEqual([
      'account_events',
      'market_status',
      'markets',
      'quotes',
      'trades',
    ]);
    expect(await pendingRederives(w.warehouse.client, { withRows: true })).toEqual([
      'account_events',
      'market_status',
      'markets',
      'trades',
    ]);
    expect(
      await read("SELECT proposal_round, resolution FROM tapehouse.market_status WHERE kind = 'outcome_proposed'"),
    ).toEqual([{ proposal_round: 0, resolution: '' }]);
    const before = Object.fromEntries(
      await Promise.all(
        ['market_status', 'trades', 'account_events', 'markets', 'quotes', 'order_observations'].map(
          async (t) => [t, await identity(t)] as const,
        ),
      ),
    );

    for (const table of ['market_status', 'trades', 'account_events', 'markets', 'quotes']) {
      const seen: number[] = [];
      const result = await rederiveTable(w.warehouse, table, { onProgress: (p) => seen.push(p.partitionsDone) });
      expect(result.rowsFailed).toBe(0);
      expect(result.rowsAfter).toBe(result.rowsBefore);
      expect(seen.at(-1)).toBe(result.partitionsTotal);
      expect(await identity(table)).toEqual(before[table]);
    }
    expect(await identity('order_observations')).toEqual(before.order_observations);
    expect(await pendingRederives(w.warehouse.client)).toEqual([]);

    expect(
      await read(
        `SELECT kind, proposed_token_id, proposed_outcome, proposal_round, winning_outcome, resolution, redeemed_positions, replacement_market_id,
                replacement_token_ids, previous_market_id, toString(opens_at) AS opens_at, toString(closes_at) AS closes_at
         FROM tapehouse.market_status ORDER BY status_at`,
      ),
    ).toEqual([
      {
        kind: 'outcome_proposed',
        proposed_token_id: 'tok-yes',
        proposed_outcome: 'Yes',
        proposal_round: 2,
        winning_outcome: '',
        resolution: 'winner',
        redeemed_positions: null,
        replacement_market_id: '',
        replacement_token_ids: [],
        previous_market_id: '',
        opens_at: null,
        closes_at: null,
      },
      {
        kind: 'market_resolution_completed',
        proposed_token_id: '',
        proposed_outcome: '',
        proposal_round: 0,
        winning_outcome: 'Yes',
        resolution: 'winner',
        redeemed_positions: 3,
        replacement_market_id: 'mkt-2',
        replacement_token_ids: ['tok-2y', 'tok-2n'],
        previous_market_id: '',
        opens_at: null,
        closes_at: null,
      },
      {
        kind: 'current_market_changed',
        proposed_token_id: '',
        proposed_outcome: '',
        proposal_round: 0,
        winning_outcome: '',
        resolution: '',
        redeemed_positions: null,
        replacement_market_id: '',
        replacement_token_ids: [],
        previous_market_id: 'mkt-0',
        opens_at: '2026-03-01 09:00:00.000',
        closes_at: '2026-03-01 09:05:00.000',
      },
    ]);
    expect(await read('SELECT market_id FROM tapehouse.trades')).toEqual([{ market_id: 'mkt-1' }]);
    // Each stream row has its frame's envelope seq again (the raw frame's), and its connection number as stored.
    for (const table of ['market_status', 'trades', 'account_events']) {
      const framed = await read(
        `SELECT toString(frame_conn) AS conn, toString(frame_seq) AS seq, toString(JSONExtractUInt(_raw, 'seq')) AS raw_seq FROM tapehouse.${table} WHERE _index = 0`,
      );
      expect(framed.length).toBeGreaterThan(0);
      for (const row of framed)
        expect(row).toEqual({ conn: String(CONNECTION_NO), seq: row.raw_seq, raw_seq: row.raw_seq });
      // Stored without it (0): the rederive is what put the frames' numbers there.
      expect(framed.some((row) => Number(row.raw_seq) > 0)).toBe(true);
    }
    expect(
      await read(
        'SELECT kind, shares_micro, price_micro, resolution_price_micro, payout_micro, collateral_micro FROM tapehouse.account_events ORDER BY event_at',
      ),
    ).toEqual([
      {
        kind: 'position_redeemed',
        shares_micro: '5000000',
        price_micro: null,
        resolution_price_micro: '1000000',
        payout_micro: '5000000',
        collateral_micro: null,
      },
      {
        kind: 'order_cancelled',
        shares_micro: null,
        price_micro: '450000',
        resolution_price_micro: null,
        payout_micro: null,
        collateral_micro: '900000',
      },
    ]);
    // The latest store the markets' view copies into was given the new rows too.
    const marketColumns =
      'event_id, resolution_criteria, reference_price_micro, currency, cadence_seconds, band_lower_micro, band_upper_micro, oracle_feed_id';
    const expected = [
      {
        event_id: 'ev-1',
        resolution_criteria: 'Chainlink BTC/USD at close',
        reference_price_micro: '95123500000',
        currency: 'USD',
        cadence_seconds: 300,
        band_lower_micro: '95000000000',
        band_upper_micro: '96000000000',
        oracle_feed_id: 'BTC-USD',
      },
    ];
    expect(await read(`SELECT ${marketColumns} FROM tapehouse.markets`)).toEqual(expected);
    expect(await read(`SELECT ${marketColumns} FROM tapehouse.markets_latest`)).toEqual(expected);
  });

  it('a run stopped midway resumes where it stopped: every row once, a record that no longer maps kept as it was', async () => {
    for (const day of ['2026-05-02', '2026-06-02', '2026-07-02']) {
      await storeAsBefore(
        statusFrame(`${day}T10:00:00.000Z`, {
          kind: 'payouts_proposed',
          proposal_round: 1,
          payouts: [
            { token_id: 'tok-yes', outcome: 'Yes', payout_micro: '600000' },
            { token_id: 'tok-no', outcome: 'No', payout_micro: '400000' },
          ],
        }),
      );
    }
    // A row whose raw text today's mapper refuses (no kind): it stays, and is counted.
    await w.warehouse.insertRows('market_status', [
      {
        condition_id: 'cond-9',
        kind: 'market_halted',
        status_at: Date.parse('2026-06-03T00:00:00Z'),
        _topic: 'test.records',
        _partition: 0,
        _offset: ++offset,
        _index: 0,
        _received_at: 1n,
        _raw: '{"type":"market_status","data":{"condition_id":"cond-9"}}',
      },
    ]);
    const before = await identity('market_status');
    const since = new Date('2026-05-01T00:00:00Z');

    const stop = new Error('stopped after one partition');
    await expect(
      rederiveTable(w.warehouse, 'market_status', {
        since,
        onProgress: (p) => {
          if (p.partitionsDone === 1) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    expect(await identity('market_status')).toEqual(before);

    const result = await rederiveTable(w.warehouse, 'market_status', { since });
    expect(result).toMatchObject({ partitionsTotal: 3, partitionsResumed: 1, partitionsDone: 3, rowsFailed: 1 });
    expect(await identity('market_status')).toEqual(before);
    expect(
      await read(
        "SELECT toMonth(status_at) AS month, resolution, payout_outcomes FROM tapehouse.market_status WHERE kind = 'payouts_proposed' ORDER BY status_at",
      ),
    ).toEqual([5, 6, 7].map((month) => ({ month, resolution: 'payouts', payout_outcomes: ['Yes', 'No'] })));
    expect(await read("SELECT kind FROM tapehouse.market_status WHERE condition_id = 'cond-9'")).toEqual([
      { kind: 'market_halted' },
    ]);
    // The partitions before --since were not touched, and the finished run starts afresh next time.
    const again = await rederiveTable(w.warehouse, 'market_status', { since });
    expect(again).toMatchObject({ partitionsResumed: 0, partitionsDone: 3 });
    expect(again.runId).not.toBe(result.runId);
    expect(await identity('market_status')).toEqual(before);
  });
});
