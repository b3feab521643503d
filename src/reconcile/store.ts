import type { InsertRow } from '../warehouse/insert/index.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';
import type { Reconciliation } from './reconcile.ts';

export const RECONCILIATIONS_TABLE = 'tapehouse.reconciliations';

/** One row per figure compared (sql/README.md, `reconciliations`). */
export function reconciliationRows(run: Reconciliation): InsertRow[] {
  return run.accounts.flatMap((account) =>
    account.rows.map((row) => ({
      run_id: run.runId,
      reconciled_at: run.reconciledAtMs,
      account: account.account,
      scope: row.scope,
      token_id: row.tokenId,
      condition_id: row.conditionId,
      field: row.field,
      ours_micro: row.oursMicro,
      theirs_micro: row.theirsMicro,
      difference_micro: row.differenceMicro,
      status: row.status,
      detail: row.detail,
      reported_at: row.reportedAtMs,
      method: run.options.method,
      tolerance_micro: run.options.toleranceMicro,
    })),
  );
}

/** Stores the run; its id is the insert's dedup token, so a retried store lands once. */
export async function storeReconciliation(
  warehouse: Pick<Warehouse, 'insertRows'>,
  run: Reconciliation,
): Promise<number> {
  return storeRows(warehouse, run.runId, reconciliationRows(run));
}

/** Stores one run's rows (built here, or posted to the running job: store-through-job.ts). */
export async function storeRows(
  warehouse: Pick<Warehouse, 'insertRows'>,
  runId: string,
  rows: readonly InsertRow[],
): Promise<number> {
  await warehouse.insertRows(RECONCILIATIONS_TABLE, rows, { dedupToken: `reconcile:${runId}` });
  return rows.length;
}
