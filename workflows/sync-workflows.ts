// Workflow code: deterministic only. No I/O, no clocks, no Node modules; the worker bundles this file.
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SyncActivities } from './activities.ts';
import type { SyncWorkflowInput, SyncWorkflowResult } from './types.ts';

export const DEFAULT_PAGES_PER_SLICE = 50;
/** Well under Temporal's own warning thresholds; a long backfill starts a fresh history here. */
const HISTORY_EVENTS_LIMIT = 2_000;

/**
 * Runs one sync job to the end of its pass, as activities of at most `pagesPerSlice` pages each.
 * Each activity heartbeats its checkpoint after every confirmed page, so a retried attempt (worker
 * killed, timeout) resumes at the page where the last one stopped. Retries follow the venue's
 * recovery strategies: failures marked non-retryable (strategy none, validation, auth) end the
 * workflow at once; `retry_after` sets the next attempt's delay.
 */
export async function syncJobWorkflow(input: SyncWorkflowInput): Promise<SyncWorkflowResult> {
  const tuning = input.activity ?? {};
  const { runSyncSlice } = proxyActivities<SyncActivities>({
    startToCloseTimeout: tuning.startToCloseTimeoutMs ?? 10 * 60_000,
    heartbeatTimeout: tuning.heartbeatTimeoutMs ?? 60_000,
    retry: {
      initialInterval: 1_000,
      backoffCoefficient: 2,
      maximumInterval: tuning.maximumIntervalMs ?? 2 * 60_000,
      maximumAttempts: tuning.maximumAttempts ?? 30,
    },
  });
  const totals = { ...(input.totals ?? { slices: 0, pages: 0, records: 0 }) };
  for (;;) {
    const slice = await runSyncSlice({
      job: input.job,
      window: input.window,
      maxPages: input.pagesPerSlice ?? DEFAULT_PAGES_PER_SLICE,
    });
    totals.slices += 1;
    totals.pages += slice.pages;
    totals.records += slice.records;
    if (slice.outcome !== 'partial') return { job: input.job, outcome: slice.outcome, ...totals };
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= (input.historyLimit ?? HISTORY_EVENTS_LIMIT)) {
      await continueAsNew<typeof syncJobWorkflow>({ ...input, totals });
    }
  }
}
