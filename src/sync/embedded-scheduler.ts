import { setMaxListeners } from 'node:events';
import { codeInfo } from '../api/codes.ts';
import { syncDeps, type SyncDepsOptions } from './deps.ts';
import { classifyFailure, type FailureDecision } from './failure.ts';
import { JOB_NAMES, SYNC_JOBS, type JobName } from './jobs.ts';
import { runSyncJob, type JobReport } from './run-job.ts';
import type { SyncVenue } from './venue.ts';
import { type Clock, systemClock } from '../util/clock.ts';
import { backoffStep } from '../util/backoff.ts';

export interface EmbeddedSchedulerOptions extends Omit<SyncDepsOptions, 'venue'> {
  /** The venue clients of the account (one shared limiter). */
  client: SyncVenue;
  /** Which jobs to run (default: all). */
  jobs?: readonly JobName[];
  /** Time between two starts of a job, overriding its default. */
  intervals?: Partial<Record<JobName, number>>;
  /** Timers; the system clock by default (tests pass a virtual one). */
  clock?: Clock;
  onReport?(report: JobReport): void;
  onFailure?(job: JobName, error: unknown, decision: FailureDecision): void;
}

export interface EmbeddedScheduler {
  /** Stops the timers, aborts the runs under way and resolves once every job has stopped. */
  stop(): Promise<void>;
}

/** Retryable failures without a wait named by the venue: 1 s, 2 s, 4 s, … up to the job's interval. */
const FIRST_RETRY_MS = 1_000;

/**
 * In-process timers running the sync jobs with the same functions and checkpoints as the Temporal
 * workers: each job in its own loop, started again `interval` after its last start, never while
 * it is still running (overlap: skip). A failure is retried as its recovery strategy says (the
 * venue's wait, or backoff) or, when repeating cannot help, at the next interval.
 */
export function startEmbeddedScheduler(options: EmbeddedSchedulerOptions): EmbeddedScheduler {
  const deps = syncDeps({ ...options, venue: options.client });
  const clock = options.clock ?? systemClock;
  const stopping = new AbortController();
  // Every loop and every run listens to the one stop signal.
  setMaxListeners(0, stopping.signal);
  const loops = (options.jobs ?? JOB_NAMES).map((job) => runLoop(job));

  async function runLoop(job: JobName): Promise<void> {
    const interval = options.intervals?.[job] ?? SYNC_JOBS[job].intervalMs;
    let failures = 0;
    while (!stopping.signal.aborted) {
      const startedAt = clock.now();
      let waitMs: number;
      try {
        options.onReport?.(await runSyncJob(deps, job, { signal: stopping.signal }));
        failures = 0;
        waitMs = Math.max(0, interval - (clock.now() - startedAt));
      } catch (error) {
        if (stopping.signal.aborted) break;
        failures += 1;
        const decision = classifyFailure(error);
        options.onFailure?.(job, error, decision);
        // A venue that has not computed something yet (pnl_not_ready) is an expected state, not a failure to warn of.
        const level = codeInfo(decision.type)?.kind === 'not_ready' ? 'debug' : 'warn';
        deps.logger[level](
          { job, type: decision.type, retryable: decision.retryable, reason: decision.reason },
          'sync job failed',
        );
        waitMs = decision.retryable
          ? (decision.delayMs ?? backoffStep(failures, { firstMs: FIRST_RETRY_MS, maxMs: interval }))
          : interval;
      }
      await clock.sleep(waitMs, stopping.signal).catch(() => undefined);
    }
  }

  return {
    async stop() {
      stopping.abort(new Error('embedded scheduler stopped'));
      await Promise.all(loops);
    },
  };
}
