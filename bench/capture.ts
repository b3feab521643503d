/**
 * Capture benchmark (`npm run bench -- capture`, about 30 s):
 * - recorded market-stream frames (the simulator's, a full-depth book of 50 levels a side, and
 *   the simulator's without its resting depth, books 3-7 levels deep)
 *   fed through capture's own frame path — envelope parse (with the fast path of snapshot book
 *   frames), duplicate check, book diff, book updates gathered into records as capture does
 *   (BookBatcher, its default limits, time taken from the frames) — and every record encoded to
 *   its wire form, against bare `JSON.parse` of the same bytes: frames/s, MB/s, and the ratio;
 * - the bytes of the level-change records written per book frame, next to the raw snapshot frame
 *   they replace — as text, and both gzip'd (all of a run's records against all of its book frames,
 *   as a compressing store keeps them: Kafka with gzip, ClickHouse's columns). The gzip'd ratio is
 *   the one to judge by: a snapshot frame repeats the whole book, which is what compression removes
 *   too, so the ratio to the uncompressed frames flatters the records. Batched as capture writes
 *   them and, for comparison, one record per frame.
 * All figures come from this one run on this machine.
 */
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { encodeRecord, type BusRecord } from '../src/bus/record.ts';
import { BOOK_BATCH_DEFAULTS, type BookBatchLimits } from '../src/capture/books/batcher.ts';
import { TokenBooks } from '../src/capture/books/token-books.ts';
import { MarketConnection, type MarketOwner } from '../src/capture/market/market-connection.ts';
import { MarketFeed } from '../src/capture/market/market-feed.ts';
import { newCounters } from '../src/capture/frames/counters.ts';
import { ManualClock, startSimulator } from '../src/simulator/index.ts';
import { ConnectionBudget } from '../src/streams/connection-budget.ts';
import type { Frame } from '../src/streams/types.ts';
import { systemClock } from '../src/util/clock.ts';

/** Seconds of measurement per contender. */
const SECONDS = 3;

/** Frames the simulator sends to a client subscribed to every market, over `venueMs` of its time. */
async function recordSimulatorFrames(venueMs: number, depthTicks?: number): Promise<string[]> {
  const clock = new ManualClock();
  const sim = await startSimulator({ seed: 3, rate: 40, clock, venue: { depthTicks } });
  for (let t = 0; t < 60_000; t += 500) sim.advance(500); // let the books fill
  const conditions = sim.venue.catalogue.markets.filter((m) => m.state === 'ACTIVE').map((m) => m.conditionId);
  const ws = new WebSocket(`${sim.wsUrl}/trade/v1/market-stream`);
  const frames: string[] = [];
  ws.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(
    JSON.stringify({
      op: 'subscribe',
      id: 1,
      channels: ['orderbook', 'best_quote', 'trades', 'market_status'],
      condition_ids: conditions,
    }),
  );
  for (let t = 0; t < venueMs; t += 100) {
    sim.advance(100);
    await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 200));
  ws.close();
  await sim.close();
  return frames;
}

/** Full-depth snapshot frames: 20 books of 50 levels a side, each frame moving one to three levels. */
function deepBookFrames(count: number): string[] {
  let seed = 42;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const books = Array.from({ length: 20 }, (_, b) => ({
    token: `${10n ** 76n + BigInt(b) * 7919n}`,
    condition: `0x${b.toString(16).padStart(64, '0')}`,
    bids: Array.from({ length: 50 }, (_, i) => [490_000 - i * 1_000, 1_000_000 * (1 + Math.floor(random() * 900))]),
    asks: Array.from({ length: 50 }, (_, i) => [510_000 + i * 1_000, 1_000_000 * (1 + Math.floor(random() * 900))]),
  }));
  const frames: string[] = [];
  for (let n = 0; n < count; n++) {
    const book = books[n % books.length]!;
    for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
      const side = random() < 0.5 ? book.bids : book.asks;
      side[Math.floor(random() * side.length)]![1] = 1_000_000 * (1 + Math.floor(random() * 900));
    }
    const levels = (side: number[][]) => side.map(([p, s]) => `{"price_micro":"${p}","shares_micro":"${s}"}`).join(',');
    const ts = new Date(Date.UTC(2025, 0, 6, 12) + n).toISOString();
    frames.push(
      `{"type":"orderbook","seq":${n + 1},"ts":"${ts}","data":{"kind":"snapshot","token_id":"${book.token}","condition_id":"${book.condition}","market_id":"m-${n % 20}","sequence":${n},"bids":[${levels(book.bids)}],"asks":[${levels(book.asks)}]}}`,
    );
  }
  return frames;
}

/** A market connection that is never opened: recorded frames go straight into its frame path, down to the feed (books,
 * batcher, sink). */
function connectionFor(feed: MarketFeed): MarketConnection {
  const owner: MarketOwner = {
    reseed: () => undefined,
    statusSeen: () => undefined,
    added: () => undefined,
    covered: () => undefined,
  };
  const options = {
    url: 'ws://127.0.0.1:9/trade/v1/market-stream',
    token: null,
    budget: new ConnectionBudget(),
    clock: systemClock,
    silenceMs: 30_000,
    counters: newCounters(),
    feed,
    owner,
  };
  return new MarketConnection(options, 'bench');
}

interface Pass {
  bytes: number;
  frames: number;
  /** Encoded bytes of the book_change records, and the book frames they came from. */
  changeBytes: number;
  changeRecords: number;
  bookFrames: number;
  bookFrameBytes: number;
}

/** One pass of capture over the frames: every record encoded, as the publisher hands them to the bus. */
function capturePass(
  frames: readonly string[],
  times: readonly bigint[],
  keep?: string[],
  limits: BookBatchLimits = BOOK_BATCH_DEFAULTS,
): Pass {
  const pass: Pass = {
    bytes: 0,
    frames: frames.length,
    changeBytes: 0,
    changeRecords: 0,
    bookFrames: 0,
    bookFrameBytes: 0,
  };
  let nowUs = 0n;
  const sink = {
    write(records: readonly BusRecord[]): void {
      for (const r of records) {
        const wire = encodeRecord(r);
        if (r.kind === 'book_change') {
          pass.changeBytes += wire.length;
          pass.changeRecords += 1;
          keep?.push(wire);
        }
      }
    },
  };
  // Time as the frames say (the batcher's time bound acts as it would live).
  const clock = { now: () => Number(nowUs / 1000n), sleep: systemClock.sleep, epochMicros: () => nowUs };
  const feed = new MarketFeed({ sink, clock, batch: limits, books: new TokenBooks({ sequenceBase: 0n }) });
  const connection = connectionFor(feed);
  const connectionId = 'c0ffee00-0000-4000-8000-000000000000';
  for (let i = 0; i < frames.length; i++) {
    const raw = frames[i]!;
    pass.bytes += raw.length;
    if (raw.startsWith('{"type":"orderbook"')) {
      pass.bookFrames += 1;
      pass.bookFrameBytes += raw.length;
    }
    nowUs = times[i]!;
    const frame: Frame = { connectionId, frameNo: i, receivedAtUs: nowUs, raw };
    connection.receive(frame);
  }
  feed.flush();
  return pass;
}

function jsonPass(frames: readonly string[]): number {
  let sink = 0;
  for (const raw of frames) sink += (JSON.parse(raw) as { seq?: number }).seq ?? 0;
  return sink;
}

/**
 * Passes per second of each contender, measured in alternating slices so that a machine whose
 * load changes during the run (it is shared) slows both alike.
 */
function compare(contenders: ReadonlyArray<() => void>): number[] {
  for (const run of contenders) run(); // warm-up
  const passes = contenders.map(() => 0);
  const spent = contenders.map(() => 0);
  const end = performance.now() + SECONDS * 1000 * contenders.length;
  while (performance.now() < end) {
    contenders.forEach((run, i) => {
      const start = performance.now();
      do {
        run();
        passes[i]! += 1;
      } while (performance.now() - start < 250);
      spent[i]! += performance.now() - start;
    });
  }
  return passes.map((n, i) => n / (spent[i]! / 1000));
}

/** Receive times as the frames' own times say (the batcher's time bound acts as it would live). */
function receiveTimes(frames: readonly string[]): bigint[] {
  let last = 1_736_164_800_000_000n;
  return frames.map((raw) => {
    const ts = /"ts":"([^"]+)"/.exec(raw)?.[1];
    const us = ts ? BigInt(Date.parse(ts)) * 1000n : last;
    last = us > last ? us : last + 1n;
    return last;
  });
}

function report(name: string, frames: readonly string[]): void {
  const bytes = frames.reduce((n, f) => n + f.length, 0);
  const times = receiveTimes(frames);
  const kept: string[] = [];
  const sample = capturePass(frames, times, kept);
  const [capturePerSecond, jsonPerSecond] = compare([() => capturePass(frames, times), () => jsonPass(frames)]) as [
    number,
    number,
  ];
  const mb = (passes: number) => (passes * bytes) / 1e6;
  const perFrame = sample.changeBytes / sample.bookFrames;
  const rawPerFrame = sample.bookFrameBytes / sample.bookFrames;
  const bookFrames = frames.filter((f) => f.startsWith('{"type":"orderbook"'));
  const gzChanges = gzipSync(kept.join('\n')).length / sample.bookFrames;
  const gzFrames = gzipSync(bookFrames.join('\n')).length / sample.bookFrames;
  console.log(
    `\n${name}: ${frames.length} frames, ${(bytes / 1e6).toFixed(1)} MB, ${sample.bookFrames} book frames (mean ${rawPerFrame.toFixed(0)} B)`,
  );
  console.log(
    `  capture (parse → diff → records → wire): ${(capturePerSecond * frames.length).toFixed(0)} frames/s, ${mb(capturePerSecond).toFixed(1)} MB/s`,
  );
  console.log(
    `  bare JSON.parse of the same bytes:        ${(jsonPerSecond * frames.length).toFixed(0)} frames/s, ${mb(jsonPerSecond).toFixed(1)} MB/s`,
  );
  console.log(
    `  ratio capture / JSON.parse:               ${(capturePerSecond / jsonPerSecond).toFixed(2)}  (aim ≥ 0.5)`,
  );
  console.log(`  level-change record bytes per book frame ÷ the snapshot frame as received (JSON text):`);
  console.log(
    `                                            ${perFrame.toFixed(0)} B ÷ ${rawPerFrame.toFixed(0)} B = ${((100 * perFrame) / rawPerFrame).toFixed(1)} %  (flatters: the frame repeats the whole book)`,
  );
  console.log(
    `  the same, both gzip'd (records ÷ frames):  ${gzChanges.toFixed(0)} B ÷ ${gzFrames.toFixed(0)} B = ${((100 * gzChanges) / gzFrames).toFixed(1)} %  (the ratio to judge by)`,
  );
  console.log(
    `  (${sample.changeRecords} change records for ${sample.bookFrames} book frames, batched up to ${BOOK_BATCH_DEFAULTS.maxUpdates} updates or ${BOOK_BATCH_DEFAULTS.maxDelayMs} ms)`,
  );
  // The same frames with other batch limits: bytes only.
  const alternatives: Array<[string, BookBatchLimits]> = [
    ['one record per frame instead:', { ...BOOK_BATCH_DEFAULTS, maxUpdates: 1 }],
    ['updates held up to 5 s instead:', { ...BOOK_BATCH_DEFAULTS, maxDelayMs: 5_000 }],
  ];
  for (const [label, limits] of alternatives) {
    const wires: string[] = [];
    const pass = capturePass(frames, times, wires, limits);
    const perBookFrame = pass.changeBytes / pass.bookFrames;
    const gz = gzipSync(wires.join('\n')).length / pass.bookFrames;
    console.log(
      `  ${label.padEnd(40)} ${perBookFrame.toFixed(0)} B = ${((100 * perBookFrame) / rawPerFrame).toFixed(1)} %, gzip'd ${gz.toFixed(0)} B = ${((100 * gz) / gzFrames).toFixed(1)} %  (${pass.changeRecords} records)`,
    );
  }
  if (bookFrames.length < frames.length) {
    // Trade and quote records carry their frame and its parsed data: the book path alone.
    const bookTimes = times.filter((_, i) => frames[i]!.startsWith('{"type":"orderbook"'));
    const [books, json] = compare([() => capturePass(bookFrames, bookTimes), () => jsonPass(bookFrames)]) as [
      number,
      number,
    ];
    console.log(
      `  book frames alone, ratio:                ${(books / json).toFixed(2)}  (${(books * bookFrames.length).toFixed(0)} frames/s)`,
    );
  }
}

report(
  'simulator market stream (every market; resting depth up to 50 ticks from the fair value)',
  await recordSimulatorFrames(60_000),
);
report('full-depth books (50 levels a side, 1-3 levels move per frame)', deepBookFrames(20_000));
// Shallow books are where a change record is largest next to its frame: the makers' quotes alone.
report(
  'for comparison, the simulator without resting depth (books 3-7 levels deep)',
  await recordSimulatorFrames(60_000, 0),
);
