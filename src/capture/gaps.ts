import type { BusRecord, Json } from '../bus/record.ts';
import { microsToIso } from './frame.ts';
import { record, type Origin } from './records.ts';

/**
 * `capture_gap` records: an interval in which some scope of a stream was not covered, with the
 * last instant covered before it and the first instant covered again. Bounds are conservative:
 * the start is the earlier of the venue's time and our receive time of the last frame received,
 * the end the later of the two for the frame that proves coverage again (an acknowledgement), so
 * anything the venue published and we did not receive lies inside.
 */

export type GapReason =
  /** The connection closed (by the venue, the network, or a refused reconnect after it). */
  | 'disconnected'
  /** No frame, not even a heartbeat, within the silence tolerance. */
  | 'silence'
  /** The venue asked for a reconnect (error frame action), or capture dropped a connection it could not trust. */
  | 'reconnect_requested'
  /** The venue's frame numbers jumped: frames were lost on a connection that stayed open. */
  | 'frames_missed'
  /** The venue said its sequence was reset: local state invalid. */
  | 'sequence_reset'
  /** The venue dropped one subscription (error frame action `resubscribe`). */
  | 'subscription_dropped'
  /** Capture unsubscribed on purpose (the market resolved or left the catalogue): coverage ends here. */
  | 'unsubscribed'
  /** Capture was not running (from the last instant the previous run had covered and published). */
  | 'capture_not_running'
  /** A market that was already trading when capture first learnt of it. */
  | 'subscribed_late'
  /** A listed market capture chose not to subscribe (the detail says why); a gap of no length, written once. */
  | 'not_captured';

/** What is recovered for a gap: books by a REST re-seed, account state by the sync jobs, a portfolio by its next full sync. */
export type GapRecovery = 'books_reseeded' | 'rest_sync' | 'next_full_sync' | 'none';

export interface GapScope {
  /** Everything this stream (of this capture process) covers. */
  all: boolean;
  channels: string[];
  token_ids: string[];
  condition_ids: string[];
  event_ids: string[];
}

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

export function gapRecord(facts: GapFacts, origin: Origin): BusRecord {
  const payload: { [key: string]: Json } = {
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
  return record('capture_gap', facts.stream, origin, null, payload, null);
}

export function scopeOf(channels: readonly string[], tokens: ReadonlyMap<string, string>, events: Iterable<string>): GapScope {
  return {
    all: false,
    channels: [...channels],
    token_ids: [...tokens.keys()],
    condition_ids: [...new Set(tokens.values())].filter((c) => c !== ''),
    event_ids: [...events],
  };
}
