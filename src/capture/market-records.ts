import type { BusRecord, Json } from '../bus/record.ts';
import type { JsonObject } from './frame.ts';
import { normaliseMicros } from './micro-fields.ts';
import { qualityRecord, record, type Origin, type QualityProblem } from './records.ts';

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

export const EVENT_SCOPED_STATUS = new Set(['current_market_changed', 'market_resolution_completed']);

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function invalid(frame: MarketFrame, problem: QualityProblem, detail: string, tokenId: string | null, conditionId: string | null): BusRecord {
  return qualityRecord({ problem, detail, stream: 'market', tokenId, conditionId, frameSeq: frame.seq }, frame.origin, frame.ts, frame.raw);
}

/** Normalises micros; the problems found, joined, or null. */
function microProblems(data: JsonObject): string | null {
  const problems: string[] = [];
  normaliseMicros(data, problems);
  return problems.length > 0 ? problems.join('; ') : null;
}

/** A public trade; `null` trade id allowed (no deduplication then). */
/** The token and condition a frame is about, or the data-quality record for its bad micro values. */
function subjectOf(frame: MarketFrame): { tokenId: string | null; conditionId: string | null; invalid: BusRecord | null } {
  const { data } = frame;
  const tokenId = text(data.token_id);
  const conditionId = text(data.condition_id) ?? (tokenId ? frame.conditionOf(tokenId) : undefined) ?? null;
  const bad = microProblems(data);
  return { tokenId, conditionId, invalid: bad ? invalid(frame, 'bad_micro_value', bad, tokenId, conditionId) : null };
}

export function tradeRecord(frame: MarketFrame): BusRecord {
  const { data } = frame;
  const { tokenId, conditionId, invalid: bad } = subjectOf(frame);
  if (bad) return bad;
  if (!tokenId || typeof data.price_micro !== 'string' || typeof data.shares_micro !== 'string') {
    return invalid(frame, 'malformed_trade', 'a trade needs token_id, price_micro and shares_micro', tokenId, conditionId);
  }
  return record('trade', conditionId ?? tokenId, frame.origin, text(data.executed_at) ?? frame.ts, data as Json, frame.raw);
}

export function quoteRecord(frame: MarketFrame): BusRecord {
  const { tokenId, conditionId, invalid: bad } = subjectOf(frame);
  if (bad) return bad;
  if (!tokenId) return invalid(frame, 'malformed_quote', 'a best quote needs a token_id', null, conditionId);
  return record('quote', conditionId ?? tokenId, frame.origin, frame.ts, frame.data as Json, frame.raw);
}

export function statusRecord(frame: MarketFrame): BusRecord {
  const { data } = frame;
  const kind = text(data.kind);
  const conditionId = text(data.condition_id);
  const eventId = text(data.event_id);
  const bad = microProblems(data);
  if (bad) return invalid(frame, 'bad_micro_value', bad, null, conditionId);
  if (!kind || !(conditionId ?? eventId)) return invalid(frame, 'malformed_status', 'a status event needs a kind and a condition_id or event_id', null, conditionId);
  // Unknown kinds are kept as they are (tolerant reader): the loader stores the string.
  const key = EVENT_SCOPED_STATUS.has(kind) ? (eventId ?? conditionId) : (conditionId ?? eventId);
  return record('market_status', key as string, frame.origin, frame.ts, data as Json, frame.raw);
}

/**
 * Trade ids already recorded, so a frame the venue sent twice (or on two connections) becomes
 * one record. Bounded: the oldest ids are forgotten first; a duplicate older than that would be
 * caught by the loader's natural key (trade_id).
 */
export class SeenIds {
  readonly #ids = new Set<string>();
  constructor(readonly capacity = 200_000) {}

  /** True the first time an id is seen. */
  first(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    if (this.#ids.size > this.capacity) {
      for (const oldest of this.#ids) {
        this.#ids.delete(oldest);
        break;
      }
    }
    return true;
  }
}
