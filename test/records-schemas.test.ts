import { describe, expect, it } from 'vitest';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import { RECORD_KINDS, type Json, type ReceivedRecord, type RecordKind } from '../src/records/index.ts';
import { PAYLOAD_SCHEMAS } from '../src/records/index.ts';
import { RecordGenerator } from './load-fixtures.ts';

const SOURCE = { topic: 'tapehouse.x', partition: 0, group: 'loaders' };

function record(kind: RecordKind, payload: Json): ReceivedRecord {
  return {
    kind,
    key: 'cond-1',
    venueTime: '2026-03-02T09:00:00.100Z',
    receivedAtUs: 1_772_442_000_123_456n,
    source: { type: 'stream', connection: 'market-1', frame: 7 },
    payload,
    raw: null,
  };
}

const map = (r: ReceivedRecord) => mapDelivery({ offset: 9n, ok: true, record: r }, SOURCE);

describe('the record schemas at the bus boundary', () => {
  it("accepts every kind's records as the producers make them, keeping the fields it does not name", () => {
    const generated = new RecordGenerator(11, createTopicCatalogue('t'), { bookUpdates: 5 })
      .take(3000)
      .map((g) => g.record);
    const seen = new Set(generated.map((r) => r.kind));
    expect(RECORD_KINDS.filter((kind) => !seen.has(kind))).toEqual([]);
    // The generator's misfits (`bad_id`) aside: they are made to become dead letters.
    for (const r of generated.filter((g) => !JSON.stringify(g.payload).includes('"bad_id"'))) {
      const parsed = PAYLOAD_SCHEMAS[r.kind].safeParse(r.payload);
      expect(parsed.error?.issues ?? [], `${r.kind} ${JSON.stringify(r.payload).slice(0, 200)}`).toEqual([]);
    }
    const trade = PAYLOAD_SCHEMAS.trade.parse({
      token_id: 't',
      side: 'BUY',
      price_micro: '5',
      shares_micro: '1',
      venue_field: { x: 1 },
    });
    expect(trade.venue_field).toEqual({ x: 1 });
  });

  it('reads the older forms: a whole frame as data, `size_micro` for `shares_micro`, a book change of one frame', () => {
    const frame = {
      type: 'trades',
      seq: 3,
      ts: '2026-03-02T09:00:01.500Z',
      data: { token_id: 't', side: 'SELL', price_micro: 250000, size_micro: '7' },
    };
    const [trade] = map(record('trade', frame));
    expect(trade!.row).toMatchObject({
      token_id: 't',
      price_micro: 250000,
      shares_micro: '7',
      executed_at: Date.parse('2026-03-02T09:00:01.500Z'),
    });
    const [quote] = map(
      record('quote', {
        type: 'best_quote',
        ts: '2026-03-02T09:00:02Z',
        data: { token_id: 9, best_bid_micro: null, best_ask_micro: '510000' },
      }),
    );
    expect(quote!.row).toMatchObject({
      token_id: '9',
      best_ask_micro: '510000',
      quoted_at: Date.parse('2026-03-02T09:00:02Z'),
    });
    const older = map(
      record('book_change', {
        token_id: 't',
        sequence: 4,
        update: 'delta',
        bids: [['440000', '0']],
        changes: [{ side: 'ask', price_micro: 460000, shares_micro: 3 }],
      }),
    );
    expect(older.map((r) => [r.table, r.row.side, r.row.size_micro])).toEqual([
      ['book_changes', 'BID', '0'],
      ['book_changes', 'ASK', 3],
    ]);
  });

  it('makes a record that does not fit its schema a dead letter naming the field and what was wrong', () => {
    const cases: Array<[RecordKind, Json, string]> = [
      [
        'trade',
        { token_id: 't', side: 'BUY', price_micro: { micro: 5 }, shares_micro: '1' },
        'price_micro: is an object, not an integer',
      ],
      ['trade', { token_id: 't', side: 'BUY', price_micro: '5' }, 'shares_micro: is missing'],
      ['book_change', { t: [['tok', '1']], u: 'many' }, 'u: is "many", not a non-empty list of updates'],
      ['book_change', { token_id: 't', bids: 'none' }, 'bids: is "none", not an array'],
      ['book_snapshot', { type: 'book', data: { token_id: ['t'] } }, 'token_id: is an array, not a single value'],
      ['market_status', [1, 2], 'payload: is an array, not an object'],
      ['account_event', { kind: 'fill', fill: 'f-1' }, 'fill: is "f-1", not an object'],
      ['order', { internal_id: 'o-1' }, 'status: is missing'],
    ];
    for (const [kind, payload, reason] of cases) {
      const rows = map(record(kind, payload));
      expect(rows, `${kind} ${JSON.stringify(payload)}`).toHaveLength(1);
      expect(rows[0]!.table).toBe('dead_letters');
      expect(rows[0]!.row, `${kind} ${JSON.stringify(payload)}`).toMatchObject({
        error_code: 'schema_mismatch',
        reason,
        offset: 9n,
      });
      // The whole message is kept, to publish again once fixed.
      expect(JSON.parse(String(rows[0]!.row.raw)).payload).toEqual(payload);
    }
  });
});
