import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/** GET /trade/v1/portfolio/rebates: running totals, one record per read (no venue time: the receive time tells reads
 * apart). */
export async function syncRebates(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.client.portfolio.rebates(run.signal);
  await run.commit([syncRecord('rebates', deps.account, answer.value, answer.raw, undefined, run.origin(undefined))], {
    pass: undefined,
  });
}
