import { createHash } from 'node:crypto';
import {
  firstIssue,
  PAYLOAD_SCHEMAS,
  type BusRecord,
  type MarketStatusPayload,
  type QuotePayload,
  type TradePayload,
} from '../../records/index.ts';
import {
  MAX_NESTING,
  normaliseMicros,
  qualityRecord,
  record,
  type JsonObject,
  type Origin,
  type QualityProblem,
} from '../frames/index.ts';
import { readSequence, type TokenBooks } from '../books/index.ts';
import { DigestRing } from '../../util/digest-ring.ts';

/**
 * Trades, best quotes and market-status frames become records as they are: the frame's `data`
 * with its `_micro` values normalised, the raw frame kept, the venue's time, keyed by condition
 * (event for the event-scoped status kinds). A frame that lacks what the loader needs becomes a
 * data-quality record with the raw frame instead.
 */

export interface MarketFrame {
  origin: Origin;
  /** The envelope's time. */
  ts: string | null;
  seq: number | null;
  data: JsonObject;
  raw: string;
  /** Condition of a token we subscribed, for frames that do not name it. */
  conditionOf(tokenId: string): string | undefined;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function invalid(
  frame: MarketFrame,
  problem: QualityProblem,
  detail: string,
  tokenId: string | null,
  conditionId: string | null,
): BusRecord {
  return qualityRecord(
    { problem, detail, stream: 'market', tokenId, conditionId, frameSeq: frame.seq },
    frame.origin,
    frame.ts,
    frame.raw,
  );
}

interface Finding {
  problem: QualityProblem;
  detail: string;
}

/** Normalises micros: what is wrong with them (or with the data's nesting), or null. */
function microProblems(data: JsonObject): Finding | null {
  const problems: string[] = [];
  if (!normaliseMicros(data, problems))
    return { problem: 'too_deep', detail: `data nested deeper than ${MAX_NESTING} levels` };
  return problems.length > 0 ? { problem: 'bad_micro_value', detail: problems.join('; ') } : null;
}

/**
 * The frame's data read by its kind's schema (src/records/kinds/, the one the loaders read it with):
 * null when it fits, else the data-quality record of its first misfit — a range rule's own problem
 * (`price_out_of_range`, …) or `malformed`, the detail naming the field (`price_micro: "1500000" is
 * outside (0, 1)`).
 */
function misfit(
  kind: 'trade' | 'quote',
  frame: MarketFrame,
  malformed: QualityProblem,
  tokenId: string | null,
  conditionId: string | null,
): BusRecord | null {
  const parsed = PAYLOAD_SCHEMAS[kind].safeParse(frame.data);
  if (parsed.success) return null;
  const first = firstIssue(parsed.error);
  return invalid(frame, first.range?.problem ?? malformed, `${first.field}: ${first.reason}`, tokenId, conditionId);
}

/** The token and condition a frame is about, or the data-quality record for its bad micro values. */
function subjectOf(frame: MarketFrame): {
  tokenId: string | null;
  conditionId: string | null;
  invalid: BusRecord | null;
} {
  const { data } = frame;
  const tokenId = text(data.token_id);
  const conditionId = text(data.condition_id) ?? (tokenId ? frame.conditionOf(tokenId) : undefined) ?? null;
  const bad = microProblems(data);
  return { tokenId, conditionId, invalid: bad ? invalid(frame, bad.problem, bad.detail, tokenId, conditionId) : null };
}

export function tradeRecord(frame: MarketFrame): BusRecord {
  const { data } = frame;
  const { tokenId, conditionId, invalid: bad } = subjectOf(frame);
  if (bad) return bad;
  const wrong = misfit('trade', frame, 'malformed_trade', tokenId, conditionId);
  if (wrong) return wrong;
  // The schema read it: the fields the contract requires are there; the data goes on as sent.
  return record(
    'trade',
    { conditionId },
    frame.origin,
    text(data.executed_at) ?? frame.ts,
    data as TradePayload,
    frame.raw,
  );
}

/**
 * A best quote; the venue's has prices only (§6.2: "best prices, no depth"), so its sizes come from
 * capture's own ladder of the token when it stands at the quote's sequence (`books`).
 */
export function quoteRecord(frame: MarketFrame, books?: Pick<TokenBooks, 'sizesAt'>): BusRecord {
  const { tokenId, conditionId, invalid: bad } = subjectOf(frame);
  if (bad) return bad;
  const wrong = misfit('quote', frame, 'malformed_quote', tokenId, conditionId);
  if (wrong) return wrong;
  return record(
    'quote',
    { conditionId },
    frame.origin,
    frame.ts,
    withBookSizes(frame.data, tokenId ?? String(frame.data.token_id), books) as QuotePayload,
    frame.raw,
  );
}

/**
 * The quote with the sizes resting at its prices in capture's ladder, when the venue sent none and
 * the ladder is at the quote's venue sequence (the same book change): else as sent (sizes NULL).
 * The raw frame stays the venue's; `sizes_from` says where the sizes came from.
 */
function withBookSizes(data: JsonObject, tokenId: string, books: Pick<TokenBooks, 'sizesAt'> | undefined): JsonObject {
  if (!books || data.best_bid_size_micro !== undefined || data.best_ask_size_micro !== undefined) return data;
  const priceOf = (v: unknown): number | null | undefined =>
    v === null || v === undefined
      ? null
      : typeof v === 'string' && /^\d{1,7}$/.test(v)
        ? Number(v)
        : typeof v === 'number'
          ? v
          : undefined;
  const bid = priceOf(data.best_bid_micro);
  const ask = priceOf(data.best_ask_micro);
  if (bid === undefined || ask === undefined) return data;
  const sizes = books.sizesAt(tokenId, readSequence(data.sequence), bid, ask);
  return sizes ? { ...data, best_bid_size_micro: sizes.bid, best_ask_size_micro: sizes.ask, sizes_from: 'book' } : data;
}

export function statusRecord(frame: MarketFrame): BusRecord {
  const { data } = frame;
  const kind = text(data.kind);
  const conditionId = text(data.condition_id);
  const eventId = text(data.event_id);
  const bad = microProblems(data);
  if (bad) return invalid(frame, bad.problem, bad.detail, null, conditionId);
  if (!kind || !(conditionId ?? eventId))
    return invalid(
      frame,
      'malformed_status',
      'a status event needs a kind and a condition_id or event_id',
      null,
      conditionId,
    );
  // Unknown kinds are kept as they are (tolerant reader): the loader stores the string.
  return record('market_status', {}, frame.origin, frame.ts, data as MarketStatusPayload, frame.raw);
}

/**
 * Trades already recorded, by natural key (`tradeKey`: trade id and fill id), with the content each
 * key stood for. A frame the venue sent twice (or on two connections) is a duplicate and becomes
 * one record; the same key with other content is a conflict: both are kept, and a data-quality
 * record says so. Bounded: the oldest keys are forgotten first; the warehouse-level check catches
 * an older repeat.
 *
 * Held as 128-bit digests in two `DigestRing`s (keys; key and content together), allocated once
 * outside the JS heap: as a Map of key strings to content hashes it grew a job's live heap by
 * ~28 MiB an hour at rate 20 until it reached its capacity, some four hours in (DEVELOPERS.md).
 * The contents' ring holds twice as many, so a key's content is never forgotten before the key.
 */
export class SeenTrades {
  readonly #keys: DigestRing;
  readonly #contents: DigestRing;

  constructor(readonly capacity = 200_000) {
    this.#keys = new DigestRing(capacity);
    this.#contents = new DigestRing(capacity * 2);
  }

  /** `new` the first time a key is seen; `duplicate` for content seen under it before; `conflict` for other content. */
  admit(key: string, content: string): 'new' | 'duplicate' | 'conflict' {
    const contentDigest = createHash('md5').update(key).update('\u0000').update(content).digest();
    if (this.#contents.has(contentDigest)) return 'duplicate';
    this.#contents.add(contentDigest);
    const keyDigest = createHash('md5').update(key).digest();
    if (this.#keys.has(keyDigest)) return 'conflict';
    this.#keys.add(keyDigest);
    return 'new';
  }
}
