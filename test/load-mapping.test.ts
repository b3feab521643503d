import { describe, expect, it } from 'vitest';
import type { Delivery } from '../src/bus/bus.ts';
import { decodeRecord, encodeRecord, type BusRecord, type Json, type RecordKind } from '../src/bus/record.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';

const SOURCE = { topic: 'tapehouse.x', partition: 2, group: 'loaders' };
const RECEIVED_US = 1_772_442_000_123_456n; // 2026-03-02T09:00:00.123456Z

function record(kind: RecordKind, payload: Json, extra: Partial<BusRecord> = {}): BusRecord {
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

function map(r: BusRecord, offset = 41n) {
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
    expect(rows.map((r) => [r.row._index, r.row._offset, r.row._topic, r.row._partition, r.row._sync_job, r.row._sync_page])).toEqual([
      [0, 41n, 'tapehouse.x', 2, 'catalogue', 1],
      [1, 41n, 'tapehouse.x', 2, 'catalogue', 1],
      [2, 41n, 'tapehouse.x', 2, 'catalogue', 1],
    ]);
    expect(rows.map((r) => r.row._raw)).toEqual([JSON.stringify(market), '', '']);
    expect(rows[2]!.row).toMatchObject({ token_id: 'tok-no', label: 'No', market_id: 'm-1', condition_id: '0xc1', outcome_index: 1 });
  });

  it('reads a stream payload that is the whole frame as its data, with the frame time', () => {
    const data = { kind: 'trade', trade_id: 'tr-1', token_id: 'tok', side: 'BUY', price_micro: '450000', shares_micro: '2000000' };
    const wrapped = map(record('trade', { type: 'trades', seq: 3, ts: '2026-03-02T09:00:01.5Z', data }, { venueTime: null }));
    const plain = map(record('trade', { ...data, executed_at: '2026-03-02T09:00:01.500Z' }, { venueTime: null }));
    expect(wrapped[0]!.row).toMatchObject({ trade_id: 'tr-1', executed_at: Date.parse('2026-03-02T09:00:01.500Z'), price_micro: '450000' });
    expect(wrapped[0]!.row.executed_at).toBe(plain[0]!.row.executed_at);
  });

  it('turns a book update into one row per level, sides as BID and ASK, both sequences kept', () => {
    // As capture publishes it: derived from a replacement snapshot, so without the raw frame.
    const rows = map(
      record('book_change', { token_id: 'tok', sequence: '1700000000000009', venue_sequence: 412, update: 'snapshot', bids: [['440000', '0']], asks: [['460000', '3000000']] }, { raw: null }),
    );
    expect(rows.map((r) => [r.row.side, r.row.price_micro, r.row.size_micro, r.row.sequence, r.row.venue_sequence, r.row.update_kind, r.row._index])).toEqual([
      ['BID', '440000', '0', '1700000000000009', 412, 'snapshot', 0],
      ['ASK', '460000', '3000000', '1700000000000009', 412, 'snapshot', 1],
    ]);
    // Every field has a column: nothing to keep as raw.
    expect(rows.map((r) => r.row._raw)).toEqual(['', '']);
    const delta = map(record('book_change', { token_id: 'tok', changes: [{ side: 'ask', price_micro: '470000', shares_micro: '1' }] }));
    expect(delta.map((r) => [r.row.side, r.row.size_micro])).toEqual([['ASK', '1']]);
  });

  it('keeps the payload as raw when the producer sent none and the columns do not hold it all', () => {
    const gap = { stream: 'account', reason: 'silence', gap_start: '2026-03-02T08:59:58Z', gap_end: '2026-03-02T09:00:00Z', scope: { all: true }, connection_id: 'account-1', refused_attempts: 3 };
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
        scope: { all: false, channels: ['trades', 'orderbook'], token_ids: ['a', 'b'], condition_ids: ['c'], event_ids: [] },
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
    expect(rows[0]!.row).toMatchObject({ gap_start: 1_772_441_998_000_250n, gap_end: 1_772_442_000_000_001n, detail: '{"close_code":1006}', recovery: 'books_reseeded' });
    // The whole stream, and coverage ended on purpose (no end): one row, of no length.
    const [ended] = map(record('capture_gap', { stream: 'market', reason: 'unsubscribed', gap_start: '2026-03-02T09:00:00Z', gap_end: null, scope: { all: true } }));
    expect(ended!.row).toMatchObject({ channel: '', subject: '', gap_start: 1_772_442_000_000_000n, gap_end: 1_772_442_000_000_000n });
  });

  it('keeps every account frame, and an order frame as the order state it announces', () => {
    const order = { internal_id: 'ord-1', status: 'CANCELLED', side: 'BUY', token_id: 'tok', failure: { code: 'x', recovery: { strategy: 'none' } } };
    const rows = map(record('account_event', { kind: 'order_cancelled', reason: 'SELF_TRADE_PREVENTION', order }));
    expect(rows.map((r) => r.table)).toEqual(['account_events', 'orders']);
    expect(rows[0]!.row).toMatchObject({ account: 'acct-1', kind: 'order_cancelled', order_id: 'ord-1', status: 'CANCELLED', reason: 'SELF_TRADE_PREVENTION' });
    expect(rows[1]!.row).toMatchObject({ order_id: 'ord-1', source: 'ws:order_cancelled', cancel_reason: 'SELF_TRADE_PREVENTION', failure_recovery_strategy: 'none' });
    const unknown = map(record('account_event', { kind: 'collateral_moved', amount_micro: '5' }));
    expect(unknown.map((r) => [r.table, r.row.kind])).toEqual([['account_events', 'collateral_moved']]);
  });

  it('writes an empty positions read as a snapshot of nothing, so positions_latest can empty', () => {
    const rows = map(record('position', { as_of: '2026-03-02T09:00:00Z', positions: [] }, { source: { type: 'sync', job: 'positions', page: 0 } }));
    expect(rows.map((r) => [r.table, r.row.position_count, r.row.source])).toEqual([['position_snapshots', 0, 'rest:positions/list']]);
  });

  it('makes a record that does not fit one dead letter naming the field, with the whole message to publish again', () => {
    const bad = record('trade', { trade_id: 'tr-9', side: 'BUY', price_micro: '1', shares_micro: '1' });
    const [letter] = map(bad, 77n);
    expect(letter!.table).toBe('dead_letters');
    expect(letter!.row).toMatchObject({ topic: 'tapehouse.x', partition: 2, offset: 77n, key: 'acct-1', consumer_group: 'loaders', target_table: 'trades', error_code: 'schema_mismatch', reason: 'token_id: is missing', received_at: RECEIVED_US });
    const again = decodeRecord(letter!.row.raw as string);
    expect(again.ok && again.record).toEqual(bad);

    const [time] = map(record('market_status', { kind: 'market_halted', status_at: 'yesterday' }));
    expect(time!.row).toMatchObject({ error_code: 'invalid_time', target_table: 'market_status' });
  });

  it('dead-letters bytes that are not a record, keeping them (base64 when they are not UTF-8)', () => {
    const notJson: Delivery = { offset: 5n, ok: false, reason: 'not JSON (Unexpected token)', bytes: Buffer.from('{oops') };
    expect(mapDelivery(notJson, SOURCE)[0]!.row).toMatchObject({ offset: 5n, error_code: 'invalid_json', raw: '{oops' });
    const binary: Delivery = { offset: 6n, ok: false, reason: 'not valid UTF-8', bytes: new Uint8Array([0xff, 0xfe]) };
    expect(mapDelivery(binary, SOURCE)[0]!.row).toMatchObject({ error_code: 'invalid_json', raw: '//4=' });
    const future: Delivery = { offset: 7n, ok: false, reason: 'envelope version 2 is not 1', bytes: Buffer.from(encodeRecord(record('trade', {}))) };
    expect(mapDelivery(future, SOURCE)[0]!.row).toMatchObject({ error_code: 'invalid_envelope' });
  });
});
