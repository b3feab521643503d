import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/**
 * GET /trade/v1/lp-incentives: the epoch's opportunities, one record per read holding the whole
 * answer (epoch, eligibility and every market), since scores and projected payouts belong to the
 * moment they were read. Absent in deployments without the feature (404/503): recorded unavailable.
 */
export async function syncLpIncentives(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.client.portfolio.lpIncentives({}, run.signal);
  await run.commit(
    [syncRecord('lp_incentive', deps.account, answer.value, answer.raw, undefined, run.origin(undefined))],
    { pass: undefined },
  );
}
