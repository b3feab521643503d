import type { ClickHouseClient } from '@clickhouse/client';
import { isoTime } from './explain.ts';
import { msOf, selectObjects } from './warehouse-query.ts';

/** How far one input of the ledger reaches: the last instant the warehouse shows it covered. */
export interface InputCoverage {
  input: string;
  untilMs: number;
  /** How we know, in words. */
  how: string;
}

/** The window's end when none is given: the last instant every input covers, and why. */
export interface DefaultEnd {
  toMs: number;
  inputs: InputCoverage[];
}

/**
 * Per input, the last instant covered:
 * - the account stream: its last frame (its heartbeats are not stored, so a stream quiet since
 *   then is not known to have covered more);
 * - fills: the later of the last fill frame of the account stream and the last REST fills pass —
 *   either gives every fill; a pass is the newest `done` checkpoint of `portfolio_trades` or
 *   `order_trades` (sync_checkpoints), else the newest fill a REST page carried;
 * - activities (deposits, withdrawals, splits, merges): the newest `done` checkpoint of the
 *   `activities` job, else the newest activity observed.
 * An input with no rows at all is left out (it is reported as missing elsewhere).
 */
const COVERAGE_SQL = `
SELECT
  (SELECT toUnixTimestamp64Milli(max(event_at)) FROM tapehouse.account_events WHERE account = {account:String}) AS stream_last,
  (SELECT count() FROM tapehouse.account_events WHERE account = {account:String}) AS stream_rows,
  (SELECT toUnixTimestamp64Milli(max(executed_at)) FROM tapehouse.fill_observations WHERE account = {account:String} AND startsWith(source, 'ws:')) AS ws_fills_last,
  (SELECT countIf(startsWith(source, 'ws:')) FROM tapehouse.fill_observations WHERE account = {account:String}) AS ws_fills,
  (SELECT toUnixTimestamp64Milli(max(observed_at)) FROM tapehouse.fill_observations WHERE account = {account:String} AND NOT startsWith(source, 'ws:')) AS rest_fills_last,
  (SELECT countIf(NOT startsWith(source, 'ws:')) FROM tapehouse.fill_observations WHERE account = {account:String}) AS rest_fills,
  (SELECT toUnixTimestamp64Milli(max(updated_at)) FROM tapehouse.sync_checkpoints WHERE scope = {account:String} AND job IN ('portfolio_trades', 'order_trades') AND status = 'done') AS fills_pass,
  (SELECT count() FROM tapehouse.sync_checkpoints WHERE scope = {account:String} AND job IN ('portfolio_trades', 'order_trades') AND status = 'done') AS fills_passes,
  (SELECT toUnixTimestamp64Milli(max(observed_at)) FROM tapehouse.activity_observations WHERE account = {account:String}) AS activities_last,
  (SELECT count() FROM tapehouse.activity_observations WHERE account = {account:String}) AS activities,
  (SELECT toUnixTimestamp64Milli(max(updated_at)) FROM tapehouse.sync_checkpoints WHERE scope = {account:String} AND job = 'activities' AND status = 'done') AS activities_pass,
  (SELECT count() FROM tapehouse.sync_checkpoints WHERE scope = {account:String} AND job = 'activities' AND status = 'done') AS activities_passes`;

type Cell = string | number | null;
type CoverageRow = Record<
  | 'stream_last'
  | 'stream_rows'
  | 'ws_fills_last'
  | 'ws_fills'
  | 'rest_fills_last'
  | 'rest_fills'
  | 'fills_pass'
  | 'fills_passes'
  | 'activities_last'
  | 'activities'
  | 'activities_pass'
  | 'activities_passes',
  Cell
>;

export async function readDefaultEnd(
  client: ClickHouseClient,
  account: string,
  fallbackMs: number,
): Promise<DefaultEnd> {
  const [row] = await selectObjects<CoverageRow>(client, COVERAGE_SQL, { account });
  return defaultEnd(row!, fallbackMs);
}

const present = (count: Cell): boolean => Number(count ?? 0) > 0;

/** The pure part: from the newest instants per input to the earliest of them (`fallbackMs` when no input has rows). */
export function defaultEnd(row: CoverageRow, fallbackMs: number): DefaultEnd {
  const inputs: InputCoverage[] = [];
  if (present(row.stream_rows))
    inputs.push({ input: 'account stream', untilMs: msOf(row.stream_last!), how: 'its last frame' });
  const fills: InputCoverage[] = [];
  if (present(row.ws_fills))
    fills.push({ input: 'fills', untilMs: msOf(row.ws_fills_last!), how: 'the last fill frame of the account stream' });
  if (present(row.fills_passes))
    fills.push({ input: 'fills', untilMs: msOf(row.fills_pass!), how: 'the last complete REST fills pass' });
  else if (present(row.rest_fills))
    fills.push({ input: 'fills', untilMs: msOf(row.rest_fills_last!), how: 'the newest fill a REST page carried' });
  const furthest = fills.sort((a, b) => b.untilMs - a.untilMs)[0];
  if (furthest) inputs.push(furthest);
  if (present(row.activities_passes))
    inputs.push({ input: 'activities', untilMs: msOf(row.activities_pass!), how: 'the last complete activities pass' });
  else if (present(row.activities))
    inputs.push({ input: 'activities', untilMs: msOf(row.activities_last!), how: 'the newest activity observed' });
  const toMs = inputs.length === 0 ? fallbackMs : Math.min(...inputs.map((i) => i.untilMs));
  return { toMs, inputs };
}

export function describeEnd(end: DefaultEnd): string {
  if (end.inputs.length === 0) return 'everything loaded (no input has rows)';
  return `${isoTime(end.toMs)}, the last instant every input covers (${end.inputs.map((i) => `${i.input} until ${isoTime(i.untilMs)}: ${i.how}`).join('; ')})`;
}
