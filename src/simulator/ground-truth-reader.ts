import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads a ground-truth folder written by `tapehouse simulate --ground-truth DIR` (or
 * `startSimulator({ groundTruth: { dir } })`): every record with its time as `atMs`, and every
 * `_micro` field as a bigint. Field names are those of the files (README, "Ground truth").
 */

export interface GtLevel {
  price_micro: bigint;
  shares_micro: bigint;
}

export interface GtBook {
  atMs: number;
  token_id: string;
  condition_id: string;
  sequence: number;
  bids: GtLevel[];
  asks: GtLevel[];
}

/** A public fill, `atMs` when it was published (a late fill executed before: `executed_at`). */
export interface GtTrade {
  atMs: number;
  trade_id: string;
  /** Absent when the venue makes each trade one fill. */
  fill_id?: string;
  executed_at?: string;
  token_id: string;
  condition_id: string;
  side: 'BUY' | 'SELL';
  price_micro: bigint;
  shares_micro: bigint;
}

export interface GtStatus {
  atMs: number;
  kind: string;
  event_id: string;
  market_id: string;
  condition_id: string;
  [field: string]: unknown;
}

export interface GtFill {
  atMs: number;
  account_id: string;
  trade_id: string;
  fill_id: string;
  order_id: string;
  token_id: string;
  condition_id: string;
  side: 'BUY' | 'SELL';
  role: 'MAKER' | 'TAKER';
  price_micro: bigint;
  shares_micro: bigint;
  fee_micro: bigint;
  rebate_micro: bigint;
  fill_kind: 'TRANSFER' | 'MINT' | 'MERGE';
  /** Before `atMs` (when the fill was reported) for a late fill (§3.1). */
  executed_at: string;
}

export interface GtAccountState {
  account_id: string;
  label: string;
  collateral_micro: bigint;
  reserved_collateral_micro: bigint;
  deposits_micro: bigint;
  withdrawals_micro: bigint;
  fees_paid_micro: bigint;
  maker_rebates_micro: bigint;
  lp_incentives_micro: bigint;
  vip_rebates_micro: bigint;
  realised_pnl_micro: bigint;
  positions_value_micro: bigint;
  open_cost_basis_micro: bigint;
  unrealised_pnl_micro: bigint;
  positions: Array<{
    token_id: string;
    condition_id: string;
    shares_micro: bigint;
    cost_basis_micro: bigint;
    realised_pnl_micro: bigint;
  }>;
}

export interface GtAccounting {
  atMs: number;
  accounts: GtAccountState[];
  venue: {
    fee_revenue_micro: bigint;
    rebates_paid_micro: bigint;
    lp_incentives_paid_micro: bigint;
    escrow_micro: bigint;
  };
}

export interface GtFault {
  atMs: number;
  id: string;
  kind: string;
  startMs: number;
  endMs: number;
  scope: Record<string, unknown>;
  params: Record<string, unknown>;
}

export interface GroundTruth {
  trades: GtTrade[];
  books: GtBook[];
  statuses: GtStatus[];
  fills: GtFill[];
  accounting: GtAccounting[];
  faults: GtFault[];
  /** The token's book as of an instant: the last state written at or before it (undefined: no change yet). */
  bookAt(tokenId: string, atMs: number): GtBook | undefined;
  /** The token's book right after the change with this sequence. */
  bookAtSequence(tokenId: string, sequence: number): GtBook | undefined;
}

/** `_micro` strings become bigints, `at`/`start`/`end` become epoch milliseconds, recursively. */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.endsWith('_micro') && typeof v === 'string' && /^-?\d+$/.test(v)) out[key] = BigInt(v);
    else if ((key === 'at' || key === 'start' || key === 'end') && typeof v === 'string')
      out[`${key}Ms`] = Date.parse(v);
    else out[key] = revive(v);
  }
  return out;
}

function readLines<T>(dir: string, file: string): T[] {
  const path = join(dir, `${file}.jsonl`);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => revive(JSON.parse(line)) as T);
}

export function readGroundTruth(dir: string): GroundTruth {
  const books = readLines<GtBook>(dir, 'books');
  const byToken = new Map<string, GtBook[]>();
  for (const b of books) {
    const list = byToken.get(b.token_id);
    if (list) list.push(b);
    else byToken.set(b.token_id, [b]);
  }
  return {
    trades: readLines<GtTrade>(dir, 'trades'),
    books,
    statuses: readLines<GtStatus>(dir, 'status'),
    fills: readLines<GtFill>(dir, 'fills'),
    accounting: readLines<GtAccounting>(dir, 'accounting'),
    faults: readLines<GtFault>(dir, 'faults'),
    bookAt: (tokenId, atMs) =>
      byToken
        .get(tokenId)
        ?.filter((b) => b.atMs <= atMs)
        .at(-1),
    bookAtSequence: (tokenId, sequence) => byToken.get(tokenId)?.find((b) => b.sequence === sequence),
  };
}
