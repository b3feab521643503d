/**
 * The bulky hostile inputs, built when the suite runs rather than committed: huge ladders, deep
 * nesting, oversized frames and bodies, floods of fields and control characters. Same shape as
 * the entries of the JSONL files next to this module (see inputs.ts).
 */

export interface GeneratedEntry {
  name: string;
  about: string;
  expect: string;
  /** Stream families: the frame text. Bus family: the record's wire text. */
  raw?: string;
  /** REST family. */
  endpoint?: string;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

const TS = '2026-03-02T09:00:00.000Z';

function levels(count: number, from: number, step: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(`{"price_micro":"${from + i * step}","shares_micro":"${1_000_000 + i}"}`);
  return `[${out.join(',')}]`;
}

/** A snapshot frame with `perSide` levels a side, inside (0, 1) and never crossed. */
function ladderFrame(perSide: number): string {
  // Bids 1 … perSide, asks from 500,000 up: distinct prices, always inside (0, 1).
  const data = `{"kind":"snapshot","token_id":"tok-1","condition_id":"cond-1","market_id":"m-1","sequence":10,"bids":${levels(perSide, 1, 1)},"asks":${levels(perSide, 500_000, 1)}}`;
  return `{"type":"orderbook","seq":1,"ts":"${TS}","data":${data}}`;
}

function tradeWith(extra: string): string {
  return `{"type":"trades","ts":"${TS}","data":{"trade_id":"t-1","token_id":"tok-1","condition_id":"cond-1","side":"BUY","price_micro":"450000","shares_micro":"2000000","executed_at":"${TS}"${extra}}}`;
}

const nestedObjects = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const nestedArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

export function generatedMarket(): GeneratedEntry[] {
  const manyFields = Array.from({ length: 100_000 }, (_, i) => `"x_${i}":${i}`).join(',');
  return [
    { name: 'huge-ladder', about: 'a snapshot of 20,000 levels a side', expect: 'stored', raw: ladderFrame(20_000) },
    { name: 'huger-ladder', about: 'a snapshot of 60,000 levels a side: its level changes are stored, its first book_snapshot is larger than the books topic takes', expect: 'flagged:record_too_large', raw: ladderFrame(60_000) },
    { name: 'deep-objects', about: 'a trade with an unknown field nested 100,000 objects deep', expect: 'rejected:too_deep', raw: tradeWith(`,"x":${nestedObjects(100_000)}`) },
    { name: 'deep-arrays', about: 'a trade with an unknown field nested 100,000 arrays deep', expect: 'rejected:too_deep', raw: tradeWith(`,"x":${nestedArrays(100_000)}`) },
    { name: 'moderately-deep', about: 'a trade with an unknown field nested 50 objects deep', expect: 'stored', raw: tradeWith(`,"x":${nestedObjects(50)}`) },
    { name: 'oversized-frame', about: 'a 20 MB trade frame (one huge unknown field)', expect: 'rejected:record_too_large', raw: tradeWith(`,"x":"${'y'.repeat(20 * 1024 * 1024)}"`) },
    { name: 'control-char-flood', about: 'a trade id of 100,000 control characters', expect: 'stored', raw: tradeWith('').replace('"t-1"', `"${'\\u0001\\u001b\\u0007'.repeat(33_333)}"`) },
    { name: 'field-flood', about: 'a trade with 100,000 unknown fields: its record is larger than the trades topic takes', expect: 'rejected:record_too_large', raw: tradeWith(`,${manyFields}`) },
    {
      name: 'delta-flood',
      about: 'a delta of 50,000 changes: with its raw frame, larger than the books topic takes',
      expect: 'rejected:record_too_large',
      raw: `{"type":"orderbook","ts":"${TS}","data":{"kind":"delta","token_id":"tok-1","condition_id":"cond-1","sequence":11,"changes":[${Array.from({ length: 50_000 }, (_, i) => `{"side":"bid","price_micro":"${i + 1}","shares_micro":"1"}`).join(',')}]}}`,
    },
  ];
}

export function generatedAccount(): GeneratedEntry[] {
  return [
    { name: 'deep-objects', about: 'an order with an unknown field nested 100,000 objects deep', expect: 'rejected:too_deep', raw: `{"type":"account_events","ts":"${TS}","data":{"kind":"order_accepted","order":{"internal_id":"o-1","x":${nestedObjects(100_000)}}}}` },
  ];
}

export function generatedPortfolio(): GeneratedEntry[] {
  const positions = Array.from({ length: 20_000 }, (_, i) => `{"token_id":"tok-${i}","shares_micro":"${i + 1}"}`).join(',');
  return [
    { name: 'many-positions', about: 'a sync of 20,000 positions', expect: 'stored', raw: `{"type":"portfolio.sync","seq":"1","stream_id":"s-1","positions":{"as_of":"${TS}","positions":[${positions}]}}` },
    { name: 'deep-arrays', about: 'a sync with a field nested 100,000 arrays deep', expect: 'rejected:too_deep', raw: `{"type":"portfolio.sync","seq":"1","stream_id":"s-1","positions":{"as_of":"${TS}","positions":[]},"x":${nestedArrays(100_000)}}` },
  ];
}

export function generatedRest(): GeneratedEntry[] {
  const json = { 'content-type': 'application/json' };
  const book = (perSide: number) => `{"token_id":"tok-1","bids":${levels(perSide, 1, 1)},"asks":${levels(perSide, 500_000, 1)},"sequence":1}`;
  return [
    { name: 'orderbook-huge', about: 'an order book of 100,000 levels a side (about 9 MB)', expect: 'accepted', endpoint: 'orderbook', status: 200, headers: json, body: book(100_000) },
    { name: 'order-deep-nesting', about: 'an order with an unknown field nested 100,000 arrays deep', expect: 'accepted', endpoint: 'order', status: 200, headers: json, body: `{"internal_id":"o-1","status":"LIVE","x":${nestedArrays(100_000)}}` },
    {
      name: 'problem-huge-detail',
      about: 'a problem with a 1 MB detail',
      expect: 'typed_error:ServiceError:internal_error',
      endpoint: 'order',
      status: 500,
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({ code: 'internal_error', status: 500, request_id: 'req-1', detail: 'x'.repeat(1_000_000) }),
    },
    { name: 'control-char-body', about: 'an order whose id is 100,000 control characters', expect: 'accepted', endpoint: 'order', status: 200, headers: json, body: `{"internal_id":"${'\\u0000\\u001b'.repeat(50_000)}","status":"LIVE"}` },
  ];
}

export function generatedBus(): GeneratedEntry[] {
  const wire = (kind: string, payload: string) => `{"v":1,"kind":"${kind}","key":"cond-1","venue_time":"${TS}","received_at_us":"1772442000000000","source":{"type":"stream","connection":"c-1","frame":1},"payload":${payload},"raw":null}`;
  const pairs = Array.from({ length: 50_000 }, (_, i) => `["${i + 1}","1"]`).join(',');
  return [
    { name: 'book-change-huge', about: 'a book change of 50,000 levels', expect: 'stored', raw: wire('book_change', `{"token_id":"tok-1","sequence":"1","update":"snapshot","bids":[${pairs}],"asks":[]}`) },
    { name: 'trade-deep-nesting', about: 'a trade with an unknown field nested 100,000 arrays deep', expect: 'dead_letter:mapping_failed', raw: wire('trade', `{"token_id":"tok-1","side":"BUY","price_micro":"1","shares_micro":"1","x":${nestedArrays(100_000)}}`) },
    { name: 'raw-10mb', about: 'a trade whose raw text is 10 MB', expect: 'stored', raw: wire('trade', '{"token_id":"tok-1","side":"BUY","price_micro":"1","shares_micro":"1"}').replace('"raw":null', `"raw":"${'r'.repeat(10 * 1024 * 1024)}"`) },
  ];
}
