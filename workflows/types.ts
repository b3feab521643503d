/**
 * Shapes shared by the workflow code (deterministic, bundled by the worker) and the activities.
 * Type-only: nothing here runs, so the workflow bundle imports no Node module through it.
 */

/** A past window, ISO 8601 (for backfill). */
export interface WindowInput {
  from: string;
  to: string;
}

/** One activity run: a slice of a job, at most `maxPages` pages of its pass. */
export interface SliceInput {
  job: string;
  window?: WindowInput;
  maxPages: number;
}

export interface SliceResult {
  /** `partial`: pages left in the pass; the workflow runs the next slice. */
  outcome: 'done' | 'partial' | 'unavailable';
  pages: number;
  records: number;
  /** Not asked: the endpoint is not offered and its retry time has not come. */
  skipped: boolean;
}

export interface ActivityTuning {
  startToCloseTimeoutMs?: number;
  /** A worker silent this long is presumed dead and the slice is retried from its last heartbeat. */
  heartbeatTimeoutMs?: number;
  /** Attempts per slice; retryable failures (429 storms, pnl_not_ready) are retried this often. */
  maximumAttempts?: number;
  maximumIntervalMs?: number;
}

export interface SyncTotals {
  slices: number;
  pages: number;
  records: number;
}

export interface SyncWorkflowInput {
  job: string;
  window?: WindowInput;
  /** Pages per activity run (default 50): bounds how long one activity runs. */
  pagesPerSlice?: number;
  activity?: ActivityTuning;
  /** Continue as new once the history has this many events (default 2,000). */
  historyLimit?: number;
  /** Carried over by continue-as-new. */
  totals?: SyncTotals;
}

export interface SyncWorkflowResult extends SyncTotals {
  job: string;
  outcome: 'done' | 'unavailable';
}
