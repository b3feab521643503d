/** Orders and fills as the engine keeps them. Quantities are micro-units (bigint). */

export type Side = 'BUY' | 'SELL';
export type OrderType = 'LIMIT' | 'MARKET';
export type TimeInForce = 'GTC' | 'GTD' | 'FOK' | 'FAK';

/** LIVE is this simulator's name for the resting status the interface leaves unnamed (§3.1). */
export type OrderStatus = 'PENDING' | 'SUBMITTING' | 'LIVE' | 'MATCHED' | 'CANCELLED' | 'REJECTED' | 'FAILED';

export const TERMINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['MATCHED', 'CANCELLED', 'REJECTED', 'FAILED']);

export interface Failure {
  code: string;
  title: string;
  detail?: string;
  recovery: { strategy: string; after_seconds?: number };
}

export interface SimOrder {
  id: string;
  /** Global placement sequence: the keyset of order lists. */
  seq: number;
  accountId: string;
  conditionId: string;
  tokenId: string;
  outcomeIndex: 0 | 1;
  side: Side;
  type: OrderType;
  timeInForce: TimeInForce;
  postOnly: boolean;
  /** Limit price in the order's own token; undefined for MARKET. */
  priceMicro: bigint | undefined;
  /** Share quantity; undefined for a MARKET BUY. */
  originalSizeMicro: bigint | undefined;
  /** MARKET BUY budget, fee headroom included. */
  collateralAmountMicro: bigint | undefined;
  sizeMatchedMicro: bigint;
  /** Σ price × shares of fills, for the average fill price. */
  notionalMatchedMicro: bigint;
  feesMicro: bigint;
  status: OrderStatus;
  createdAtMs: number;
  updatedAtMs: number;
  expirationMs: number | undefined;
  cancelRequestedAtMs: number | undefined;
  failure: Failure | undefined;
  /** Signed orders: their identity on the venue. */
  orderHash: string | undefined;
  /** Collateral (BUY) or shares (SELL) this order holds back from its account right now. */
  reservedCollateralMicro: bigint;
  reservedSharesMicro: bigint;
  /** Fill ids of this order, oldest first. */
  fillIds: string[];
  /**
   * What the venue reports while a late fill is not known yet (§3.1: CANCELLED is provisional): the
   * order filled just before its cancel took effect, but reads CANCELLED, unfilled by that fill,
   * until `untilMs`. Absent otherwise.
   */
  reported?: ReportedOrder;
}

export interface ReportedOrder {
  status: OrderStatus;
  sizeMatchedMicro: bigint;
  notionalMatchedMicro: bigint;
  feesMicro: bigint;
  untilMs: number;
}

/** The order as the venue reports it now (its provisional view while a late fill is unreported). */
export function asReported(order: SimOrder): SimOrder {
  return order.reported ? { ...order, ...order.reported } : order;
}

export type FillKind = 'TRANSFER' | 'MINT' | 'MERGE';

/** One side of a match: the record of §2.3 for one order. */
export interface SimFill {
  fillId: string;
  tradeId: string;
  /** Global fill sequence: keyset of trade lists. */
  seq: number;
  orderId: string;
  accountId: string;
  conditionId: string;
  tokenId: string;
  side: Side;
  role: 'MAKER' | 'TAKER';
  priceMicro: bigint;
  sharesMicro: bigint;
  feeMicro: bigint;
  rebateMicro: bigint;
  kind: FillKind;
  executedAtMs: number;
  /** MATCHED at the match, CONFIRMED once "settled on chain". */
  status: 'MATCHED' | 'CONFIRMED';
  transactionHash: string;
  /** A late fill: listed from this instant on (its `executed_at` lies before). Absent: listed at once. */
  reportedFromMs?: number;
}

/** Whether a fill is listed (REST) at `nowMs`: a late fill only once reported. */
export function isReported(fill: SimFill, nowMs: number): boolean {
  return fill.reportedFromMs === undefined || fill.reportedFromMs <= nowMs;
}

export function isTerminal(status: OrderStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

export function remainingShares(order: SimOrder): bigint {
  return order.originalSizeMicro === undefined ? 0n : order.originalSizeMicro - order.sizeMatchedMicro;
}
