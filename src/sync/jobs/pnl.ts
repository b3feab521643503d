import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/**
 * GET /trade/v1/portfolio/pnl: the latest settled bucket. 425 pnl_not_ready is waited out by the
 * client (longer patience, following retry_after); past that the job is retried later. A bucket
 * already published (same bucket_at and mark run, kept in the job's state) is not published again,
 * so the records are one per bucket — as long as the job runs more often than the venue marks.
 */
export async function syncPnl(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.client.portfolio.pnl(run.signal);
  const bucket = `${answer.value.bucket_at ?? ''}|${answer.value.mark_run_id ?? ''}`;
  const previous = (run.checkpoint.state as { bucket?: string } | undefined)?.bucket;
  const records = bucket === previous ? [] : [syncRecord('pnl_settled', deps.account, answer.value, answer.raw, answer.value.bucket_at, run.origin(undefined))];
  await run.commit(records, { pass: undefined, state: { bucket } });
}
