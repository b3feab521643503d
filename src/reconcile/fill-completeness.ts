import type { CoverageGap } from './coverage.ts';
import type { LedgerFill } from './ledger-events.ts';
import { formatShares } from './explain.ts';
import type { OrderMatch } from './warehouse-reports.ts';

/** One order whose fills do not add up to what the venue says it matched. */
export interface OrderShortfall {
  order: OrderMatch;
  filledMicro: bigint;
  fills: LedgerFill[];
}

/** Per token: shares the checked orders matched by the venue's word, and by their fills. */
export interface TokenOrderTotals {
  tokenId: string;
  filledMicro: bigint;
  matchedMicro: bigint;
  reportedAtMs: number;
  shortfalls: OrderShortfall[];
}

export interface FillCompleteness {
  byToken: TokenOrderTotals[];
  /** A gap for each order whose fills are incomplete: its token's figures cannot be proven. */
  gaps: CoverageGap[];
  ordersChecked: number;
}

/**
 * The venue's own cross-check of the fills: an order's `size_matched_micro` (or its activity's
 * `filled_shares_micro`) must equal the shares of its fills executed by the time the order was
 * read. A shortfall means fills are missing from the fills the warehouse holds (or the order
 * counts fills it should not); either way the token's position cannot be rebuilt with certainty.
 */
export function checkOrderFills(orders: readonly OrderMatch[], fills: readonly LedgerFill[]): FillCompleteness {
  const byOrder = new Map<string, LedgerFill[]>();
  for (const fill of fills) {
    const list = byOrder.get(fill.orderId);
    if (list) list.push(fill);
    else byOrder.set(fill.orderId, [fill]);
  }
  const byToken = new Map<string, TokenOrderTotals>();
  const gaps: CoverageGap[] = [];
  for (const order of orders) {
    const own = (byOrder.get(order.orderId) ?? []).filter((fill) => fill.atMs <= order.observedAtMs);
    const filled = own.reduce((sum, fill) => sum + fill.sharesMicro, 0n);
    const tokenId = order.tokenId || own[0]?.tokenId || '';
    let totals = byToken.get(tokenId);
    if (!totals)
      byToken.set(tokenId, (totals = { tokenId, filledMicro: 0n, matchedMicro: 0n, reportedAtMs: 0, shortfalls: [] }));
    totals.filledMicro += filled;
    totals.matchedMicro += order.matchedMicro;
    totals.reportedAtMs = Math.max(totals.reportedAtMs, order.observedAtMs);
    if (filled === order.matchedMicro) continue;
    totals.shortfalls.push({ order, filledMicro: filled, fills: own });
    gaps.push({
      input: 'fills',
      fromMs: order.createdAtMs ?? own[0]?.atMs ?? -Infinity,
      toMs: order.observedAtMs,
      tokenId,
      reason: `order ${order.orderId} matched ${formatShares(order.matchedMicro)} shares but its fills hold ${formatShares(filled)}`,
    });
  }
  return { byToken: [...byToken.values()], gaps, ordersChecked: orders.length };
}
