import type { BusRecord, Json, RecordKind, RecordSource } from '../bus/record.ts';
import type { Frame } from '../streams/types.ts';

/**
 * The envelope fields every capture record shares, and the data-quality record. Payload shapes
 * per kind are documented in README.md (the loaders map them to tables from there).
 */

/** Where a record came from: the connection and our number of the frame (or of the last frame before it). */
export interface Origin {
  connectionId: string;
  frameNo: number;
  receivedAtUs: bigint;
}

export function originOf(frame: Frame): Origin {
  return { connectionId: frame.connectionId, frameNo: frame.frameNo, receivedAtUs: frame.receivedAtUs };
}

export function sourceOf(origin: Origin): RecordSource {
  return { type: 'stream', connection: origin.connectionId, frame: origin.frameNo };
}

export function record(kind: RecordKind, key: string, origin: Origin, venueTime: string | null, payload: Json, raw: string | null): BusRecord {
  return { kind, key, venueTime, receivedAtUs: origin.receivedAtUs, source: sourceOf(origin), payload, raw };
}

/** Raw text kept on a data-quality record, at most: an oversized frame must not make an oversized record. */
export const MAX_QUALITY_RAW_CHARS = 64 * 1024;

export type QualityProblem =
  | 'invalid_json'
  | 'not_an_object'
  | 'wrong_types'
  | 'unknown_frame_type'
  | 'unknown_book_kind'
  | 'malformed_book'
  | 'malformed_trade'
  | 'malformed_quote'
  | 'malformed_status'
  | 'malformed_account_event'
  | 'malformed_portfolio_sync'
  | 'bad_micro_value'
  | 'too_deep'
  | 'malformed_level'
  | 'price_out_of_range'
  | 'negative_or_fractional_size'
  | 'zero_size_level'
  | 'duplicate_price'
  | 'crossed_book'
  | 'locked_book'
  | 'subscription_rejected'
  | 'venue_error'
  | 'rest_book_mismatch'
  | 'reseed_failed'
  | 'record_too_large'
  | 'conflicting_trade'
  | 'cursor_loop';

export interface QualityFacts {
  problem: QualityProblem;
  detail: string;
  /** Which of our streams saw it (market, account, portfolio). */
  stream: string;
  tokenId?: string | null;
  conditionId?: string | null;
  /** The venue's frame number, when the frame had one. */
  frameSeq?: number | null;
}

/** A finding about what the venue sent: keyed by condition when known, else by the stream. */
export function qualityRecord(facts: QualityFacts, origin: Origin, venueTime: string | null, raw: string | null): BusRecord {
  const truncated = raw !== null && raw.length > MAX_QUALITY_RAW_CHARS;
  const payload: Record<string, Json> = {
    problem: facts.problem,
    detail: facts.detail,
    stream: facts.stream,
    token_id: facts.tokenId ?? null,
    condition_id: facts.conditionId ?? null,
    frame_seq: facts.frameSeq ?? null,
    raw_chars: raw?.length ?? 0,
    raw_truncated: truncated,
  };
  return record('data_quality', facts.conditionId ?? facts.stream, origin, venueTime, payload, truncated ? raw.slice(0, MAX_QUALITY_RAW_CHARS) : raw);
}
