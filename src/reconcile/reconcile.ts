import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { reconcileAccountData, type AccountReconciliation, type ReconcileOptions } from './reconcile-account.ts';
import { readCaptureGaps, readIdentityGaps } from './warehouse-coverage.ts';
import { readLedgerInputs } from './warehouse-inputs.ts';
import { selectObjects } from './warehouse-query.ts';
import { readVenueReports } from './warehouse-reports.ts';
import { describeEnd, readDefaultEnd } from './warehouse-window.ts';

/** The widest window DateTime64(3) holds comfortably: "from the start" and "until now and later". */
export const START_OF_TIME_MS = 0;
export const END_OF_TIME_MS = Date.UTC(2200, 0, 1);

/** The options of a run: without `toMs`, each account's window ends at the last instant every input of its ledger
 * covers. */
export type RunOptions = Omit<ReconcileOptions, 'toMs'> & { toMs?: number };

export interface ReconcileRequest extends RunOptions {
  /** Accounts to reconcile; default every account with fills or portfolio reads in the warehouse. */
  accounts?: readonly string[];
}

/** One run: every account reconciled at one time under one id. */
export interface Reconciliation {
  runId: string;
  reconciledAtMs: number;
  options: RunOptions;
  accounts: AccountReconciliation[];
}

const ACCOUNTS_SQL = `
SELECT DISTINCT account FROM (
  SELECT account FROM tapehouse.fills_latest
  UNION ALL SELECT account FROM tapehouse.position_snapshots
  UNION ALL SELECT account FROM tapehouse.portfolio_summaries
  UNION ALL SELECT account FROM tapehouse.pnl_settled
) ORDER BY account`;

export async function listAccounts(client: ClickHouseClient): Promise<string[]> {
  return (await selectObjects<{ account: string }>(client, ACCOUNTS_SQL)).map((r) => r.account);
}

/** Reads one account's data from the warehouse and reconciles it (as of the given end, or the last instant every input
 * covers). */
export async function reconcileAccount(
  client: ClickHouseClient,
  account: string,
  runOptions: RunOptions,
): Promise<AccountReconciliation> {
  const end = runOptions.toMs === undefined ? await readDefaultEnd(client, account, END_OF_TIME_MS) : undefined;
  const options: ReconcileOptions = {
    ...runOptions,
    toMs: end ? Math.max(end.toMs, runOptions.fromMs) : runOptions.toMs!,
  };
  const inputs = await readLedgerInputs(client, account, options.toMs);
  const reports = await readVenueReports(client, { account, fromMs: options.fromMs, toMs: options.toMs });
  const gaps = [
    ...(await readCaptureGaps(client, account, options.toMs)),
    ...(await readIdentityGaps(client, account)),
  ];
  const result = reconcileAccountData(account, inputs, reports, gaps, options);
  return {
    ...result,
    window: { fromMs: options.fromMs, toMs: options.toMs, end: end ? describeEnd(end) : 'given (--to)' },
  };
}

/** Reconciles the warehouse alone: nothing here talks to the venue. */
export async function reconcile(
  client: ClickHouseClient,
  request: ReconcileRequest,
  clock: { now(): number } = Date,
  newId: () => string = randomUUID,
): Promise<Reconciliation> {
  const { accounts: wanted, ...options } = request;
  const reconciledAtMs = clock.now();
  const accounts = wanted ?? (await listAccounts(client));
  const results: AccountReconciliation[] = [];
  for (const account of accounts) results.push(await reconcileAccount(client, account, options));
  return { runId: newId(), reconciledAtMs, options, accounts: results };
}
