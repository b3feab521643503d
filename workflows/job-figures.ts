/**
 * This worker's figures per sync job, for its /metrics: slices run, slices failed (cancellations
 * excepted), when one last succeeded, and how long the last one took. A failed sync workflow
 * then shows on the worker's metrics, not only in Temporal.
 */
export interface JobFigures {
  runs: number;
  failures: number;
  /** Wall-clock ms of the last slice that succeeded (0: none yet). */
  lastSuccessMs: number;
  /** How long the last slice took, whatever its outcome. */
  lastDurationMs: number;
}

const figures = new Map<string, JobFigures>();

export function recordSlice(job: string, outcome: 'succeeded' | 'failed' | 'cancelled', durationMs: number): void {
  const entry = figures.get(job) ?? { runs: 0, failures: 0, lastSuccessMs: 0, lastDurationMs: 0 };
  entry.runs += 1;
  if (outcome === 'failed') entry.failures += 1;
  if (outcome === 'succeeded') entry.lastSuccessMs = Date.now();
  entry.lastDurationMs = durationMs;
  figures.set(job, entry);
}

export function syncJobFigures(): Record<string, JobFigures> {
  return Object.fromEntries([...figures].map(([job, entry]) => [job, { ...entry }]));
}
