import type { ClickHouseClient } from '@clickhouse/client';
import type { CoverageGap } from './coverage.ts';
import type { LedgerEvent, LedgerFill, Side } from './ledger-events.ts';
import { emptyResolution, redemptionEvents, type ConditionResolution, type RedemptionFrame } from './resolutions.ts';
import {
  atOrBefore,
  msOf,
  payloadMicro,
  payloadTimeMs,
  rawPayload,
  selectCells,
  selectObjects,
} from './warehouse-query.ts';

/** Everything the ledger is rebuilt from, for one account up to an instant. */
export interface LedgerInputs {
  events: LedgerEvent[];
  fills: LedgerFill[];
  resolutions: Map<string, ConditionResolution>;
  /** Rows of the account stream in the warehouse (0: it was not captured). */
  accountStreamFrames: number;
  /** Inputs found incomplete while reading them. */
  gaps: CoverageGap[];
  counts: {
    deposits: number;
    withdrawals: number;
    splits: number;
    merges: number;
    redemptionFrames: number;
    lpPayouts: number;
  };
}

/**
 * Fills in the venue's order, one time range at a time. The `fills` view holds each fill once, in
 * its newest observation. Within one millisecond the order is the venue's listing order: a REST
 * list is newest first, so its later records are older fills; stream frames come oldest first.
 */
const FILLS_SQL = `
SELECT fill_id, order_id, token_id, condition_id, side, role, price_micro, shares_micro, fee_micro, toUnixTimestamp64Milli(executed_at)
FROM tapehouse.fills_latest
WHERE account = {account:String} AND ${atOrBefore('executed_at', 'to')}
  AND executed_at >= fromUnixTimestamp64Milli({start:Int64}, 'UTC') AND executed_at < fromUnixTimestamp64Milli({end:Int64}, 'UTC')
ORDER BY executed_at, _topic, _partition,
         if(startsWith(source, 'ws:'), toInt64(_offset), -toInt64(_offset)), _index, fill_id`;

const FILL_HOURS_SQL = `
SELECT toUnixTimestamp(toStartOfHour(executed_at)) * 1000 AS hour, count() AS n
FROM tapehouse.fills_latest
WHERE account = {account:String} AND ${atOrBefore('executed_at', 'to')}
GROUP BY hour ORDER BY hour`;

const HOUR_MS = 3_600_000;
/**
 * Fills per read: one read's text (about 250 bytes a fill) stays well below what a JavaScript
 * string can hold (2^29 characters); each read runs FINAL over the account's fills again, so few
 * and large is faster.
 */
const FILLS_PER_READ = 1_000_000;

/** Whole hours grouped into time ranges of about FILLS_PER_READ fills, in order. */
async function fillRanges(client: ClickHouseClient, account: string, toMs: number): Promise<Array<[number, number]>> {
  const hours = await selectObjects<{ hour: string | number; n: string | number }>(client, FILL_HOURS_SQL, {
    account,
    to: toMs,
  });
  const ranges: Array<[number, number]> = [];
  let start: number | undefined;
  let count = 0;
  for (const { hour, n } of hours) {
    start ??= msOf(hour);
    count += Number(n);
    if (count >= FILLS_PER_READ) {
      ranges.push([start, msOf(hour) + HOUR_MS]);
      start = undefined;
      count = 0;
    }
  }
  if (start !== undefined) ranges.push([start, msOf(hours.at(-1)!.hour) + HOUR_MS]);
  return ranges;
}

export async function readFills(client: ClickHouseClient, account: string, toMs: number): Promise<LedgerFill[]> {
  const fills: LedgerFill[] = [];
  for (const [start, end] of await fillRanges(client, account, toMs)) {
    await selectCells(client, FILLS_SQL, { account, to: toMs, start, end }, (r) =>
      fills.push({
        fillId: r[0]!,
        orderId: r[1]!,
        tokenId: r[2]!,
        conditionId: r[3]!,
        side: (r[4] === 'SELL' ? 'SELL' : 'BUY') satisfies Side,
        role: r[5]!,
        priceMicro: BigInt(r[6]!),
        sharesMicro: BigInt(r[7]!),
        feeMicro: BigInt(r[8]!),
        atMs: Number(r[9]),
      }),
    );
  }
  return fills;
}

interface ActivityRow {
  activity_id: string;
  type: string;
  condition_id: string;
  filled_amount: string;
  at: string | number;
  raw: string;
}

/**
 * Movements that are not fills, from the activities list: DEPOSIT, withdrawals (any type starting
 * WITHDRAW), SPLIT and MERGE. The interface shows no amount field for them; the amount is the
 * item's `amount_micro` (kept in `_raw`), or `filled_amount_micro` when the venue fills that.
 * Activities whose status says they failed are left out.
 */
const ACTIVITIES_SQL = `
SELECT activity_id, type, condition_id, toString(filled_amount_micro) AS filled_amount, toUnixTimestamp64Milli(created_at) AS at, _raw AS raw
FROM tapehouse.activities_latest
WHERE account = {account:String} AND ${atOrBefore('created_at', 'to')}
  AND (type IN ('DEPOSIT', 'SPLIT', 'MERGE') OR startsWith(type, 'WITHDRAW'))
  AND status NOT IN ('FAILED', 'REJECTED', 'CANCELLED')
ORDER BY created_at, activity_id`;

async function readActivityEvents(
  client: ClickHouseClient,
  account: string,
  toMs: number,
  tokensOf: ReadonlyMap<string, readonly string[]>,
  gaps: CoverageGap[],
): Promise<LedgerEvent[]> {
  const rows = await selectObjects<ActivityRow>(client, ACTIVITIES_SQL, { account, to: toMs });
  const events: LedgerEvent[] = [];
  for (const row of rows) {
    const atMs = msOf(row.at);
    const filled = BigInt(row.filled_amount);
    const amountMicro = filled > 0n ? filled : payloadMicro(rawPayload(row.raw), 'amount_micro');
    if (amountMicro === undefined) {
      gaps.push({
        input: 'activities',
        fromMs: atMs,
        toMs: atMs,
        reason: `activity ${row.activity_id} (${row.type}) carries no amount`,
      });
      continue;
    }
    if (row.type === 'DEPOSIT') events.push({ kind: 'deposit', atMs, id: row.activity_id, amountMicro });
    else if (row.type.startsWith('WITHDRAW'))
      events.push({ kind: 'withdrawal', atMs, id: row.activity_id, amountMicro });
    else {
      const tokenIds = tokensOf.get(row.condition_id) ?? [];
      if (tokenIds.length !== 2) {
        gaps.push({
          input: 'activities',
          fromMs: atMs,
          toMs: atMs,
          reason: `${row.type} ${row.activity_id}: the outcome tokens of ${row.condition_id} are not in the warehouse`,
        });
        continue;
      }
      events.push({
        kind: row.type === 'SPLIT' ? 'split' : 'merge',
        atMs,
        id: row.activity_id,
        conditionId: row.condition_id,
        tokenIds,
        sharesMicro: amountMicro,
      });
    }
  }
  return events;
}

interface AccountEventRow {
  kind: string;
  reason: string;
  token_id: string;
  condition_id: string;
  at: string | number;
  raw: string;
}

const ACCOUNT_EVENTS_SQL = `
SELECT kind, reason, token_id, condition_id, toUnixTimestamp64Milli(event_at) AS at, _raw AS raw
FROM tapehouse.account_events
WHERE account = {account:String} AND ${atOrBefore('event_at', 'to')}
  AND (kind = 'position_redeemed' OR (kind = 'collateral_updated' AND reason = 'LP_INCENTIVE'))
ORDER BY event_at, _topic, _partition, _offset, _index`;

/** Redemption frames and LP payouts (a collateral frame's `change_micro`), from the account stream. */
async function readAccountStream(
  client: ClickHouseClient,
  account: string,
  toMs: number,
  gaps: CoverageGap[],
): Promise<{ frames: RedemptionFrame[]; lp: LedgerEvent[]; total: number }> {
  const [count] = await selectObjects<{ n: string | number }>(
    client,
    'SELECT count() AS n FROM tapehouse.account_events WHERE account = {account:String}',
    {
      account,
    },
  );
  const rows = await selectObjects<AccountEventRow>(client, ACCOUNT_EVENTS_SQL, { account, to: toMs });
  const frames: RedemptionFrame[] = [];
  const lp: LedgerEvent[] = [];
  for (const row of rows) {
    const payload = rawPayload(row.raw);
    const atMs = msOf(row.at);
    if (row.kind === 'collateral_updated') {
      const amountMicro = payloadMicro(payload, 'change_micro');
      if (amountMicro === undefined)
        gaps.push({
          input: 'account_stream',
          fromMs: atMs,
          toMs: atMs,
          reason: 'an LP-incentive collateral frame carries no change_micro',
        });
      else lp.push({ kind: 'lp_incentive', atMs, amountMicro });
      continue;
    }
    const shares = payloadMicro(payload, 'shares_micro');
    const payout = payloadMicro(payload, 'payout_micro');
    if (shares === undefined || payout === undefined) {
      gaps.push({
        input: 'account_stream',
        fromMs: atMs,
        toMs: atMs,
        tokenId: row.token_id,
        reason: `a redemption frame of ${row.token_id} carries no shares or payout`,
      });
      continue;
    }
    frames.push({
      atMs: payloadTimeMs(payload, 'redeemed_at') ?? atMs,
      tokenId: row.token_id,
      conditionId: row.condition_id,
      sharesMicro: shares,
      resolutionPriceMicro: payloadMicro(payload, 'resolution_price_micro'),
      payoutMicro: payout,
    });
  }
  return { frames, lp, total: Number(count?.n ?? 0) };
}

const STATUS_SQL = `
SELECT condition_id, kind, toUnixTimestamp64Milli(status_at) AS at, winning_token_id, payout_token_ids, arrayMap(x -> toString(x), payouts_micro) AS payouts
FROM tapehouse.market_status
WHERE condition_id IN {conditions:Array(String)} AND ${atOrBefore('status_at', 'to')}
  AND kind IN ('market_resolved', 'payouts_resolved', 'market_resolution_completed')
ORDER BY status_at`;

const OUTCOMES_SQL = `
SELECT token_id, condition_id, toString(resolution_price_micro) AS price
FROM tapehouse.outcomes_latest
WHERE condition_id IN {conditions:Array(String)}`;

interface StatusRow {
  condition_id: string;
  kind: string;
  at: string | number;
  winning_token_id: string;
  payout_token_ids: string[];
  payouts: string[];
}

/** Final resolutions from the status stream (winner or split payouts) and the catalogue's resolution prices. */
async function readResolutions(
  client: ClickHouseClient,
  conditions: string[],
  toMs: number,
): Promise<{ resolutions: Map<string, ConditionResolution>; tokensOf: Map<string, string[]> }> {
  const resolutions = new Map<string, ConditionResolution>();
  const tokensOf = new Map<string, string[]>();
  const resolutionOf = (conditionId: string): ConditionResolution => {
    let r = resolutions.get(conditionId);
    if (!r) resolutions.set(conditionId, (r = emptyResolution(conditionId)));
    return r;
  };
  for (const row of await selectObjects<StatusRow>(client, STATUS_SQL, { conditions, to: toMs })) {
    const r = resolutionOf(row.condition_id);
    const atMs = msOf(row.at);
    if (row.kind === 'market_resolution_completed') {
      r.completedAtMs ??= atMs;
      continue;
    }
    r.resolvedAtMs ??= atMs;
    if (row.winning_token_id !== '') r.winningTokenId = row.winning_token_id;
    row.payout_token_ids.forEach((token, i) => r.payouts.set(token, BigInt(row.payouts[i]!)));
  }
  for (const row of await selectObjects<{ token_id: string; condition_id: string; price: string | null }>(
    client,
    OUTCOMES_SQL,
    { conditions },
  )) {
    tokensOf.set(row.condition_id, [...(tokensOf.get(row.condition_id) ?? []), row.token_id]);
    if (row.price === null) continue;
    const r = resolutionOf(row.condition_id);
    if (!r.payouts.has(row.token_id)) r.payouts.set(row.token_id, BigInt(row.price));
  }
  return { resolutions, tokensOf };
}

// The markets the account touched other than by its fills (those are known from the fills read).
const OTHER_CONDITIONS_SQL = `
SELECT DISTINCT condition_id FROM (
  SELECT condition_id FROM tapehouse.activities_latest WHERE account = {account:String}
  UNION ALL SELECT condition_id FROM tapehouse.account_events WHERE account = {account:String}
) WHERE condition_id != ''`;

/** Reads the account's ledger inputs up to `toMs` (inclusive). */
export async function readLedgerInputs(client: ClickHouseClient, account: string, toMs: number): Promise<LedgerInputs> {
  const gaps: CoverageGap[] = [];
  const fills = await readFills(client, account, toMs);
  const others = (await selectObjects<{ condition_id: string }>(client, OTHER_CONDITIONS_SQL, { account })).map(
    (r) => r.condition_id,
  );
  const conditions = [...new Set([...fills.map((f) => f.conditionId).filter((c) => c !== ''), ...others])];
  const { resolutions, tokensOf } = await readResolutions(client, conditions, toMs);
  const tokensTraded = new Map<string, string>();
  for (const fill of fills) tokensTraded.set(fill.tokenId, fill.conditionId);
  // A condition whose catalogue entry is missing: its tokens as the account's own fills name them.
  for (const [tokenId, conditionId] of tokensTraded) {
    const known = tokensOf.get(conditionId) ?? [];
    if (!known.includes(tokenId) && known.length < 2) known.push(tokenId);
    tokensOf.set(conditionId, known);
  }
  const activities = await readActivityEvents(client, account, toMs, tokensOf, gaps);
  for (const event of activities)
    if (event.kind === 'split' || event.kind === 'merge')
      for (const t of event.tokenIds) tokensTraded.set(t, event.conditionId);
  const stream = await readAccountStream(client, account, toMs, gaps);
  if (stream.total === 0) {
    gaps.push({
      input: 'account_stream',
      fromMs: -Infinity,
      toMs: Infinity,
      reason: 'the account stream was not captured: redemptions and LP incentives are not seen',
    });
  }
  const redemptions = redemptionEvents(stream.frames, resolutions, tokensTraded);
  for (const u of redemptions.unpriced) {
    gaps.push({
      input: 'account_stream',
      fromMs: u.atMs,
      toMs: u.atMs,
      tokenId: u.tokenId,
      reason: `${u.tokenId} was redeemed at a resolution price the warehouse does not hold`,
    });
  }
  const fillEvents: LedgerEvent[] = fills.map((fill) => ({ kind: 'fill', atMs: fill.atMs, fill }));
  return {
    events: [...fillEvents, ...activities, ...redemptions.events, ...stream.lp],
    fills,
    resolutions,
    accountStreamFrames: stream.total,
    gaps,
    counts: {
      deposits: activities.filter((e) => e.kind === 'deposit').length,
      withdrawals: activities.filter((e) => e.kind === 'withdrawal').length,
      splits: activities.filter((e) => e.kind === 'split').length,
      merges: activities.filter((e) => e.kind === 'merge').length,
      redemptionFrames: stream.frames.length,
      lpPayouts: stream.lp.length,
    },
  };
}
