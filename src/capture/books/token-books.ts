import {
  type BookSnapshotPayload,
  type SnapshotReason,
  type BusRecord,
  bookChangeRecord,
  type BookUpdate,
  type UpdateKind,
} from '../../records/index.ts';
import { BookLadder, type Level, type LevelChange } from './ladder.ts';
import { parseLevels, type LevelProblem } from './levels.ts';
import { checkLadder } from './quality.ts';
import {
  hasUnknownKeys,
  isFrameProblem,
  isoToMicros,
  microsToIso,
  parseFrame,
  qualityRecord,
  record,
  levelsOf,
  scanSnapshot,
  type JsonObject,
  type ParsedFrame,
  type Origin,
  type ScannedSnapshot,
  type SideTexts,
} from '../frames/index.ts';

export type { SnapshotReason };

/** A book frame as capture reads it (`data` of an `orderbook` frame). */
export interface BookFrame {
  origin: Origin;
  venueTime: string | null;
  data: JsonObject;
  raw: string;
  /** The envelope had fields we do not know: keep the raw frame. */
  unknownEnvelope: boolean;
  /** The level arrays as the fast path read them (`data` then has them empty). */
  scanned?: ScannedSnapshot;
}

/** The REST order book of a re-seed, as the client parsed it, and its body. */
export interface RestBook {
  conditionId: string | null;
  sequence: number | null;
  asOf: string | null;
  bids: readonly { price_micro: bigint; shares_micro: bigint }[];
  asks: readonly { price_micro: bigint; shares_micro: bigint }[];
  raw: string;
}

interface TokenBook {
  tokenId: string;
  conditionId: string;
  ladder: BookLadder;
  /** Capture sequence of the last record about this book. */
  sequence: bigint;
  /** The venue's sequence the ladder stands at, when the venue numbers its books. */
  venueSequence: number | null;
  /** Instant the ladder's state holds from (venue time of the last change, or our receive time). */
  venueTime: string | null;
  receivedAtUs: bigint;
  origin: Origin;
  /** The impossible state already reported, so a crossed book is reported once, not per frame. */
  flagged: string | null;
  /** Whether a snapshot record of this book was written in this run: changes only mean something after one. */
  based: boolean;
  /**
   * The level arrays' text of the last snapshot frame read by the fast path, while the ladder is
   * still exactly that (views into that frame: it stays in memory, one frame a token at most).
   */
  sideTexts: SideTexts;
}

const NO_TEXTS: SideTexts = { bids: null, asks: null };

const SNAPSHOT_FIELDS = new Set([
  'kind',
  'token_id',
  'condition_id',
  'market_id',
  'sequence',
  'initial',
  'bids',
  'asks',
]);
const DELTA_FIELDS = new Set(['kind', 'token_id', 'condition_id', 'market_id', 'sequence', 'changes']);

/** What a book frame or a re-seed made: the book updates (level changes, in order) and the other records (snapshots,
 * findings). */
export interface BookOutput {
  updates: BookUpdate[];
  records: BusRecord[];
}

export interface TokenBooksOptions {
  /** The first capture sequence of a token: the run's start time in µs × 1000. */
  sequenceBase: bigint;
  /** Named by data-quality records (default `market`). */
  stream?: string;
}

/**
 * Every token's book as capture keeps it, and the records that describe it: `book_change` (the
 * levels a frame changed, with a per-token capture sequence) and `book_snapshot` (the whole
 * ladder, on re-seeds and on the anchor schedule). Frames older than the ladder (by the venue's
 * book sequence) are skipped, so a REST re-seed and the stream can race without going backwards.
 *
 * The capture sequence of a token starts at the run's start time in µs × 1000 and grows by one per
 * record, so it keeps growing across restarts without being stored anywhere.
 */
export class TokenBooks {
  readonly #books = new Map<string, TokenBook>();
  /** Sequences outlive forgotten books, so a token dropped and taken up again never reuses one. */
  readonly #sequences = new Map<string, bigint>();
  staleFrames = 0;

  readonly #sequenceBase: bigint;
  readonly #stream: string;

  /** Frames and re-seeds return what they made (BookOutput): the caller gathers the updates into records (BookBatcher).
   */
  constructor(options: TokenBooksOptions) {
    this.#sequenceBase = options.sequenceBase;
    this.#stream = options.stream ?? 'market';
  }

  has(tokenId: string): boolean {
    return this.#books.has(tokenId);
  }

  tokens(): IterableIterator<string> {
    return this.#books.keys();
  }

  /** The venue may number books afresh (a new connection, a sequence reset): the next frame is the base. */
  resetVenueSequences(tokenIds: Iterable<string>): void {
    for (const tokenId of tokenIds) {
      const book = this.#books.get(tokenId);
      if (book) book.venueSequence = null;
    }
  }

  forget(tokenId: string): void {
    const book = this.#books.get(tokenId);
    if (book) this.#sequences.set(tokenId, book.sequence);
    this.#books.delete(tokenId);
  }

  /**
   * The sizes resting at a best quote's prices, when the token's ladder stands at the quote's venue
   * sequence (the venue sends a change's book frame before its best_quote frame) and holds those
   * prices; null otherwise (no book, another sequence, a price it does not hold). A null side's
   * size is null.
   */
  sizesAt(
    tokenId: string,
    venueSequence: number | null,
    bidMicro: number | null,
    askMicro: number | null,
  ): { bid: string | null; ask: string | null } | null {
    const book = this.#books.get(tokenId);
    if (!book || venueSequence === null || book.venueSequence !== venueSequence) return null;
    const bid = bidMicro === null ? null : (book.ladder.bids.get(bidMicro) ?? undefined);
    const ask = askMicro === null ? null : (book.ladder.asks.get(askMicro) ?? undefined);
    return bid === undefined || ask === undefined ? null : { bid, ask };
  }

  /** The ladder of a token now (tests and `tapehouse book`). */
  ladder(tokenId: string): BookLadder | undefined {
    return this.#books.get(tokenId)?.ladder;
  }

  /**
   * A snapshot book frame through the fast path (snapshot-scan.ts), or null when the frame is not
   * one it can take: then the caller parses the whole frame.
   */
  parseSnapshotFrame(raw: string): ParsedFrame | null {
    const scanned = scanSnapshot(raw, (tokenId) => this.#books.get(tokenId)?.sideTexts);
    if (scanned === null) return null;
    const parsed = parseFrame(scanned.head);
    if (isFrameProblem(parsed) || parsed.type !== 'orderbook' || parsed.unknownFields) return null;
    const { data } = parsed;
    // The arrays emptied must be the book's own: the only bids and asks, in data, of a book with no field we do not
    // read.
    if (
      data.kind !== 'snapshot' ||
      data.token_id !== scanned.tokenId ||
      !isEmptyArray(data.bids) ||
      !isEmptyArray(data.asks) ||
      hasUnknownKeys(data, SNAPSHOT_FIELDS)
    )
      return null;
    parsed.scanned = scanned;
    return parsed;
  }

  /** An `orderbook` frame: level changes, skipped when stale, quality findings. */
  onFrame(frame: BookFrame): BookOutput {
    const out: BookOutput = { updates: [], records: [] };
    this.#frame(frame, out);
    return out;
  }

  #frame(frame: BookFrame, out: BookOutput): void {
    const { data } = frame;
    const kind = data.kind;
    const tokenId = typeof data.token_id === 'string' && data.token_id !== '' ? data.token_id : null;
    const conditionId = typeof data.condition_id === 'string' ? data.condition_id : null;
    if (kind !== 'snapshot' && kind !== 'delta') {
      return void out.records.push(
        this.#quality(
          frame,
          'unknown_book_kind',
          `book frame kind ${JSON.stringify(kind)} is not snapshot or delta`,
          tokenId,
          conditionId,
        ),
      );
    }
    if (tokenId === null)
      return void out.records.push(
        this.#quality(frame, 'malformed_book', 'a book frame needs a token_id', null, conditionId),
      );
    const venueSequence = readSequence(data.sequence);
    const book = this.#book(tokenId, conditionId, frame.origin);
    if (venueSequence !== null && book.venueSequence !== null && venueSequence < book.venueSequence) {
      this.staleFrames += 1;
      return;
    }
    const problems: LevelProblem[] = [];
    let changes: LevelChange[];
    const { scanned } = frame;
    if (scanned) {
      // A snapshot by the fast path: a side whose text the ladder already holds did not change.
      changes = [];
      const held = book.sideTexts;
      if (scanned.bids.text !== held.bids) book.ladder.replaceSide('bid', levelsOf(scanned.bids, 'bid'), changes);
      if (scanned.asks.text !== held.asks) book.ladder.replaceSide('ask', levelsOf(scanned.asks, 'ask'), changes);
      book.sideTexts = { bids: scanned.bids.text, asks: scanned.asks.text };
    } else if (kind === 'snapshot') {
      const bids = parseLevels(data.bids, 'bids', false);
      const asks = parseLevels(data.asks, 'asks', false);
      problems.push(...bids.problems, ...asks.problems);
      changes = book.ladder.replace(bids.levels, asks.levels);
      book.sideTexts = NO_TEXTS;
    } else {
      changes = book.ladder.apply(readDelta(data.changes, problems));
      book.sideTexts = NO_TEXTS;
    }
    if (problems.length > 0) out.records.push(this.#levelProblems(frame, problems, tokenId, book.conditionId));
    book.venueSequence = venueSequence ?? book.venueSequence;
    book.venueTime = frame.venueTime;
    book.receivedAtUs = frame.origin.receivedAtUs;
    book.origin = frame.origin;
    if (changes.length === 0) return;
    // A snapshot's changes re-derive its ladder exactly; its text is kept only when it carried
    // something we did not read. A delta is its changes, so it is kept as is (it is small).
    const known = kind === 'snapshot' ? SNAPSHOT_FIELDS : DELTA_FIELDS;
    const keepRaw = kind === 'delta' || frame.unknownEnvelope || hasUnknownKeys(data, known);
    this.#change(book, kind, changes, frame.origin, frame.venueTime, keepRaw ? frame.raw : null, out);
    // The first full book of a token in this run (a restart, a token taken up again) is written
    // whole at once: its changes are relative to an empty ladder, and a replay must not apply
    // them to a snapshot an earlier run left behind (the REST re-seed may come seconds later).
    if (kind === 'snapshot' && !book.based)
      out.records.push(
        this.#snapshotRecord(book, 'first_book', 'stream', frame.venueTime, this.#instantOf(book), null),
      );
    this.#check(book, out);
  }

  /**
   * A REST order book after a (re)connect or reset: applied when it is not older than the ladder
   * (its changes recorded as `reseed`), then the whole ladder written as a snapshot with the reason.
   */
  reseed(tokenId: string, rest: RestBook, reason: SnapshotReason, origin: Origin): BookOutput {
    const out: BookOutput = { updates: [], records: [] };
    const book = this.#book(tokenId, rest.conditionId, origin);
    const stale = rest.sequence !== null && book.venueSequence !== null && rest.sequence < book.venueSequence;
    if (stale) {
      // The stream is already past the REST answer: the ladder is the newer truth.
      out.records.push(this.#snapshotRecord(book, reason, 'stream', null, this.#instantOf(book), null));
      return out;
    }
    const bids = parseLevels(rest.bids.map(restLevel), 'bids', false);
    const asks = parseLevels(rest.asks.map(restLevel), 'asks', false);
    const frame: BookFrame = { origin, venueTime: rest.asOf, data: {}, raw: rest.raw, unknownEnvelope: false };
    if (bids.problems.length + asks.problems.length > 0)
      out.records.push(this.#levelProblems(frame, [...bids.problems, ...asks.problems], tokenId, book.conditionId));
    const sameSequence = rest.sequence !== null && rest.sequence === book.venueSequence;
    const changes = book.ladder.replace(bids.levels, asks.levels);
    book.sideTexts = NO_TEXTS;
    if (sameSequence && changes.length > 0) {
      out.records.push(
        this.#quality(
          frame,
          'rest_book_mismatch',
          `REST book at venue sequence ${rest.sequence} differs from the streamed one in ${changes.length} levels; REST kept`,
          tokenId,
          book.conditionId,
        ),
      );
    }
    book.venueSequence = rest.sequence ?? book.venueSequence;
    const asOfUs = isoToMicros(rest.asOf) ?? origin.receivedAtUs;
    const previous = this.#instantOf(book);
    book.venueTime = rest.asOf;
    book.receivedAtUs = origin.receivedAtUs;
    book.origin = origin;
    if (changes.length > 0) this.#change(book, 'reseed', changes, origin, rest.asOf, null, out);
    out.records.push(
      this.#snapshotRecord(book, reason, 'rest', rest.asOf, asOfUs > previous ? asOfUs : previous, rest.raw),
    );
    this.#check(book, out);
    return out;
  }

  /** The ladder as it stands, as a snapshot record (anchors; re-seeds without REST). */
  snapshot(tokenId: string, reason: SnapshotReason, nowUs: bigint): BusRecord | null {
    const book = this.#books.get(tokenId);
    if (!book) return null;
    const instant = this.#instantOf(book);
    return this.#snapshotRecord(book, reason, 'stream', null, nowUs > instant ? nowUs : instant, null);
  }

  #book(tokenId: string, conditionId: string | null, origin: Origin): TokenBook {
    let book = this.#books.get(tokenId);
    if (!book) {
      book = {
        tokenId,
        conditionId: conditionId ?? '',
        ladder: new BookLadder(),
        sequence: this.#sequences.get(tokenId) ?? this.#sequenceBase,
        venueSequence: null,
        venueTime: null,
        receivedAtUs: origin.receivedAtUs,
        origin,
        flagged: null,
        based: false,
        sideTexts: NO_TEXTS,
      };
      this.#books.set(tokenId, book);
    } else if (conditionId && !book.conditionId) {
      book.conditionId = conditionId;
    }
    return book;
  }

  #instantOf(book: TokenBook): bigint {
    return isoToMicros(book.venueTime) ?? book.receivedAtUs;
  }

  #change(
    book: TokenBook,
    update: UpdateKind,
    changes: readonly LevelChange[],
    origin: Origin,
    venueTime: string | null,
    raw: string | null,
    out: BookOutput,
  ): void {
    book.sequence += 1n;
    out.updates.push({
      tokenId: book.tokenId,
      conditionId: book.conditionId,
      sequence: book.sequence,
      venueSequence: book.venueSequence,
      update,
      venueTime,
      origin,
      changes,
      raw,
    });
  }

  #snapshotRecord(
    book: TokenBook,
    reason: SnapshotReason,
    source: 'rest' | 'stream',
    venueTime: string | null,
    asOfUs: bigint,
    raw: string | null,
  ): BusRecord {
    book.based = true;
    const { bids, asks } = book.ladder.levels();
    const payload: BookSnapshotPayload = {
      token_id: book.tokenId,
      condition_id: book.conditionId,
      sequence: book.sequence.toString(),
      venue_sequence: book.venueSequence,
      reason,
      source,
      as_of: microsToIso(asOfUs),
      bids: bids.map(levelJson),
      asks: asks.map(levelJson),
    };
    return record('book_snapshot', { conditionId: book.conditionId }, book.origin, venueTime, payload, raw);
  }

  #check(book: TokenBook, out: BookOutput): void {
    const issue = checkLadder(book.ladder);
    if (issue?.problem === book.flagged) return;
    book.flagged = issue?.problem ?? null;
    if (!issue) return;
    const frame: BookFrame = {
      origin: book.origin,
      venueTime: book.venueTime,
      data: {},
      raw: '',
      unknownEnvelope: false,
    };
    out.records.push(
      this.#quality(
        frame,
        issue.problem,
        `${issue.detail} (capture sequence ${book.sequence})`,
        book.tokenId,
        book.conditionId,
        null,
      ),
    );
  }

  #levelProblems(frame: BookFrame, problems: LevelProblem[], tokenId: string, conditionId: string): BusRecord {
    const detail = problems.map((p) => `${p.problem}: ${p.detail}`).join('; ');
    return this.#quality(frame, problems[0]!.problem, detail, tokenId, conditionId || null);
  }

  #quality(
    frame: BookFrame,
    problem: Parameters<typeof qualityRecord>[0]['problem'],
    detail: string,
    tokenId: string | null,
    conditionId: string | null,
    raw: string | null = frame.raw,
  ): BusRecord {
    return qualityRecord(
      { problem, detail, stream: this.#stream, tokenId, conditionId },
      frame.origin,
      frame.venueTime,
      raw,
    );
  }
}

/** The output as records, each update a `book_change` record of its own (without a batcher: tests, tools). */
export function recordsOf(output: BookOutput): BusRecord[] {
  return [...output.updates.map((u) => bookChangeRecord([u])), ...output.records];
}

function isEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

function levelJson(level: Level): [string, string] {
  return [String(level.priceMicro), level.sizeMicro];
}

function restLevel(level: { price_micro: bigint; shares_micro: bigint }): {
  price_micro: string;
  shares_micro: string;
} {
  return { price_micro: level.price_micro.toString(), shares_micro: level.shares_micro.toString() };
}

/** The venue's book sequence: a whole number, as a number or a decimal string. */
export function readSequence(value: unknown): number | null {
  // A negative number is no sequence (and no warehouse column holds one): the frame counts as unnumbered.
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return null;
}

const BID_SIDES = new Set(['bid', 'bids', 'buy', 'BUY', 'BID']);
const ASK_SIDES = new Set(['ask', 'asks', 'sell', 'SELL', 'ASK']);

/** The changed levels of a `delta` frame: `[{side, price_micro, shares_micro}]`, size 0 removes. */
function readDelta(input: unknown, problems: LevelProblem[]): LevelChange[] {
  if (!Array.isArray(input)) {
    problems.push({ problem: 'malformed_level', detail: 'changes: not an array' });
    return [];
  }
  const bids: unknown[] = [];
  const asks: unknown[] = [];
  for (const entry of input) {
    const side = (entry as JsonObject | null)?.side;
    if (typeof side === 'string' && BID_SIDES.has(side)) bids.push(entry);
    else if (typeof side === 'string' && ASK_SIDES.has(side)) asks.push(entry);
    else problems.push({ problem: 'malformed_level', detail: `changes: side ${JSON.stringify(side)}` });
  }
  const b = parseLevels(bids, 'bid changes', true);
  const a = parseLevels(asks, 'ask changes', true);
  problems.push(...b.problems, ...a.problems);
  const changes: LevelChange[] = [];
  for (const l of b.levels) changes.push({ side: 'bid', ...l });
  for (const l of a.levels) changes.push({ side: 'ask', ...l });
  return changes;
}
