import { describe, expect, it } from 'vitest';
import type { Delivery } from '../src/bus/bus.ts';
import { decodeRecord, encodeRecord, type ReceivedRecord, type Json, type RecordKind } from '../src/bus/record.ts';
import { bookChangeRecord, type BookUpdate } from '../src/records/index.ts';
import { TOPICS } from '../src/bus/topics.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import { RecordGenerator } from './load-fixtures.ts';

const SOURCE = { topic: 'tapehouse.x', partition: 2, group: 'loaders' };
const RECEIVED_US = 1_772_442_000_123_456n; // 2026-03-02T09:00:00.123456Z

function record(kind: RecordKind, payload: Json, extra: Partial<ReceivedRecord> = {}): ReceivedRecord {
  return {
    kind,
    key: 'acct-1',
    venueTime: '2026-03-02T09:00:00.100Z',
    receivedAtUs: RECEIVED_US,
    source: { type: 'stream', connection: 'market-1', frame: 7 },
    payload,
    raw: JSON.stringify(payload),
    ...extra,
  };
}

/** A record as a loader receives it: through the wire form. */
function decode(wire: string): ReceivedRecord {
  const decoded = decodeRecord(wire);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.record;
}

function map(r: ReceivedRecord, offset = 41n) {
  return mapDelivery({ offset, ok: true, record: r }, SOURCE);
}

describe('mapping a record to rows', () => {
  it('gives a market its markets row and an outcomes row per outcome, provenance on each, the raw item once', () => {
    const market: Json = {
      id: 'm-1',
      condition_id: '0xc1',
      event_id: 'e-1',
      question: 'Will it rain?',
      engine_config: { tick_size: 1, price_scale: 1000 },
      resolution: { reference_value: { low: 1 } },
      outcomes: [
        { id: 'o-yes', index: 0, label: 'Yes', token_id: 'tok-yes', price_micro: '420000' },
        { id: 'o-no', index: 1, token_id: 'tok-no', display: { label: 'No' } },
      ],
    };
    const rows = map(record('market', market, { source: { type: 'sync', job: 'catalogue', page: 0 } }));
    expect(rows.map((r) => r.table)).toEqual(['markets', 'outcomes', 'outcomes']);
    expect(rows[0]!.row).toMatchObject({
      market_id: 'm-1',
      engine_price_scale: 1000,
      resolution_reference_value: '{"low":1}',
      token_ids: ['tok-yes', 'tok-no'],
      observed_at: Date.parse('2026-03-02T09:00:00.100Z'),
    });
    expect(
      rows.map((r) => [r.row._index, r.row._offset, r.row._topic, r.row._partition, r.row._sync_job, r.row._sync_page]),
    ).toEqual([
      [0, 41n, 'tapehouse.x', 2, 'catalogue', 1],
      [1, 41n, 'tapehouse.x', 2, 'catalogue', 1],
      [2, 41n, 'tapehouse.x', 2, 'catalogue', 1],
    ]);
    expect(rows.map((r) => r.row._raw)).toEqual([JSON.stringify(market), '', '']);
    expect(rows[2]!.row).toMatchObject({
      token_id: 'tok-no',
      label: 'No',
      market_id: 'm-1',
      condition_id: '0xc1',
      outcome_index: 1,
    });
  });

  it('reads a stream payload that is the whole frame as its data, with the frame time', () => {
    const data = {
      kind: 'trade',
      trade_id: 'tr-1',
      token_id: 'tok',
      side: 'BUY',
      price_micro: '450000',
      shares_micro: '2000000',
    };
    const wrapped = map(
      record('trade', { type: 'trades', seq: 3, ts: '2026-03-02T09:00:01.5Z', data }, { venueTime: null }),
    );
    const plain = map(record('trade', { ...data, executed_at: '2026-03-02T09:00:01.500Z' }, { venueTime: null }));
    expect(wrapped[0]!.row).toMatchObject({
      trade_id: 'tr-1',
      executed_at: Date.parse('2026-03-02T09:00:01.500Z'),
      price_micro: '450000',
    });
    expect(wrapped[0]!.row.executed_at).toBe(plain[0]!.row.executed_at);
  });

  it('turns a book update into one row per level, sides as BID and ASK, both sequences kept', () => {
    // As capture publishes it: derived from a replacement snapshot, so without the raw frame.
    const rows = map(
      record(
        'book_change',
        {
          token_id: 'tok',
          sequence: '1700000000000009',
          venue_sequence: 412,
          update: 'snapshot',
          bids: [['440000', '0']],
          asks: [['460000', '3000000']],
        },
        { raw: null },
      ),
    );
    expect(
      rows.map((r) => [
        r.row.side,
        r.row.price_micro,
        r.row.size_micro,
        r.row.sequence,
        r.row.venue_sequence,
        r.row.update_kind,
        r.row._index,
      ]),
    ).toEqual([
      ['BID', '440000', '0', '1700000000000009', 412, 'snapshot', 0],
      ['ASK', '460000', '3000000', '1700000000000009', 412, 'snapshot', 1],
    ]);
    // Every field has a column: nothing to keep as raw.
    expect(rows.map((r) => r.row._raw)).toEqual(['', '']);
    const delta = map(
      record('book_change', { token_id: 'tok', changes: [{ side: 'ask', price_micro: '470000', shares_micro: '1' }] }),
    );
    expect(delta.map((r) => [r.row.side, r.row.size_micro])).toEqual([['ASK', '1']]);
  });

  it('maps a record of several book updates to the rows their one-update records gave, each update with its own times, sequence and raw frame', () => {
    const at = (ms: number, us: number) => ({
      connectionId: 'c-1',
      frameNo: ms,
      receivedAtUs: RECEIVED_US + BigInt(us),
    });
    const update = (u: Partial<BookUpdate> & Pick<BookUpdate, 'origin'>): BookUpdate => ({
      tokenId: 'tok-a',
      conditionId: '0xc1',
      sequence: 1700000000000000001n,
      venueSequence: 412,
      update: 'snapshot',
      venueTime: '2026-03-02T09:00:00.100Z',
      changes: [{ side: 'bid', priceMicro: 440000, sizeMicro: '0' }],
      raw: null,
      ...u,
    });
    const updates: BookUpdate[] = [
      update({ origin: at(7, 0) }),
      update({
        origin: at(8, 250),
        tokenId: 'tok-b',
        sequence: 55n,
        venueSequence: null,
        venueTime: '2026-03-02T09:00:00.350Z',
        changes: [
          { side: 'ask', priceMicro: 460000, sizeMicro: '3000000' },
          { side: 'bid', priceMicro: 430000, sizeMicro: '92233720368547758' },
        ],
      }),
      update({
        origin: at(9, 900),
        sequence: 1700000000000000002n,
        venueSequence: 413,
        update: 'delta',
        venueTime: '2026-03-02T09:00:00.4123Z',
        changes: [{ side: 'ask', priceMicro: 470000, sizeMicro: '1' }],
        raw: '{"type":"orderbook"}',
      }),
      update({
        origin: at(12, 2_000),
        sequence: 1700000000000000003n,
        venueSequence: 414,
        update: 'reseed',
        venueTime: null,
        changes: [{ side: 'ask', priceMicro: 470000, sizeMicro: '0' }],
      }),
    ];
    // The earlier form: one record per update, its own envelope, raw frame in the envelope.
    const single = (u: BookUpdate): ReceivedRecord => ({
      kind: 'book_change',
      key: '0xc1',
      venueTime: u.venueTime,
      receivedAtUs: u.origin.receivedAtUs,
      source: { type: 'stream', connection: 'c-1', frame: u.origin.frameNo },
      payload: {
        token_id: u.tokenId,
        condition_id: '0xc1',
        sequence: u.sequence.toString(),
        venue_sequence: u.venueSequence,
        update: u.update,
        bids: u.changes.filter((c) => c.side === 'bid').map((c) => [String(c.priceMicro), c.sizeMicro]),
        asks: u.changes.filter((c) => c.side === 'ask').map((c) => [String(c.priceMicro), c.sizeMicro]),
      },
      raw: u.raw,
    });
    // Integers compared as the digits they store (the mapper may hand one over as a number or as text).
    const columns = (rows: ReturnType<typeof map>) =>
      rows.map(({ table, row }) => [
        table,
        row.token_id,
        row.condition_id,
        row.side,
        String(row.price_micro),
        String(row.size_micro),
        row.changed_at,
        String(row.sequence),
        row.venue_sequence,
        row.update_kind,
        row._received_at,
        row._raw,
      ]);
    const expected = updates.flatMap((u) => columns(map(single(u))));
    const batched = map(decode(encodeRecord(bookChangeRecord(updates))));
    expect(columns(batched)).toEqual(expected);
    expect(batched.map((r) => r.row._index)).toEqual([0, 1, 2, 3, 4]);
    expect(expected.map((r) => r[6])).toEqual([
      Date.parse('2026-03-02T09:00:00.100Z'),
      Date.parse('2026-03-02T09:00:00.350Z'),
      Date.parse('2026-03-02T09:00:00.350Z'),
      Date.parse('2026-03-02T09:00:00.412Z'),
      Number((RECEIVED_US + 2_000n) / 1000n),
    ]);
    expect(batched[1]!.row.size_micro).toBe('92233720368547758'); // beyond 15 digits: a decimal string on the wire
  });

  it('maps generated capture-style book change records of many updates to exactly the rows they promise', () => {
    const generated = new RecordGenerator(7, TOPICS, { kinds: new Set(['book_change']), bookUpdates: 8 }).take(200);
    const keysOf = (rows: ReturnType<typeof map>) =>
      rows.map(
        ({ row }) => `${String(row.token_id)}|${String(row.sequence)}|${String(row.side)}|${String(row.price_micro)}`,
      );
    const mapped = generated.flatMap((g) => keysOf(map(decode(encodeRecord(g.record)))));
    const promised = generated.flatMap((g) => g.rows.map((r) => r.key));
    expect([...mapped].sort()).toEqual([...promised].sort());
    expect(new Set(mapped).size).toBe(mapped.length);
    expect(promised.length).toBeGreaterThan(200 * 4);
  });

  it('dead-letters a book change record whose updates do not fit the form, naming the part', () => {
    const good = bookChangeRecord([
      {
        tokenId: 'tok',
        conditionId: '0xc1',
        sequence: 1n,
        venueSequence: 1,
        update: 'snapshot',
        venueTime: null,
        origin: { connectionId: 'c', frameNo: 0, receivedAtUs: RECEIVED_US },
        changes: [{ side: 'bid', priceMicro: 1, sizeMicro: '1' }],
        raw: null,
      },
    ]);
    const broken = { ...good, payload: { t: [['tok', '1']], u: [[0, 0, null, 0, 1, 'x', [1, 1], []]] } };
    const [letter] = map(broken);
    expect(letter!.table).toBe('dead_letters');
    expect(letter!.row).toMatchObject({ target_table: 'book_changes', error_code: 'schema_mismatch' });
    expect(String(letter!.row.reason)).toContain('u[0][5]');
  });

  it('keeps the payload as raw when the producer sent none and the columns do not hold it all', () => {
    const gap = {
      stream: 'account',
      reason: 'silence',
      gap_start: '2026-03-02T08:59:58Z',
      gap_end: '2026-03-02T09:00:00Z',
      scope: { all: true },
      connection_id: 'account-1',
      refused_attempts: 3,
    };
    const [row] = map(record('capture_gap', gap, { raw: null }));
    expect(row!.row._raw).toBe(JSON.stringify(gap));
  });

  it('writes a gap as one row per channel and subject of its scope, bounds to the microsecond', () => {
    const rows = map(
      record('capture_gap', {
        stream: 'market',
        reason: 'disconnected',
        gap_start: '2026-03-02T08:59:58.000250Z',
        gap_end_us: '1772442000000001',
        scope: {
          all: false,
          channels: ['trades', 'orderbook'],
          token_ids: ['a', 'b'],
          condition_ids: ['c'],
          event_ids: [],
        },
        recovery: 'books_reseeded',
        detail: { close_code: 1006 },
      }),
    );
    expect(rows.map((r) => `${r.row.channel}/${r.row.subject_kind}/${r.row.subject}`)).toEqual([
      'trades/token/a',
      'trades/token/b',
      'trades/condition/c',
      'orderbook/token/a',
      'orderbook/token/b',
      'orderbook/condition/c',
    ]);
    expect(rows[0]!.row).toMatchObject({
      gap_start: 1_772_441_998_000_250n,
      gap_end: 1_772_442_000_000_001n,
      detail: '{"close_code":1006}',
      recovery: 'books_reseeded',
    });
    // The whole stream, and coverage ended on purpose (no end): one row, of no length.
    const [ended] = map(
      record('capture_gap', {
        stream: 'market',
        reason: 'unsubscribed',
        gap_start: '2026-03-02T09:00:00Z',
        gap_end: null,
        scope: { all: true },
      }),
    );
    expect(ended!.row).toMatchObject({
      channel: '',
      subject: '',
      gap_start: 1_772_442_000_000_000n,
      gap_end: 1_772_442_000_000_000n,
    });
  });

  it('keeps every account frame, and an order frame as the order state it announces', () => {
    const order = {
      internal_id: 'ord-1',
      status: 'CANCELLED',
      side: 'BUY',
      token_id: 'tok',
      failure: { code: 'x', recovery: { strategy: 'none' } },
    };
    const rows = map(record('account_event', { kind: 'order_cancelled', reason: 'SELF_TRADE_PREVENTION', order }));
    expect(rows.map((r) => r.table)).toEqual(['account_events', 'order_observations']);
    expect(rows[0]!.row).toMatchObject({
      account: 'acct-1',
      kind: 'order_cancelled',
      order_id: 'ord-1',
      status: 'CANCELLED',
      reason: 'SELF_TRADE_PREVENTION',
    });
    expect(rows[1]!.row).toMatchObject({
      order_id: 'ord-1',
      source: 'ws:order_cancelled',
      cancel_reason: 'SELF_TRADE_PREVENTION',
      failure_recovery_strategy: 'none',
    });
    const unknown = map(record('account_event', { kind: 'collateral_moved', amount_micro: '5' }));
    expect(unknown.map((r) => [r.table, r.row.kind])).toEqual([['account_events', 'collateral_moved']]);
  });

  it('writes an empty positions read as a snapshot of nothing, so positions_latest can empty', () => {
    const rows = map(
      record(
        'position',
        { as_of: '2026-03-02T09:00:00Z', positions: [] },
        { source: { type: 'sync', job: 'positions', page: 0 } },
      ),
    );
    expect(rows.map((r) => [r.table, r.row.position_count, r.row.source])).toEqual([
      ['position_snapshots', 0, 'rest:positions/list'],
    ]);
  });

  it('makes a record that does not fit one dead letter naming the field, with the whole message to publish again', () => {
    const bad = record('trade', { trade_id: 'tr-9', side: 'BUY', price_micro: '1', shares_micro: '1' });
    const [letter] = map(bad, 77n);
    expect(letter!.table).toBe('dead_letters');
    expect(letter!.row).toMatchObject({
      topic: 'tapehouse.x',
      partition: 2,
      offset: 77n,
      key: 'acct-1',
      consumer_group: 'loaders',
      target_table: 'trades',
      error_code: 'schema_mismatch',
      reason: 'token_id: is missing',
      received_at: RECEIVED_US,
    });
    const again = decodeRecord(letter!.row.raw as string);
    expect(again.ok && again.record).toEqual(bad);

    const [time] = map(record('market_status', { kind: 'market_halted', status_at: 'yesterday' }));
    expect(time!.row).toMatchObject({ error_code: 'invalid_time', target_table: 'market_status' });
  });

  it('reads a display price in whole units as exact micro-units, and dead-letters one finer than a micro-unit, naming it', () => {
    const market = (display: Json) =>
      record('market', { id: 'm-1', display }, { source: { type: 'sync', job: 'catalogue', page: 0 } });
    const [row] = map(
      market({ reference_price: 95123.5, band_lower: '0.000001', band_upper: '-12', cadence_seconds: 300 }),
    );
    expect(row!.row).toMatchObject({
      reference_price_micro: '95123500000',
      band_lower_micro: '1',
      band_upper_micro: '-12000000',
      cadence_seconds: 300,
    });
    const [letter] = map(market({ reference_price: '1.0000001' }));
    expect(letter!.row).toMatchObject({
      target_table: 'markets',
      reason: 'reference_price: "1.0000001" is not a decimal of at most 6 places',
    });
  });

  it('dead-letters bytes that are not a record, keeping them (base64 when they are not UTF-8)', () => {
    const notJson: Delivery = {
      offset: 5n,
      ok: false,
      reason: 'not JSON (Unexpected token)',
      bytes: Buffer.from('{oops'),
    };
    expect(mapDelivery(notJson, SOURCE)[0]!.row).toMatchObject({
      offset: 5n,
      error_code: 'invalid_json',
      raw: '{oops',
    });
    const binary: Delivery = { offset: 6n, ok: false, reason: 'not valid UTF-8', bytes: new Uint8Array([0xff, 0xfe]) };
    expect(mapDelivery(binary, SOURCE)[0]!.row).toMatchObject({ error_code: 'invalid_json', raw: '//4=' });
    const future: Delivery = {
      offset: 7n,
      ok: false,
      reason: 'envelope version 2 is not 1',
      bytes: Buffer.from(encodeRecord(record('trade', {}))),
    };
    expect(mapDelivery(future, SOURCE)[0]!.row).toMatchObject({ error_code: 'invalid_envelope' });
  });
});

describe('issue 22 (rest): the kinds of the venue resources, read as the contract says', () => {
  it('dead-letters a lookup entry without its map or key, and one whose entry is not an object', () => {
    const [noMap] = map(record('lookup', { list: 'activities', key: 'k', entry: { market_title: 'x' } }));
    expect(noMap!.row).toMatchObject({
      target_table: 'lookups',
      error_code: 'schema_mismatch',
      reason: 'map: is missing',
    });
    const [notObject] = map(record('lookup', { list: 'activities', map: 'markets', key: 'k', entry: 'x' }));
    expect(notObject!.row).toMatchObject({ target_table: 'lookups', reason: expect.stringContaining('entry') });
  });

  it("maps a batch to its row and its withdrawal's, and dead-letters one without a hash or with a section event id that is not text", () => {
    const batch = {
      batch_hash: '0xb1',
      seq: 4,
      status: 'PENDING',
      ops: [{ kind: 'SPLIT' }],
      withdrawal: {
        state: 'QUEUED',
        source: { chain_id: 137, status: 'QUEUED' },
        destination: { chain_id: 10, status: 'WAITING', path: 'SPOKE_POOL' },
      },
    };
    const rows = map(record('account_batch', batch));
    expect(rows.map((r) => r.table)).toEqual(['account_batches', 'withdrawal_states']);
    expect(rows[1]!.row).toMatchObject({
      batch_hash: '0xb1',
      state: 'QUEUED',
      source_chain_id: '137',
      destination_chain_id: '10',
      destination_path: 'SPOKE_POOL',
      _raw: '',
    });
    expect(map(record('account_batch', { status: 'PENDING' }))[0]!.row).toMatchObject({
      target_table: 'account_batches',
      reason: 'batch_hash: is missing',
    });
    expect(map(record('sports_sections', { sections: [{ event_ids: [7] }] }))[0]!.row).toMatchObject({
      target_table: 'sports_sections',
      reason: 'sections[0].event_ids[0]: is not a string',
    });
    expect(map(record('category', { answer: {} }))[0]!.row).toMatchObject({
      target_table: 'categories',
      reason: 'slug: is missing',
    });
  });
});
