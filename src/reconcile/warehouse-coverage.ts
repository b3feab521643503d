import type { ClickHouseClient } from '@clickhouse/client';
import type { CoverageGap, CoverageInput } from './coverage.ts';
import { describeConflict, findConflicts, NATURAL_KEYS } from '../warehouse/identity-conflicts.ts';
import { atOrBefore, msOf, selectObjects } from './warehouse-query.ts';

/**
 * The recorded gaps that concern one account's inputs: sync passes of its fills or activities
 * that could not run (stream `sync`), account-stream outages (stream `account`; REST recovers the
 * fills, but redemption and collateral frames are lost), and records the embedded bus lost on a
 * crash (stream `bus`; its partitions are not per account, so any concerns every account).
 * Coverage ended on purpose (`unsubscribed`, a clean stop) is no loss by itself: the next start
 * records the interval it did not cover (`capture_not_running`).
 */
const GAPS_SQL = `
SELECT stream, channel, subject, reason, recovery, detail,
       toUnixTimestamp64Milli(gap_start) AS start, toUnixTimestamp64Milli(gap_end) AS end
FROM tapehouse.capture_gaps
WHERE ${atOrBefore('gap_start', 'to')} AND reason != 'unsubscribed' AND (
      (stream = 'sync' AND channel IN ('portfolio_trades', 'order_trades', 'activities') AND subject IN ('', {account:String}))
   OR (stream = 'account' AND subject IN ('', {account:String}))
   OR (stream = 'bus' AND (endsWith(channel, '.sync.fills') OR endsWith(channel, '.sync.activities') OR endsWith(channel, '.account.events'))))
ORDER BY gap_start`;

interface GapRow {
  stream: string;
  channel: string;
  subject: string;
  reason: string;
  recovery: string;
  detail: string;
  start: string | number;
  end: string | number;
}

function inputOf(row: GapRow): CoverageInput {
  if (row.stream === 'account' || row.channel.endsWith('.account.events')) return 'account_stream';
  return row.channel === 'activities' || row.channel.endsWith('.sync.activities') ? 'activities' : 'fills';
}

export async function readCaptureGaps(client: ClickHouseClient, account: string, toMs: number): Promise<CoverageGap[]> {
  const rows = await selectObjects<GapRow>(client, GAPS_SQL, { account, to: toMs });
  return rows.map((row) => ({
    input: inputOf(row),
    fromMs: msOf(row.start),
    toMs: msOf(row.end),
    reason: `${row.stream}${row.channel ? `/${row.channel}` : ''} gap ${new Date(msOf(row.start)).toISOString()} to ${new Date(msOf(row.end)).toISOString()} (${row.reason}${row.recovery ? `, recovery ${row.recovery}` : ''})`,
  }));
}

/**
 * Ids of the account's fills or orders that name two different entities (identity-conflicts.ts):
 * the fills view keeps one fill per id, so the ledger cannot be rebuilt with certainty from the
 * first such fill's time on. Each is a gap on the fills: of its token when the rows agree on it,
 * of every position and account-wide figure otherwise.
 */
export async function readIdentityGaps(client: ClickHouseClient, account: string): Promise<CoverageGap[]> {
  const gaps: CoverageGap[] = [];
  for (const spec of NATURAL_KEYS.filter((key) => key.key.includes('account'))) {
    for (const conflict of await findConflicts(client, spec, { account })) {
      gaps.push({
        input: 'fills',
        fromMs: conflict.firstAtMs > 0 ? conflict.firstAtMs : -Infinity,
        toMs: Infinity,
        ...(conflict.tokenIds.length === 1 ? { tokenId: conflict.tokenIds[0] } : {}),
        reason: `${describeConflict(conflict)}: the venue reused an id; the warehouse keeps every row but cannot tell them apart`,
      });
    }
  }
  return gaps;
}
