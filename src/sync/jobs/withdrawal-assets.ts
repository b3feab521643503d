import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/** GET /trade/v1/portfolio/bridge/withdraw/supported-assets: one record per read (note, wallet, assets). */
export async function syncWithdrawalAssets(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.client.portfolio.withdrawalSupportedAssets(run.signal);
  await run.commit(
    [syncRecord('withdrawal_assets', deps.account, answer.value, answer.raw, undefined, run.origin(undefined))],
    { pass: undefined },
  );
}
