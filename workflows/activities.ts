import { ApplicationFailure, Context } from '@temporalio/activity';
import { positionOf, type CheckpointPosition } from '../src/sync/checkpoint.ts';
import type { SyncDeps } from '../src/sync/deps.ts';
import { isJobName } from '../src/sync/jobs.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { toApplicationFailure } from './failure-mapping.ts';
import { recordSlice } from './job-figures.ts';
import type { SliceInput, SliceResult } from './types.ts';

/** Beats at least this often while a slice waits (rate limits, pnl_not_ready), so it is not presumed dead. */
const MIN_BEAT_MS = 1_000;
/** A slice ends at the first page boundary after this share of its start-to-close timeout. */
const SLICE_SHARE_OF_TIMEOUT = 0.5;

/**
 * The activities of the sync workflows, bound to one worker's dependencies. A slice runs the job
 * from the store's checkpoint, or from the pass of the last heartbeat of a failed attempt when
 * that is newer (the attempt died after its last save reached Temporal but not this worker's
 * store). Heartbeats carry the checkpoint's version and pass position only — a few hundred
 * bytes, whatever the job's state (the catalogue's fingerprints stay in the store). A slice
 * ends after its pages or after half its start-to-close timeout, whichever comes first.
 */
export function createSyncActivities(deps: SyncDeps) {
  return {
    async runSyncSlice(input: SliceInput): Promise<SliceResult> {
      if (!isJobName(input.job)) throw ApplicationFailure.nonRetryable(`unknown sync job ${input.job}`, 'unknown_job');
      const context = Context.current();
      const resume = context.info.heartbeatDetails as CheckpointPosition | undefined;
      let latest = resume;
      const startedAt = performance.now();
      let outcome: 'succeeded' | 'failed' | 'cancelled' = 'failed';
      const keepAlive = setInterval(
        () => context.heartbeat(latest),
        Math.max(MIN_BEAT_MS, (context.info.heartbeatTimeoutMs ?? 60_000) / 3),
      );
      try {
        const report = await runSyncJob(deps, input.job, {
          resume,
          onProgress: (checkpoint) => {
            latest = positionOf(checkpoint);
            context.heartbeat(latest);
          },
          signal: context.cancellationSignal,
          window: input.window && { fromMs: Date.parse(input.window.from), toMs: Date.parse(input.window.to) },
          maxPages: input.maxPages,
          maxMs: context.info.startToCloseTimeoutMs * SLICE_SHARE_OF_TIMEOUT,
        });
        outcome = 'succeeded';
        return { outcome: report.outcome, pages: report.pages, records: report.records, skipped: report.skipped };
      } catch (error) {
        // A cancelled activity reports its cancellation, not a failure of its own.
        if (context.cancellationSignal.aborted) {
          outcome = 'cancelled';
          throw error;
        }
        throw toApplicationFailure(error);
      } finally {
        clearInterval(keepAlive);
        recordSlice(input.job, outcome, performance.now() - startedAt);
      }
    },
  };
}

export type SyncActivities = ReturnType<typeof createSyncActivities>;
