import { describe, expect, it } from 'vitest';
import { BookLadder, type Level } from '../src/capture/books/ladder.ts';
import { parseLevels } from '../src/capture/books/levels.ts';
import { checkLadder } from '../src/capture/books/quality.ts';
import { replayBook, replayBookRecords, type ChangeRow, type SnapshotRow } from '../src/capture/books/replay.ts';
import { recordsOf, TokenBooks, type BookFrame } from '../src/capture/books/token-books.ts';
import type { BusRecord } from '../src/bus/record.ts';

const lv = (priceMicro: number, sizeMicro: string): Level => ({ priceMicro, sizeMicro });

describe('book ladder', () => {
  it('turns a replacement snapshot into the level changes between the two ladders', () => {
    const book = new BookLadder();
    expect(book.replace([lv(480000, '100'), lv(470000, '50')], [lv(520000, '70')])).toEqual([
      { side: 'bid', priceMicro: 480000, sizeMicro: '100' },
      { side: 'bid', priceMicro: 470000, sizeMicro: '50' },
      { side: 'ask', priceMicro: 520000, sizeMicro: '70' },
    ]);
    // One bid resized, one bid gone, one ask new: three changes, nothing for the untouched level.
    expect(book.replace([lv(480000, '90')], [lv(520000, '70'), lv(530000, '10')])).toEqual([
      { side: 'bid', priceMicro: 480000, sizeMicro: '90' },
      { side: 'bid', priceMicro: 470000, sizeMicro: '0' },
      { side: 'ask', priceMicro: 530000, sizeMicro: '10' },
    ]);
    expect(book.replace([lv(480000, '90')], [lv(520000, '70'), lv(530000, '10')])).toEqual([]);
    expect(book.levels()).toEqual({ bids: [lv(480000, '90')], asks: [lv(520000, '70'), lv(530000, '10')] });
  });

  it('applies delta levels and reports only those that changed something', () => {
    const book = new BookLadder();
    book.replace([lv(400000, '5')], []);
    const effective = book.apply([
      { side: 'bid', priceMicro: 400000, sizeMicro: '5' }, // same size: no change
      { side: 'bid', priceMicro: 390000, sizeMicro: '0' }, // removing an absent level: no change
      { side: 'ask', priceMicro: 600000, sizeMicro: '8' },
      { side: 'bid', priceMicro: 400000, sizeMicro: '0' },
    ]);
    expect(effective).toEqual([
      { side: 'ask', priceMicro: 600000, sizeMicro: '8' },
      { side: 'bid', priceMicro: 400000, sizeMicro: '0' },
    ]);
    expect(book.bestBid()).toBeNull();
    expect(book.bestAsk()).toBe(600000);
  });

  it('flags crossed and locked books without altering them', () => {
    const book = new BookLadder();
    book.replace([lv(550000, '1')], [lv(540000, '1')]);
    expect(checkLadder(book)).toEqual({ problem: 'crossed_book', detail: 'best bid 550000 above best ask 540000' });
    expect(book.bestBid()).toBe(550000);
    book.replace([lv(540000, '1')], [lv(540000, '1')]);
    expect(checkLadder(book)?.problem).toBe('locked_book');
    book.replace([lv(530000, '1')], [lv(540000, '1')]);
    expect(checkLadder(book)).toBeNull();
  });
});

describe('parsing book levels', () => {
  it('accepts the shapes a venue may use and canonicalises sizes exactly', () => {
    const parsed = parseLevels(
      [
        { price_micro: '480000', shares_micro: '000120' },
        { price_micro: 470000, size_micro: '9223372036854775807' },
        ['460000', 7],
      ],
      'bids',
      false,
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.levels).toEqual([lv(480000, '120'), lv(470000, '9223372036854775807'), lv(460000, '7')]);
  });

  it('names every broken level and keeps the good ones', () => {
    const parsed = parseLevels(
      [
        { price_micro: '1000000', shares_micro: '1' }, // price 1.0 is outside (0, 1)
        { price_micro: '0', shares_micro: '1' },
        { price_micro: '0.5', shares_micro: '1' },
        { price_micro: '500000', shares_micro: '-1' },
        { price_micro: '500000', shares_micro: '1.5' },
        { price_micro: '500000', shares_micro: '9223372036854775808' }, // beyond Int64
        { price_micro: '500000', shares_micro: '0' },
        { price_micro: '510000', shares_micro: '3' },
        { price_micro: '510000', shares_micro: '4' },
        'junk',
      ],
      'asks',
      false,
    );
    expect(parsed.problems.map((p) => p.problem)).toEqual([
      'price_out_of_range',
      'price_out_of_range',
      'malformed_level',
      'negative_or_fractional_size',
      'negative_or_fractional_size',
      'negative_or_fractional_size',
      'zero_size_level',
      'duplicate_price',
      'malformed_level',
    ]);
    // A price given twice is one level: the later one.
    expect(parsed.levels).toEqual([lv(510000, '4')]);
    expect(parseLevels({ not: 'an array' }, 'bids', false).problems[0]?.problem).toBe('malformed_level');
  });

  it('finds a price given twice wherever it is in the list, sorted or not', () => {
    const side = (prices: number[]) =>
      parseLevels(
        prices.map((p, i) => ({ price_micro: String(p), shares_micro: String(i + 1) })),
        'bids',
        false,
      );
    const sorted = side([530000, 520000, 510000, 500000]);
    expect(sorted.problems).toEqual([]);
    expect(sorted.levels.map((l) => l.priceMicro)).toEqual([530000, 520000, 510000, 500000]);
    const repeated = side([530000, 520000, 510000, 520000, 490000, 530000]);
    expect(repeated.problems.map((p) => p.detail)).toEqual([
      'bids price 520000 twice; the later level wins',
      'bids price 530000 twice; the later level wins',
    ]);
    expect(repeated.levels).toEqual([lv(530000, '6'), lv(520000, '4'), lv(510000, '3'), lv(490000, '5')]);
    expect(side([500000, 500000]).levels).toEqual([lv(500000, '2')]);
  });
});

describe('book replay', () => {
  /** Small seeded PRNG so the walk is the same on every run. */
  function prng(seed: number) {
    return () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
  }

  it('rebuilds the ladder at any instant from an anchor snapshot and later level changes', () => {
    const random = prng(7);
    const live = new BookLadder();
    const snapshots: SnapshotRow[] = [];
    const changes: ChangeRow[] = [];
    const truth: Array<{ atUs: bigint; levels: ReturnType<BookLadder['levels']> }> = [];
    let sequence = 0n;
    for (let frame = 0; frame < 400; frame++) {
      const atUs = BigInt(1_000_000 + frame * 1000);
      const side = (n: number, from: number, step: number) =>
        Array.from({ length: n }, (_, i) => lv(from + step * i, String(1 + Math.floor(random() * 5)))).filter(
          () => random() > 0.2,
        );
      const bids = side(1 + Math.floor(random() * 6), 490000 - Math.floor(random() * 3) * 10000, -10000);
      const asks = side(1 + Math.floor(random() * 6), 510000 + Math.floor(random() * 3) * 10000, 10000);
      const diff = live.replace(bids, asks);
      if (diff.length > 0) sequence += 1n;
      for (const c of diff) changes.push({ ...c, tokenId: 't', atUs, sequence });
      if (frame === 0 || frame % 97 === 0) snapshots.push({ tokenId: 't', atUs, sequence, ...live.levels() });
      truth.push({ atUs, levels: live.levels() });
    }
    for (let i = 0; i < truth.length; i += 7) {
      const { atUs, levels } = truth[i]!;
      expect(replayBook(snapshots, changes, atUs)?.ladder.levels()).toEqual(levels);
    }
    expect(replayBook(snapshots, changes, 999_999n)).toBeNull();
  });
});

describe('a capture run taking up a book', () => {
  const frame = (
    bids: Array<[number, string]>,
    asks: Array<[number, string]>,
    atMs: number,
    frameNo: number,
  ): BookFrame => {
    const levels = (ls: Array<[number, string]>) => ls.map(([p, s]) => ({ price_micro: String(p), shares_micro: s }));
    const data = {
      kind: 'snapshot',
      token_id: 'T',
      condition_id: 'C',
      sequence: frameNo,
      bids: levels(bids),
      asks: levels(asks),
    };
    return {
      origin: { connectionId: 'market-1', frameNo, receivedAtUs: BigInt(atMs) * 1000n + 500n },
      venueTime: new Date(atMs).toISOString(),
      data,
      raw: JSON.stringify(data),
      unknownEnvelope: false,
    };
  };

  it("writes a token's first full book of the run as a snapshot at once, so replay never builds on an earlier run's snapshot", () => {
    const t0 = Date.UTC(2026, 0, 1);
    // The earlier run: its first book, then a change; then it is killed (what followed is lost).
    const earlier = new TokenBooks({ sequenceBase: 1_000n });
    const before: BusRecord[] = [];
    before.push(
      ...recordsOf(
        earlier.onFrame(
          frame(
            [
              [480000, '100'],
              [470000, '50'],
            ],
            [[530000, '10']],
            t0,
            1,
          ),
        ),
      ),
    );
    before.push(
      ...recordsOf(
        earlier.onFrame(
          frame(
            [
              [480000, '100'],
              [470000, '50'],
            ],
            [[530000, '20']],
            t0 + 1_000,
            2,
          ),
        ),
      ),
    );
    // The next run sees the book again, before any REST re-seed answers.
    const later = new TokenBooks({ sequenceBase: 2_000n });
    const after: BusRecord[] = [];
    after.push(...recordsOf(later.onFrame(frame([[480000, '90']], [[520000, '70']], t0 + 60_000, 1))));
    expect(after.map((r) => r.kind)).toEqual(['book_change', 'book_snapshot']);
    expect(after[1]!.payload).toMatchObject({ reason: 'first_book', source: 'stream' });
    after.push(...recordsOf(later.onFrame(frame([[480000, '95']], [[520000, '70']], t0 + 61_000, 2))));
    expect(after.filter((r) => r.kind === 'book_snapshot')).toHaveLength(1);

    const at = (ms: number) =>
      replayBookRecords([...before, ...after], 'T', BigInt(ms) * 1000n + 999n)!.ladder.levels();
    expect(at(t0 + 1_000)).toEqual({ bids: [lv(480000, '100'), lv(470000, '50')], asks: [lv(530000, '20')] });
    expect(at(t0 + 60_000)).toEqual({ bids: [lv(480000, '90')], asks: [lv(520000, '70')] });
    expect(at(t0 + 61_000)).toEqual({ bids: [lv(480000, '95')], asks: [lv(520000, '70')] });
  });
});
