import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Checkpoint } from '../src/sync/checkpoint.ts';
import type { SyncDeps } from '../src/sync/deps.ts';
import { isJobName } from '../src/sync/jobs.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { toApplicationFailure } from './failure-mapping.ts';
import type { SliceInput, SliceResult } from './types.ts';

/** Beats at least this often while a slice waits (rate limits, pnl_not_ready), so it is not presumed dead. */
const MIN_BEAT_MS = 1_000;

/**
 * The activities of the sync workflows, bound to one worker's dependencies. A slice runs the job
 * from the newer of the store's checkpoint and the last heartbeat of a failed attempt (a killed
 * worker's store may be gone; Temporal kept its heartbeat), and heartbeats every checkpoint.
 */
export function createSyncActivities(deps: SyncDeps) {
  return {
    async runSyncSlice(input: SliceInput): Promise<SliceResult> {
      if (!isJobName(input.job)) throw ApplicationFailure.nonRetryable(`unknown sync job ${input.job}`, 'unknown_job');
      const context = Context.current();
      const resume = context.info.heartbeatDetails as Checkpoint | undefined;
      let latest = resume;
      const keepAlive = setInterval(() => context.heartbeat(latest), Math.max(MIN_BEAT_MS, (context.info.heartbeatTimeoutMs ?? 60_000) / 3));
      try {
        const report = await runSyncJob(deps, input.job, {
          resume,
          onProgress: (checkpoint) => {
            latest = checkpoint;
            context.heartbeat(checkpoint);
          },
          signal: context.cancellationSignal,
          window: input.window && { fromMs: Date.parse(input.window.from), toMs: Date.parse(input.window.to) },
          maxPages: input.maxPages,
        });
        return { outcome: report.outcome, pages: report.pages, records: report.records, skipped: report.skipped };
      } catch (error) {
        // A cancelled activity reports its cancellation, not a failure of its own.
        if (context.cancellationSignal.aborted) throw error;
        throw toApplicationFailure(error);
      } finally {
        clearInterval(keepAlive);
      }
    },
  };
}

export type SyncActivities = ReturnType<typeof createSyncActivities>;
