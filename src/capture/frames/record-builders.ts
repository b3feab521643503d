import {
  type DataQualityPayload,
  type QualityProblem,
  type RecordKind,
  type Payload,
  keyOf,
  sourceOf,
  type BusRecord,
  type KeyHints,
  type Origin,
} from '../../records/index.ts';
import type { Frame } from '../../streams/types.ts';

/**
 * The envelope fields every capture record shares, and the data-quality record. Each kind's
 * payload is typed in src/records (what the loaders read).
 */

export type { Origin, QualityProblem };

export function originOf(frame: Frame): Origin {
  const origin: Origin = { connectionId: frame.connectionId, frameNo: frame.frameNo, receivedAtUs: frame.receivedAtUs };
  if (frame.connectionNo !== undefined) origin.connectionNo = frame.connectionNo;
  return origin;
}

/** A record of kind K, keyed by its kind's key function (src/records/kinds/) from its payload and `hints`. */
export function record<K extends RecordKind>(
  kind: K,
  hints: KeyHints,
  origin: Origin,
  venueTime: string | null,
  payload: Payload<K>,
  raw: string | null,
): BusRecord<K> {
  return {
    kind,
    key: keyOf(kind, payload, hints),
    venueTime,
    receivedAtUs: origin.receivedAtUs,
    source: sourceOf(origin),
    payload,
    raw,
  } as BusRecord<K>;
}

/** Raw text kept on a data-quality record, at most: an oversized frame must not make an oversized record. */
export const MAX_QUALITY_RAW_CHARS = 64 * 1024;

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
export function qualityRecord(
  facts: QualityFacts,
  origin: Origin,
  venueTime: string | null,
  raw: string | null,
): BusRecord<'data_quality'> {
  const truncated = raw !== null && raw.length > MAX_QUALITY_RAW_CHARS;
  const payload: DataQualityPayload = {
    problem: facts.problem,
    detail: facts.detail,
    stream: facts.stream,
    token_id: facts.tokenId ?? null,
    condition_id: facts.conditionId ?? null,
    frame_seq: facts.frameSeq ?? null,
    raw_chars: raw?.length ?? 0,
    raw_truncated: truncated,
  };
  return record('data_quality', {}, origin, venueTime, payload, truncated ? raw.slice(0, MAX_QUALITY_RAW_CHARS) : raw);
}
