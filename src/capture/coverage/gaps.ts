import type { CaptureGapPayload, GapReason, GapRecovery, GapScope, BusRecord } from '../../records/index.ts';
import { microsToIso, record, type Origin } from '../frames/index.ts';

/**
 * `capture_gap` records: an interval in which some scope of a stream was not covered, with the
 * last instant covered before it and the first instant covered again. Bounds are conservative:
 * the start is the earlier of the venue's time and our receive time of the last frame received,
 * the end the later of the two for the frame that proves coverage again (an acknowledgement), so
 * anything the venue published and we did not receive lies inside.
 */

export type { GapReason, GapRecovery, GapScope };

export const WHOLE_STREAM: GapScope = { all: true, channels: [], token_ids: [], condition_ids: [], event_ids: [] };

export interface GapFacts {
  stream: string;
  reason: GapReason;
  detail: string;
  scope: GapScope;
  startUs: bigint;
  /** Null: coverage of the scope ended and was not taken up again (`unsubscribed`). */
  endUs: bigint | null;
  recovery: GapRecovery;
  /** Connection attempts refused while the gap lasted (429s and other answers). */
  refusedAttempts?: number;
  /** Frames the venue numbered but we never received, when its frame numbers tell. */
  framesMissed?: number | null;
}

export function gapRecord(facts: GapFacts, origin: Origin): BusRecord<'capture_gap'> {
  const payload: CaptureGapPayload = {
    stream: facts.stream,
    reason: facts.reason,
    detail: facts.detail,
    gap_start: microsToIso(facts.startUs),
    gap_end: facts.endUs === null ? null : microsToIso(facts.endUs),
    scope: { ...facts.scope },
    recovery: facts.recovery,
    connection_id: origin.connectionId,
    refused_attempts: facts.refusedAttempts ?? 0,
    frames_missed: facts.framesMissed ?? null,
  };
  return record('capture_gap', {}, origin, null, payload, null);
}

export function scopeOf(
  channels: readonly string[],
  tokens: ReadonlyMap<string, string>,
  events: Iterable<string>,
): GapScope {
  return {
    all: false,
    channels: [...channels],
    token_ids: [...tokens.keys()],
    condition_ids: [...new Set(tokens.values())].filter((c) => c !== ''),
    event_ids: [...events],
  };
}
