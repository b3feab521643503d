import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import type { BusRecord } from '../src/bus/record.ts';
import type { BookUpdate } from '../src/records/index.ts';
import { TokenBooks, type BookFrame } from '../src/capture/books/token-books.ts';
import { isFrameProblem, parseFrame, type ParsedFrame } from '../src/capture/frames/frame.ts';
import { scanSnapshot } from '../src/capture/frames/snapshot-scan.ts';
import { ManualClock, startSimulator } from '../src/simulator/index.ts';
import { Prng } from '../src/simulator/prng.ts';

/** Every frame the simulator sends a client of every market over 20 s of its time, after a minute of trading. */
async function simulatorFrames(): Promise<string[]> {
  const clock = new ManualClock();
  const sim = await startSimulator({ seed: 5, rate: 40, clock });
  try {
    for (let t = 0; t < 60_000; t += 500) sim.advance(500);
    const ws = new WebSocket(`${sim.wsUrl}/trade/v1/market-stream`);
    const frames: string[] = [];
    ws.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
    await new Promise((resolve) => ws.once('open', resolve));
    const conditions = sim.venue.catalogue.markets.filter((m) => m.state === 'ACTIVE').map((m) => m.conditionId);
    ws.send(JSON.stringify({ op: 'subscribe', id: 1, channels: ['orderbook'], condition_ids: conditions }));
    for (let t = 0; t < 20_000; t += 100) {
      sim.advance(100);
      await new Promise((r) => setImmediate(r));
    }
    ws.send(JSON.stringify({ op: 'ping', id: 'end' }));
    await new Promise<void>((resolve) =>
      ws.on('message', (data: Buffer) => data.toString().includes('"pong"') && resolve()),
    );
    ws.close();
    return frames.filter((f) => f.startsWith('{"type":"orderbook"'));
  } finally {
    await sim.close();
  }
}

/** Ways a venue could write a book frame other than the one the fast path reads: each must give what JSON.parse gives.
 */
const MUTATIONS: ReadonlyArray<[string, (raw: string, rng: Prng) => string]> = [
  ['a zero size', (raw) => raw.replace(/"shares_micro":"\d+"/, '"shares_micro":"0"')],
  ['a size with a leading zero', (raw) => raw.replace(/"shares_micro":"(\d+)"/, '"shares_micro":"0$1"')],
  ['a price with a leading zero', (raw) => raw.replace(/"price_micro":"(\d+)"/, '"price_micro":"0$1"')],
  ['a price as a number', (raw) => raw.replace(/"price_micro":"(\d+)"/, '"price_micro":$1')],
  ['a price of 1,000,000', (raw) => raw.replace(/"price_micro":"(\d+)"/, '"price_micro":"1000000"')],
  ['a size of 16 digits', (raw) => raw.replace(/"shares_micro":"(\d+)"/, '"shares_micro":"1234567890123456"')],
  ['two bids swapped', (raw) => raw.replace(/"bids":\[(\{[^}]*\}),(\{[^}]*\})/, '"bids":[$2,$1')],
  ['a level twice', (raw) => raw.replace(/"asks":\[(\{[^}]*\})/, '"asks":[$1,$1')],
  ['whitespace', (raw) => raw.replace('"bids":[', '"bids": [')],
  ['a level with another field', (raw) => raw.replace(/"bids":\[\{([^}]*)\}/, '"bids":[{$1,"orders":"3"}')],
  ['a book field capture does not read', (raw) => raw.replace('"kind":"snapshot"', '"kind":"snapshot","hidden":true')],
  [
    'an envelope field capture does not read',
    (raw) => raw.replace('{"type":"orderbook"', '{"type":"orderbook","region":"eu"'),
  ],
  ['a second token_id after the arrays', (raw) => raw.replace(/\}\}$/, ',"token_id":"999"}}')],
  ['a second bids after the arrays', (raw) => raw.replace(/\}\}$/, ',"bids":[]}}')],
  [
    'bids nested in another field',
    (raw) => raw.replace('"kind":"snapshot"', '"kind":"snapshot","x":{"y":1,"bids":[],"asks":[]}'),
  ],
  [
    'asks before bids',
    (raw) => {
      const frame = JSON.parse(raw) as { data: Record<string, unknown> };
      const { bids, asks, ...rest } = frame.data;
      return JSON.stringify({ ...frame, data: { ...rest, asks, bids } });
    },
  ],
  ['no asks', (raw) => raw.replace(/,"asks":\[[^\]]*\]/, '')],
  ['an empty side', (raw) => raw.replace(/"asks":\[[^\]]*\]/, '"asks":[]')],
  ['a truncated frame', (raw, rng) => raw.slice(0, rng.int(1, raw.length - 1))],
  [
    'a delta',
    (raw) => {
      const frame = JSON.parse(raw) as { data: Record<string, unknown> };
      const { bids: _bids, asks: _asks, ...rest } = frame.data;
      return JSON.stringify({
        ...frame,
        data: { ...rest, kind: 'delta', changes: [{ side: 'bid', price_micro: '10000', shares_micro: '5000000' }] },
      });
    },
  ],
];

interface Path {
  books: TokenBooks;
  updates: BookUpdate[];
  records: BusRecord[];
}

function path(): Path {
  return { books: new TokenBooks({ sequenceBase: 1_000n }), updates: [], records: [] };
}

/** One frame through capture's book path: `fast` as capture reads frames, else JSON.parse of the whole frame. */
function feed(p: Path, raw: string, frameNo: number, fast: boolean): boolean {
  const origin = { connectionId: 'c1', frameNo, receivedAtUs: 1_736_164_800_000_000n + BigInt(frameNo) };
  const scanned = fast ? p.books.parseSnapshotFrame(raw) : null;
  const parsed: ParsedFrame | ReturnType<typeof parseFrame> = scanned ?? parseFrame(raw);
  if (!isFrameProblem(parsed)) {
    const frame: BookFrame = {
      origin,
      venueTime: parsed.ts,
      data: parsed.data,
      raw,
      unknownEnvelope: parsed.unknownFields,
      scanned: parsed.scanned,
    };
    const output = p.books.onFrame(frame);
    p.updates.push(...output.updates);
    p.records.push(...output.records);
  }
  return scanned !== null;
}

describe('the fast path of snapshot book frames', () => {
  it('gives the records, updates and ladders JSON.parse of every frame gives, on the simulator stream and on every way a frame can differ from its layout', async () => {
    const frames = await simulatorFrames();
    expect(frames.length).toBeGreaterThan(1_000);
    const rng = new Prng(17);
    const stream: Array<{ raw: string; mutation: string | null }> = [];
    for (const raw of frames) {
      // One frame in ten altered, every kind of alteration many times over.
      if (rng.chance(0.1)) {
        const [name, mutate] = MUTATIONS[rng.int(0, MUTATIONS.length - 1)]!;
        stream.push({ raw: mutate(raw, rng), mutation: name });
      }
      stream.push({ raw, mutation: null });
    }
    const general = path();
    const fast = path();
    const fastBy = new Map<string | null, number>();
    stream.forEach(({ raw, mutation }, i) => {
      feed(general, raw, i, false);
      if (feed(fast, raw, i, true)) fastBy.set(mutation, (fastBy.get(mutation) ?? 0) + 1);
    });
    expect(fast.updates).toEqual(general.updates);
    expect(fast.records).toEqual(general.records);
    for (const tokenId of general.books.tokens())
      expect(fast.books.ladder(tokenId)?.levels(), tokenId).toEqual(general.books.ladder(tokenId)?.levels());
    // Both paths were taken: the venue's frames fast, altered ones not (but an empty side, which is
    // the venue's layout), and the altered ones mattered.
    expect(fastBy.get(null)).toBeGreaterThan(frames.length * 0.9);
    expect([...fastBy.keys()].filter((m) => m !== null)).toEqual(['an empty side']);
    expect(general.records.filter((r) => r.kind === 'data_quality').length).toBeGreaterThan(20);
    expect(new Set(stream.map((s) => s.mutation)).size).toBe(MUTATIONS.length + 1);
  }, 60_000);

  it('reads a side again only when its text changed, and declines any frame not laid out as the venue writes it', () => {
    const frame = (bids: string, asks: string): string =>
      `{"type":"orderbook","seq":7,"ts":"2025-01-06T12:00:00.000Z","data":{"kind":"snapshot","token_id":"42","condition_id":"0xc","market_id":"m","sequence":3,"bids":[${bids}],"asks":[${asks}]}}`;
    const level = (price: number, size: number) => `{"price_micro":"${price}","shares_micro":"${size}"}`;
    const first = scanSnapshot(frame(level(480000, 5) + ',' + level(470000, 9), level(520000, 7)), () => undefined);
    expect(first?.bids.levels).toEqual([
      { priceMicro: 480000, sizeMicro: '5' },
      { priceMicro: 470000, sizeMicro: '9' },
    ]);
    expect(first?.asks.levels).toEqual([{ priceMicro: 520000, sizeMicro: '7' }]);
    expect(JSON.parse(first!.head).data).toMatchObject({ token_id: '42', sequence: 3, bids: [], asks: [] });
    const known = { bids: first!.bids.text, asks: first!.asks.text };
    const next = scanSnapshot(frame(level(480000, 5) + ',' + level(470000, 9), level(520000, 8)), (t) =>
      t === '42' ? known : undefined,
    );
    expect(next?.bids).toEqual({ text: known.bids, levels: null });
    expect(next?.asks.levels).toEqual([{ priceMicro: 520000, sizeMicro: '8' }]);
    for (const [bids, asks] of [
      [level(470000, 9) + ',' + level(480000, 5), ''], // bids rising
      [level(480000, 5), level(530000, 1) + ',' + level(520000, 1)], // asks falling
      [level(480000, 0), ''], // a zero size
      [level(480000, 5) + ',' + level(480000, 6), ''], // a price twice
      [level(1_000_000, 5), ''], // a price of one
      [`{"price_micro":"480000","shares_micro":"5","orders":2}`, ''],
      [`{"shares_micro":"5","price_micro":"480000"}`, ''],
      [`{"price_micro":"480000", "shares_micro":"5"}`, ''],
    ]) {
      expect(
        scanSnapshot(frame(bids!, asks!), () => undefined),
        `${bids} / ${asks}`,
      ).toBeNull();
    }
  });

  it('reads a side it found unchanged from its text when the ladder moved between the scan and the frame', () => {
    const books = new TokenBooks({ sequenceBase: 0n });
    const frame = (asks: string): string =>
      `{"type":"orderbook","seq":1,"ts":"2025-01-06T12:00:00.000Z","data":{"kind":"snapshot","token_id":"42","condition_id":"0xc","market_id":"m","sequence":3,"bids":[{"price_micro":"480000","shares_micro":"5"}],"asks":[${asks}]}}`;
    const feedScanned = (parsed: ParsedFrame): void =>
      void books.onFrame({
        origin: { connectionId: 'c1', frameNo: 1, receivedAtUs: 1n },
        venueTime: parsed.ts,
        data: parsed.data,
        raw: '',
        unknownEnvelope: false,
        scanned: parsed.scanned,
      });
    feedScanned(books.parseSnapshotFrame(frame('{"price_micro":"520000","shares_micro":"7"}'))!);
    const next = books.parseSnapshotFrame(frame('{"price_micro":"530000","shares_micro":"1"}'))!;
    expect(next.scanned?.bids.levels).toBeNull(); // unchanged at the scan
    // A REST re-seed lands in between and moves the bids.
    books.reseed(
      '42',
      {
        conditionId: '0xc',
        sequence: null,
        asOf: null,
        bids: [{ price_micro: 470000n, shares_micro: 2n }],
        asks: [],
        raw: '{}',
      },
      'reconnect',
      { connectionId: 'c1', frameNo: 1, receivedAtUs: 2n },
    );
    feedScanned(next);
    expect(books.ladder('42')?.levels()).toEqual({
      bids: [{ priceMicro: 480000, sizeMicro: '5' }],
      asks: [{ priceMicro: 530000, sizeMicro: '1' }],
    });
  });
});
