import { describe, expect, it } from 'vitest';
import { quoteRecord, tradeRecord, type MarketFrame } from '../src/capture/market/market-records.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import type { BusRecord, DataQualityPayload } from '../src/records/index.ts';

/**
 * One validation path: capture reads a frame's data with its kind's schema — the schema the
 * loaders read the record with — so a misfit is found once, with the same words, whichever of the
 * two meets it (capture's `data_quality` detail, the loader's dead-letter reason).
 */

function frame(data: Record<string, unknown>): MarketFrame {
  return {
    origin: { connectionId: 'market-1', frameNo: 4, receivedAtUs: 1_767_700_800_000_000n },
    ts: '2026-01-06T12:00:00.000Z',
    seq: 9,
    data: data as MarketFrame['data'],
    raw: JSON.stringify({ type: 'trades', seq: 9, data }),
    conditionOf: () => 'cond-1',
  };
}

const TRADE = { token_id: 'tok-1', trade_id: 't-1', side: 'BUY', price_micro: '450000', shares_micro: '2000000' };

function finding(record: BusRecord): Pick<DataQualityPayload, 'problem' | 'detail'> {
  expect(record.kind).toBe('data_quality');
  const { problem, detail } = record.payload as DataQualityPayload;
  return { problem, detail };
}

/** What the loader makes of a record with this payload. */
function loaded(record: BusRecord) {
  const rows = mapDelivery(
    { ok: true, offset: 0n, record },
    { topic: 'tapehouse.market.trades', partition: 0, group: 'g' },
  );
  return rows[0]!;
}

describe('capture and the loaders read a payload with one schema', () => {
  it.each([
    [{ price_micro: '1500000' }, 'price_out_of_range', 'price_micro: "1500000" is outside (0, 1)'],
    [{ price_micro: '0' }, 'price_out_of_range', 'price_micro: "0" is outside (0, 1)'],
    [{ shares_micro: '0' }, 'negative_or_fractional_size', 'shares_micro: "0" is below 1'],
    [{ token_id: undefined }, 'malformed_trade', 'token_id: is missing'],
    [{ side: { x: 1 } }, 'malformed_trade', 'side: is an object, not a single value'],
  ])('a trade %j is a data_quality %s naming the field', (change, problem, detail) => {
    expect(finding(tradeRecord(frame({ ...TRADE, ...change })))).toEqual({ problem, detail });
  });

  it('a best quote at an impossible price or size is a finding; an empty side is not', () => {
    const quote = { token_id: 'tok-1', best_bid_micro: '440000', best_ask_micro: '460000' };
    expect(quoteRecord(frame({ ...quote, best_bid_micro: null })).kind).toBe('quote');
    expect(finding(quoteRecord(frame({ ...quote, best_ask_micro: '1000000' })))).toEqual({
      problem: 'price_out_of_range',
      detail: 'best_ask_micro: "1000000" is outside (0, 1)',
    });
    expect(finding(quoteRecord(frame({ ...quote, best_bid_size_micro: '-3' })))).toEqual({
      problem: 'negative_or_fractional_size',
      detail: 'best_bid_size_micro: "-3" is negative',
    });
  });

  it('the loader refuses what capture refuses, in the same words', () => {
    const good = tradeRecord(frame(TRADE));
    expect(good.kind).toBe('trade');
    expect(loaded(good).table).toBe('trades');
    const bad = { ...good, payload: { ...TRADE, price_micro: '1500000' } } as BusRecord;
    const letter = loaded(bad);
    expect(letter.table).toBe('dead_letters');
    expect(letter.row.reason).toContain('price_micro: "1500000" is outside (0, 1)');
    expect(letter.row.error_code).toBe('value_out_of_range');
  });
});
