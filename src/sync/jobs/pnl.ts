import type { CaptureGapPayload, Json, BusRecord } from '../../records/index.ts';
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
  /** The smallest spacing seen between two consecutive buckets: the venue's cadence, as far as we know (learnt from two
   * spacings). */
  cadenceMs?: number;
  /** Spacings seen before the cadence was learnt, judged once it is. */
  unjudged?: Spacing[];
}

/** The time between two consecutive buckets seen (their bucket_at, epoch ms). */
// (A type, not an interface: the state it is part of is checkpointed as JSON.)
export type Spacing = {
  fromMs: number;
  toMs: number;
  /** The last read of the earlier bucket, and why the run before the later one failed, if it did. */
  lastReadMs?: number;
  error?: string;
};

/**
 * GET /trade/v1/portfolio/pnl: the latest settled bucket. 425 pnl_not_ready is waited out by the
 * client (longer patience, following retry_after); past that the job is retried later. A bucket
 * already published (same bucket_at and mark run, kept in the job's state) is not published again,
 * so the records are one per bucket — as long as the job runs more often than the venue marks.
 *
 * The venue serves only its latest bucket: one it marked while the job was not running, or while
 * the read failed (503 pnl_unavailable, …), is gone. When a read returns a bucket further from the
 * last one than the venue's cadence, the buckets in between are a `capture_gap` (stream `sync`,
 * channel `pnl`, reason `buckets_not_observed`), published with the bucket that revealed them —
 * or, for spacings seen before the cadence was learnt, with the bucket that taught it.
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
  const error = run.checkpoint.status === 'failed' ? run.checkpoint.error : undefined;
  const continuity = Number.isFinite(bucketAtMs)
    ? unobservedBuckets(previous, seen, error)
    : { gaps: [], cadenceMs: previous.cadenceMs, unjudged: previous.unjudged };
  const records: BusRecord[] = [
    ...continuity.gaps.map((gap) => gapRecord(run, gap, continuity.cadenceMs!)),
    syncRecord('pnl_settled', deps.account, answer.value, answer.raw, answer.value.bucket_at, run.origin(undefined)),
  ];
  const state: PnlState = {
    bucket,
    lastReadMs: nowMs,
    ...(Number.isFinite(bucketAtMs) ? seen : {}),
    ...(continuity.cadenceMs === undefined ? {} : { cadenceMs: continuity.cadenceMs }),
    ...(continuity.unjudged && continuity.unjudged.length > 0 ? { unjudged: continuity.unjudged } : {}),
  };
  await run.commit(records, { pass: undefined, state: state as Json });
}

/** The spacings that hid buckets, the cadence as now known, and the spacings still waiting for it. */
export interface UnobservedBuckets {
  gaps: Array<Spacing & { buckets: number }>;
  cadenceMs?: number;
  unjudged?: Spacing[];
}

/**
 * The interface names no cadence, so it is learnt: the smallest spacing between consecutive buckets
 * seen, once two spacings were seen (a job reading more often than the venue marks sees most
 * buckets, so the smaller of two spacings is the cadence unless both spanned a pause). With it, a
 * spacing of k cadences hides k − 1 buckets. Spacings seen before — the first one — wait in the
 * state and are judged then: a gap found so is published late, with its own bounds, rather than a
 * guess published at once (a first bucket read late in its life made the guess see a gap in four of
 * five fresh two-minute runs where there was none).
 */
export function unobservedBuckets(
  previous: PnlState,
  seen: { bucketAtMs: number; markAtMs: number },
  error?: string,
): UnobservedBuckets {
  const { bucketAtMs: lastAt, cadenceMs } = previous;
  if (lastAt === undefined || seen.bucketAtMs <= lastAt) return { gaps: [], cadenceMs, unjudged: previous.unjudged };
  const spacing: Spacing = {
    fromMs: lastAt,
    toMs: seen.bucketAtMs,
    ...(previous.lastReadMs === undefined ? {} : { lastReadMs: previous.lastReadMs }),
    ...(error === undefined ? {} : { error }),
  };
  const spacings = cadenceMs === undefined ? [...(previous.unjudged ?? []), spacing] : [spacing];
  if (cadenceMs === undefined && spacings.length < 2) return { gaps: [], unjudged: spacings };
  const cadence = Math.min(cadenceMs ?? Number.POSITIVE_INFINITY, ...spacings.map((one) => one.toMs - one.fromMs));
  const gaps = spacings
    .map((one) => ({ ...one, buckets: Math.floor((one.toMs - one.fromMs - 1) / cadence) }))
    .filter((one) => one.buckets > 0);
  return { gaps, cadenceMs: cadence };
}

function gapRecord(run: JobRun, gap: Spacing & { buckets: number }, cadenceMs: number): BusRecord {
  const iso = (ms: number): string => new Date(ms).toISOString();
  const payload: CaptureGapPayload = {
    stream: 'sync',
    channel: run.job,
    subject_kind: 'account',
    subject: run.scope,
    gap_start: iso(gap.fromMs),
    gap_end: iso(gap.toMs),
    reason: 'buckets_not_observed',
    recovery: 'none',
    detail:
      `settled PnL: ${gap.buckets} bucket(s) at the learnt cadence of ${cadenceMs / 1000} s between bucket ${iso(gap.fromMs)} and bucket ${iso(gap.toMs)} were served by the venue while not observed ` +
      `(last read ${gap.lastReadMs === undefined ? 'unknown' : iso(gap.lastReadMs)}${gap.error ? `; the run before failed: ${gap.error}` : ''}); the venue serves only its latest bucket`,
  };
  return syncRecord('capture_gap', 'sync', payload, undefined, undefined, run.origin(undefined));
}
