import type { CaptureGapPayload } from '../../records/capture-gap.ts';
import type { Json } from '../../records/json.ts';
import type { BusRecord } from '../../records/record.ts';
import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/** What the PnL job keeps between runs: the bucket it saw last, and what it learnt of the venue's cadence. */
export interface PnlState {
  /** `bucket_at|mark_run_id` of the last bucket published. */
  bucket?: string;
  /** Its bucket_at and mark_captured_at (epoch ms). */
  bucketAtMs?: number;
  markAtMs?: number;
  /** The last successful read that still returned it (epoch ms). */
  lastReadMs?: number;
  /** The smallest spacing seen between two consecutive buckets observed without a pause: the venue's cadence, as far as we know. */
  cadenceMs?: number;
}

/**
 * GET /trade/v1/portfolio/pnl: the latest settled bucket. 425 pnl_not_ready is waited out by the
 * client (longer patience, following retry_after); past that the job is retried later. A bucket
 * already published (same bucket_at and mark run, kept in the job's state) is not published again,
 * so the records are one per bucket — as long as the job runs more often than the venue marks.
 *
 * The venue serves only its latest bucket: one it marked while the job was not running, or while
 * the read failed (503 pnl_unavailable, …), is gone. When a read returns a bucket further from the
 * last one than the venue's cadence, the buckets in between are a `capture_gap` (stream `sync`,
 * channel `pnl`, reason `buckets_not_observed`), published with the bucket that revealed them.
 */
export async function syncPnl(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.client.portfolio.pnl(run.signal);
  const nowMs = deps.now();
  const bucket = `${answer.value.bucket_at ?? ''}|${answer.value.mark_run_id ?? ''}`;
  const previous = (run.checkpoint.state ?? {}) as PnlState;
  if (bucket === previous.bucket) {
    await run.commit([], { pass: undefined, state: { ...previous, lastReadMs: nowMs } as Json });
    return;
  }
  const bucketAtMs = Date.parse(answer.value.bucket_at ?? '');
  const markAtMs = Date.parse(answer.value.mark_captured_at ?? answer.value.bucket_at ?? '');
  const seen = { bucketAtMs, markAtMs };
  const continuity = Number.isFinite(bucketAtMs) ? unobservedBuckets(previous, seen) : { cadenceMs: previous.cadenceMs };
  const records: BusRecord[] = [syncRecord('pnl_settled', deps.account, answer.value, answer.raw, answer.value.bucket_at, run.origin(undefined))];
  if (continuity.gap) records.unshift(gapRecord(run, previous, seen, continuity.gap, run.checkpoint.status === 'failed' ? run.checkpoint.error : undefined));
  const state: PnlState = {
    bucket,
    lastReadMs: nowMs,
    ...(Number.isFinite(bucketAtMs) ? seen : {}),
    ...(continuity.cadenceMs === undefined ? {} : { cadenceMs: continuity.cadenceMs }),
  };
  await run.commit(records, { pass: undefined, state: state as Json });
}

/** How many buckets the venue may have served between the last one seen and this one (undefined: some, the cadence not being known yet). */
export interface UnobservedBuckets {
  gap?: { buckets: number | undefined };
  cadenceMs?: number;
}

/**
 * The interface names no cadence, so it is learnt: the smallest spacing between consecutive buckets
 * observed without a pause. With it, a spacing of k cadences hides k − 1 buckets. Before it is known
 * (the second bucket ever seen), a bucket may hide in between when the time nobody looked — from the
 * last read of the old bucket to the mark of the new — is longer than the old bucket was seen to
 * last (its mark to its last read): a venue with a regular cadence could then have served one.
 */
export function unobservedBuckets(previous: PnlState, seen: { bucketAtMs: number; markAtMs: number }): UnobservedBuckets {
  const { bucketAtMs: lastAt, cadenceMs } = previous;
  if (lastAt === undefined || seen.bucketAtMs <= lastAt) return { cadenceMs };
  const spacing = seen.bucketAtMs - lastAt;
  if (cadenceMs !== undefined) {
    const buckets = Math.floor((spacing - 1) / cadenceMs);
    return { ...(buckets > 0 ? { gap: { buckets } } : {}), cadenceMs: Math.min(cadenceMs, spacing) };
  }
  const lastRead = previous.lastReadMs ?? lastAt;
  const lasted = lastRead - (previous.markAtMs ?? lastAt);
  const unobserved = (Number.isFinite(seen.markAtMs) ? seen.markAtMs : seen.bucketAtMs) - lastRead;
  return unobserved > lasted ? { gap: { buckets: undefined } } : { cadenceMs: spacing };
}

function gapRecord(
  run: JobRun,
  previous: PnlState,
  seen: { bucketAtMs: number },
  gap: { buckets: number | undefined },
  lastError: string | undefined,
): BusRecord {
  const iso = (ms: number): string => new Date(ms).toISOString();
  const count =
    gap.buckets === undefined
      ? "one or more buckets (the venue's cadence is not known yet)"
      : `${gap.buckets} bucket(s) at the learnt cadence of ${previous.cadenceMs! / 1000} s`;
  const payload: CaptureGapPayload = {
    stream: 'sync',
    channel: run.job,
    subject_kind: 'account',
    subject: run.scope,
    gap_start: iso(previous.bucketAtMs!),
    gap_end: iso(seen.bucketAtMs),
    reason: 'buckets_not_observed',
    recovery: 'none',
    detail:
      `settled PnL: ${count} between bucket ${iso(previous.bucketAtMs!)} and bucket ${iso(seen.bucketAtMs)} were served by the venue while not observed ` +
      `(last read ${previous.lastReadMs === undefined ? 'unknown' : iso(previous.lastReadMs)}${lastError ? `; the run before failed: ${lastError}` : ''}); the venue serves only its latest bucket`,
  };
  return syncRecord('capture_gap', 'sync', payload, undefined, undefined, run.origin(undefined));
}
