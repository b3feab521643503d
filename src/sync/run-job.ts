import { NotOfferedError } from '../api/errors.ts';
import type { CaptureGapPayload, BusRecord } from '../records/index.ts';
import { resumeFrom, type Checkpoint, type CheckpointPosition, type Unavailability } from './checkpoint.ts';
import type { SyncDeps } from './deps.ts';
import { SYNC_JOBS, type JobName, type SyncJob } from './jobs.ts';
import type { TimeWindow } from './jobs/options.ts';
import { publishAll } from './publisher.ts';
import { syncRecord } from './records.ts';
import { JobRun, SliceComplete, type ProgressListener } from './run.ts';

/** `done`: the resource was read to its end; `partial`: the slice ran out of pages mid-pass; `unavailable`: not offered
 * here. */
export type JobOutcome = 'done' | 'partial' | 'unavailable';

export interface JobReport {
  job: JobName;
  scope: string;
  outcome: JobOutcome;
  records: number;
  pages: number;
  /** True when the venue was not asked at all: the endpoint is not offered and its retry time has not come. */
  skipped: boolean;
  /** The checkpoint saved last. */
  checkpoint: Checkpoint | undefined;
  /** Wall-clock time the run started (ms since the epoch). */
  startedAtMs: number;
}

export interface RunJobOptions {
  /** A position from elsewhere (a Temporal heartbeat); its pass is used when newer than the store's. */
  resume?: CheckpointPosition;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Backfill a past window (jobs with `backfill` only); has its own checkpoint. */
  window?: TimeWindow;
  /** Stop after this many pages mid-pass (outcome `partial`); the next run resumes. */
  maxPages?: number;
  /** …or after this long (ms), at the next page boundary. */
  maxMs?: number;
}

export class NotBackfillable extends Error {
  constructor(readonly job: JobName) {
    super(`${job} cannot be backfilled: its resource only tells the present`);
    this.name = 'NotBackfillable';
  }
}

/** The checkpoint key's scope: the account (or nothing, for the catalogue), and the window of a backfill. */
export function jobScope(job: SyncJob, account: string, window?: TimeWindow): string {
  const base = job.scope === 'venue' ? '' : account;
  if (!window) return base;
  return `${base}@backfill:${new Date(window.fromMs).toISOString()}/${new Date(window.toMs).toISOString()}`;
}

/**
 * Runs one job once, from its checkpoint, as both schedulers do. A failure leaves the checkpoint
 * where the last confirmed page put it (status `failed`) and is thrown for the scheduler to retry
 * or not (see failure.ts). An endpoint not offered here is recorded — a `capture_gap` record and
 * the checkpoint's `unavailable` — and not asked again for `tuning.unavailableRetryMs`.
 */
export async function runSyncJob(deps: SyncDeps, name: JobName, options: RunJobOptions = {}): Promise<JobReport> {
  const job = SYNC_JOBS[name];
  if (options.window && !job.backfill) throw new NotBackfillable(name);
  const scope = jobScope(job, deps.account, options.window);
  const startedAtMs = deps.now();
  const start = resumeFrom(await deps.checkpoints.load(name, scope), options.resume);
  const report = (outcome: JobOutcome, run?: JobRun): JobReport => ({
    job: name,
    scope,
    outcome,
    records: run?.totals.records ?? 0,
    pages: run?.totals.pages ?? 0,
    skipped: run === undefined,
    checkpoint: run?.checkpoint ?? start,
    startedAtMs,
  });
  if (start?.unavailable && Date.parse(start.unavailable.retryAt) > deps.now()) return report('unavailable');

  const run = new JobRun(deps, {
    job: name,
    scope,
    start: start && { ...start, unavailable: undefined },
    onProgress: options.onProgress,
    signal: options.signal,
    maxPages: options.maxPages,
    maxMs: options.maxMs,
    republish: options.window !== undefined,
  });
  try {
    await job.run(run, { window: options.window });
  } catch (error) {
    if (error instanceof SliceComplete) return report('partial', run);
    if (error instanceof NotOfferedError) {
      await recordUnavailable(run, error, start?.unavailable);
      return report('unavailable', run);
    }
    await run
      .end('failed', { error: error instanceof Error ? error.message : String(error) })
      .catch((saveError: unknown) => {
        deps.logger.warn({ job: name, err: saveError }, 'could not save the failed status');
      });
    throw error;
  }
  await run.end('done');
  return report('done', run);
}

async function recordUnavailable(
  run: JobRun,
  error: NotOfferedError,
  previous: Unavailability | undefined,
): Promise<void> {
  const { deps } = run;
  const now = new Date(deps.now()).toISOString();
  const code = error.code ?? `http_${error.status}`;
  const unavailable: Unavailability = {
    code,
    since: previous?.since ?? now,
    checkedAt: now,
    retryAt: new Date(deps.now() + deps.tuning.unavailableRetryMs).toISOString(),
  };
  deps.logger.warn(
    { job: run.job, code, endpoint: error.endpoint, retryAt: unavailable.retryAt },
    'endpoint not offered by this venue; asking again later',
  );
  await publishAll(deps.bus, deps.topics, [gapRecord(run, error, code, previous?.checkedAt ?? now, now)]);
  await run.end('unavailable', { unavailable });
}

/** The span since the last check in which the job's resource was not covered. */
function gapRecord(run: JobRun, error: NotOfferedError, code: string, from: string, to: string): BusRecord {
  const gap: CaptureGapPayload = {
    stream: 'sync',
    channel: run.job,
    subject_kind: run.scope === '' ? 'venue' : 'account',
    subject: run.scope,
    gap_start: from,
    gap_end: to,
    reason: 'endpoint_not_offered',
    recovery: 'none',
    detail: `${error.status} ${code} on ${error.endpoint ?? run.job}`,
  };
  return syncRecord('capture_gap', 'sync', gap, error.problem, undefined, run.origin(undefined));
}
