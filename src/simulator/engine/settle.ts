import type { Account } from '../accounts/account.ts';
import { buyShares, creditMakerRebate, sellShares, type TokenKey } from '../accounts/ledger.ts';
import { notionalFloor } from '../money.ts';
import type { Prng } from '../prng.ts';
import { toOutcomePrice } from './book.ts';
import { makerRebate, takerFee, type FeeSchedule } from './fees.ts';
import type { FillKind, SimFill, SimOrder } from '../orders.ts';
import type { VenueLedger } from './venue-ledger.ts';

export interface SettleContext {
  fees: FeeSchedule;
  ids: Prng;
  venue: VenueLedger;
  nextFillSeq: () => number;
}

export interface Match {
  tradeId: string;
  kind: FillKind;
  takerFill: SimFill;
  makerFill: SimFill;
  /** Taker notional: what the public trade and market volume count. */
  notionalMicro: bigint;
}

function tokenKey(order: SimOrder): TokenKey {
  return { tokenId: order.tokenId, conditionId: order.conditionId, outcomeIndex: order.outcomeIndex };
}

function moveShares(account: Account, order: SimOrder, shares: bigint, price: bigint, fee: bigint, atMs: number): void {
  if (order.side === 'BUY') buyShares(account, tokenKey(order), shares, price, fee, atMs);
  else sellShares(account, tokenKey(order), shares, price, fee, atMs);
}

function recordOnOrder(order: SimOrder, shares: bigint, price: bigint, fee: bigint, atMs: number): void {
  order.sizeMatchedMicro += shares;
  order.notionalMatchedMicro += notionalFloor(price, shares);
  order.feesMicro += fee;
  order.updatedAtMs = atMs;
}

/**
 * Settles `shares` between an incoming order and a resting one at the maker's outcome-0 price.
 * Same side on different outcomes is a mint (BUY/BUY) or a merge (SELL/SELL); opposite sides on
 * the same outcome are a transfer. Only the taker pays a fee; the maker earns a rebate from it.
 */
export function settleMatch(
  ctx: SettleContext,
  taker: { order: SimOrder; account: Account },
  maker: { order: SimOrder; account: Account },
  sharesMicro: bigint,
  outcome0PriceMicro: bigint,
  atMs: number,
  /** The trade this fill belongs to (public fills: every maker one taker order meets); a new one when absent. */
  sharedTradeId?: string,
): Match {
  const takerPrice = toOutcomePrice(outcome0PriceMicro, taker.order.outcomeIndex);
  const makerPrice = toOutcomePrice(outcome0PriceMicro, maker.order.outcomeIndex);
  const fee = takerFee(ctx.fees, takerPrice, sharesMicro);
  const rebate = makerRebate(ctx.fees, fee);
  const kind: FillKind =
    taker.order.side !== maker.order.side ? 'TRANSFER' : taker.order.side === 'BUY' ? 'MINT' : 'MERGE';

  moveShares(taker.account, taker.order, sharesMicro, takerPrice, fee, atMs);
  moveShares(maker.account, maker.order, sharesMicro, makerPrice, 0n, atMs);
  creditMakerRebate(maker.account, rebate);
  ctx.venue.feeRevenueMicro += fee;
  ctx.venue.rebatesPaidMicro += rebate;
  if (kind === 'MINT') ctx.venue.addEscrow(taker.order.conditionId, sharesMicro);
  if (kind === 'MERGE') ctx.venue.addEscrow(taker.order.conditionId, -sharesMicro);
  recordOnOrder(taker.order, sharesMicro, takerPrice, fee, atMs);
  recordOnOrder(maker.order, sharesMicro, makerPrice, 0n, atMs);

  const tradeId = sharedTradeId ?? ctx.ids.uuid();
  const fill = (
    order: SimOrder,
    role: 'MAKER' | 'TAKER',
    price: bigint,
    feeMicro: bigint,
    rebateMicro: bigint,
  ): SimFill => ({
    fillId: ctx.ids.uuid(),
    tradeId,
    seq: ctx.nextFillSeq(),
    orderId: order.id,
    accountId: order.accountId,
    conditionId: order.conditionId,
    tokenId: order.tokenId,
    side: order.side,
    role,
    priceMicro: price,
    sharesMicro,
    feeMicro,
    rebateMicro,
    kind,
    executedAtMs: atMs,
    status: 'MATCHED',
    transactionHash: '',
  });
  const takerFill = fill(taker.order, 'TAKER', takerPrice, fee, 0n);
  const makerFill = fill(maker.order, 'MAKER', makerPrice, 0n, rebate);
  for (const [f, side] of [
    [takerFill, taker],
    [makerFill, maker],
  ] as const) {
    side.order.fillIds.push(f.fillId);
    side.account.fills.push(f);
  }
  return { tradeId, kind, takerFill, makerFill, notionalMicro: notionalFloor(takerPrice, sharesMicro) };
}
