import type { FeeSchedule } from './fees.ts';
import { TakerAllowance } from './allowance.ts';
import { ladderSideOf, toOutcomePrice, type Level, type MarketBook } from './book.ts';
import { remainingShares, type SimOrder } from '../orders.ts';

/** The taker's limit as an outcome-0 tick, or undefined for a market order. */
export function limitTick(book: MarketBook, order: SimOrder): number | undefined {
  return order.type === 'MARKET' ? undefined : book.tickOf(order);
}

/** True when a level on the opposite side is within the taker's limit. */
export function crosses(order: SimOrder, level: Level, limit: number | undefined): boolean {
  if (limit === undefined) return true;
  return ladderSideOf(order) === 'bid' ? level.tick <= limit : level.tick >= limit;
}

export function oppositeSide(order: SimOrder): 'bid' | 'ask' {
  return ladderSideOf(order) === 'bid' ? 'ask' : 'bid';
}

/** Whether a limit order would take liquidity now (own orders count: they are on the book). */
export function wouldCross(book: MarketBook, order: SimOrder): boolean {
  const best = book.bestLevel(oppositeSide(order));
  return best !== undefined && crosses(order, best, limitTick(book, order));
}

/**
 * Dry run: could the order fill completely against other accounts' orders now? Own orders are
 * skipped, as self-trade prevention would cancel rather than fill them.
 */
export function canFillCompletely(book: MarketBook, order: SimOrder, fees: FeeSchedule, lotMicro: bigint): boolean {
  const allowance = new TakerAllowance(order, fees, lotMicro);
  const limit = limitTick(book, order);
  // Until a level is seen, judge a market buy's budget at the worst price it could pay.
  let lastPrice = 1_000_000n - book.tickMicro;
  for (const level of book.levels(oppositeSide(order))) {
    if (!crosses(order, level, limit)) break;
    lastPrice = toOutcomePrice(book.priceOfTick(level.tick), order.outcomeIndex);
    for (const maker of level.orders) {
      if (maker.accountId === order.accountId) continue;
      const wanted = allowance.sharesAt(lastPrice);
      if (wanted <= 0n) return true;
      const take = wanted < remainingShares(maker) ? wanted : remainingShares(maker);
      allowance.take(lastPrice, take);
    }
  }
  // Liquidity ran out: filled only if what is left cannot buy one more lot (market buy dust).
  return allowance.sharesAt(lastPrice) <= 0n;
}
