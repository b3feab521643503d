import type { Unread } from './json.ts';
import { integer, list, loose, object, requiredScalar, scalar, streamData } from './schema.ts';

/** Why coverage was lost (src/capture/README.md, "Gaps"; the sync jobs and the price streams add
 * `endpoint_not_offered`). */
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
  | 'not_captured'
  /** A sync job's endpoint, or a price stream, is not offered by this venue (from the previous check to this one). */
  | 'endpoint_not_offered'
  /** Settled-PnL buckets the venue served while the PnL job did not read it (down, or failing): the venue serves only
   * its latest. */
  | 'buckets_not_observed';

/** What is recovered for a gap: books by a REST re-seed, account state by the sync jobs, a portfolio by its next full
 * sync. */
export type GapRecovery = 'books_reseeded' | 'rest_sync' | 'next_full_sync' | 'none';

export type GapScope = {
  /** Everything this stream (of this capture process) covers. */
  all: boolean;
  channels: string[];
  token_ids: string[];
  condition_ids: string[];
  event_ids: string[];
};

/**
 * `capture_gap` — topic capture.gaps, key the stream. An interval some scope of a stream was not
 * covered. Made by capture (src/capture/coverage/gaps.ts) and by the sync jobs for an endpoint not offered
 * (src/sync/run-job.ts: `channel`, `subject_kind`, `subject` instead of a scope); stored one
 * `capture_gaps` row per channel × subject.
 */
export interface CaptureGapPayload extends Unread {
  /** market, account, portfolio, prices, oracle_pro, or sync. */
  stream: string;
  reason: GapReason;
  detail: string;
  /** ISO, µs: the last instant covered. */
  gap_start: string;
  /** ISO, µs: the first instant covered again; null when coverage ended on purpose (a gap of no length). */
  gap_end: string | null;
  recovery: GapRecovery;
  scope?: GapScope;
  connection_id?: string;
  refused_attempts?: number;
  frames_missed?: number | null;
  /** The sync jobs' form: the job, and whose resource (venue or account). */
  channel?: string;
  subject_kind?: 'venue' | 'account';
  subject?: string;
}

/**
 * A `capture_gap` payload at the bus boundary: capture's `scope`, or the flat lists
 * (`token_ids`, …) or `subject_kind`/`subject` of other forms; bounds as ISO text or `…_us`
 * microseconds (parsed by the loader); any detail (an error frame is kept as its JSON).
 */
export const captureGapSchema = streamData(
  loose({
    stream: requiredScalar,
    reason: requiredScalar,
    recovery: scalar,
    last_sequence_before: integer,
    first_sequence_after: integer,
    scope: object,
    channel: scalar,
    token_ids: list,
    condition_ids: list,
    event_ids: list,
    subject_kind: scalar,
    subject: scalar,
  }),
);
