import type { Account } from '../accounts/account.ts';
import type { SimMarket } from '../catalogue/types.ts';
import type { Exchange } from '../engine/exchange.ts';
import { isTerminal, type SimOrder } from '../orders.ts';
import type { Prng } from '../prng.ts';
import { ordersOf, tryPlace, type OrderLookup, type TraderStats } from './place.ts';

/**
 * A taker crosses the spread: market buys with a collateral budget, limit fill-and-kill buys a
 * tick through the best ask, or sells of shares it holds. Now and then it leaves a resting
 * GTC or GTD bid, so takers also show up as makers; it cancels them one by one, or all at once.
 */
export class Taker {
  #resting: SimOrder[] = [];

  constructor(
    readonly account: Account,
    private readonly exchange: Exchange,
    private readonly stats: TraderStats,
    private readonly nowMs: () => number,
  ) {}

  /** Its resting orders (a saved venue). */
  held(): string[] {
    return this.#resting.map((o) => o.id);
  }

  restoreHeld(ids: string[], orderById: OrderLookup): void {
    this.#resting = ordersOf(ids, orderById);
  }

  act(market: SimMarket, rng: Prng): void {
    const outcome = rng.pick(market.outcomes);
    const held = this.account.availableShares(outcome.tokenId);
    const roll = rng.float();
    const id = this.account.id;
    this.#resting = this.#resting.filter((o) => !isTerminal(o.status));
    if (this.#resting.length > 0 && roll < 0.1) {
      // Now and then everything at once (cancel-all, §4.1), else the oldest resting order.
      if (roll < 0.025) {
        this.exchange.cancelAll(id);
        this.#resting = [];
        return;
      }
      const oldest = this.#resting.shift();
      if (oldest) this.exchange.cancel(id, oldest.id);
      return;
    }
    if (held > 0n && roll < 0.3) {
      const lots = held / 10_000n;
      const shares = ((BigInt(rng.int(1, 100)) * lots) / 100n) * 10_000n;
      if (shares >= market.minOrderSizeMicro) {
        tryPlace(this.exchange, this.stats, id, {
          tokenId: outcome.tokenId,
          side: 'SELL',
          type: 'MARKET',
          timeInForce: 'FAK',
          sharesMicro: shares,
        });
        return;
      }
    }
    if (roll < 0.6) {
      const budget = BigInt(rng.int(1, 150)) * 1_000_000n;
      tryPlace(this.exchange, this.stats, id, {
        tokenId: outcome.tokenId,
        side: 'BUY',
        type: 'MARKET',
        timeInForce: rng.chance(0.8) ? 'FAK' : 'FOK',
        collateralAmountMicro: budget,
      });
      return;
    }
    const top = this.exchange.book(market).topFor(outcome.index);
    if (top.ask === undefined) return;
    const through = top.ask + market.tickMicro < 1_000_000n ? top.ask + market.tickMicro : top.ask;
    if (roll < 0.85) {
      tryPlace(this.exchange, this.stats, id, {
        tokenId: outcome.tokenId,
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'FAK',
        priceMicro: through,
        sharesMicro: BigInt(rng.int(5, 120)) * 1_000_000n,
      });
      return;
    }
    const below = top.ask - market.tickMicro * BigInt(rng.int(1, 4));
    if (below <= 0n) return;
    const gtd = rng.chance(0.5);
    const resting = tryPlace(this.exchange, this.stats, id, {
      tokenId: outcome.tokenId,
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: gtd ? 'GTD' : 'GTC',
      priceMicro: below,
      sharesMicro: BigInt(rng.int(5, 60)) * 1_000_000n,
      ...(gtd ? { expirationUnixSeconds: Math.floor(this.nowMs() / 1000) + rng.int(90, 900) } : {}),
    });
    if (resting) this.#resting.push(resting);
  }
}
