import type { Account } from '../accounts/account.ts';
import type { SimMarket } from '../catalogue/types.ts';
import type { Exchange } from '../engine/exchange.ts';
import { isTerminal, type SimOrder } from '../orders.ts';
import type { Prng } from '../prng.ts';
import { onTick, type FairValue } from './fair-value.ts';
import { heldIds, restoreHeldOrders, tryPlace, type HeldOrders, type OrderLookup, type TraderStats } from './place.ts';

/**
 * A market maker replaces its quotes in one market around the fair value: one bid and one ask in
 * outcome-0 terms. The bid is a BUY of outcome 0, or a SELL of outcome 1 when it holds outcome 1;
 * the ask is a SELL of outcome 0 when held, else a BUY of outcome 1 at the complementary price.
 */
export class MarketMaker {
  readonly #quotes = new Map<string, SimOrder[]>();

  constructor(
    readonly account: Account,
    private readonly exchange: Exchange,
    private readonly stats: TraderStats,
  ) {}

  /** The orders it keeps track of, by market (a saved venue). */
  held(): HeldOrders {
    return heldIds(this.#quotes);
  }

  /** Takes saved tracking back; orders the venue no longer holds are left out. */
  restoreHeld(held: HeldOrders, orderById: OrderLookup): void {
    restoreHeldOrders(this.#quotes, held, orderById);
  }

  requote(market: SimMarket, fair: FairValue, rng: Prng): void {
    for (const order of this.#quotes.get(market.conditionId) ?? []) {
      if (!isTerminal(order.status)) this.exchange.cancel(this.account.id, order.id);
    }
    const p = fair.probability();
    const halfSpread = (rng.int(1, 3) * Number(market.tickMicro)) / 1e6;
    const bid = onTick(p - halfSpread, market.tickMicro, 'down');
    const ask = onTick(p + halfSpread, market.tickMicro, 'up');
    if (bid >= ask) return;
    const size = (): bigint => BigInt(rng.int(10, 300)) * 1_000_000n;
    const [yes, no] = market.outcomes;
    const placed: SimOrder[] = [];
    const bidSize = size();
    const bidOrder =
      this.account.availableShares(no.tokenId) >= bidSize
        ? tryPlace(this.exchange, this.stats, this.account.id, {
            tokenId: no.tokenId,
            side: 'SELL',
            type: 'LIMIT',
            timeInForce: 'GTC',
            priceMicro: 1_000_000n - bid,
            sharesMicro: bidSize,
          })
        : tryPlace(this.exchange, this.stats, this.account.id, {
            tokenId: yes.tokenId,
            side: 'BUY',
            type: 'LIMIT',
            timeInForce: 'GTC',
            priceMicro: bid,
            sharesMicro: bidSize,
          });
    const askSize = size();
    const askOrder =
      this.account.availableShares(yes.tokenId) >= askSize
        ? tryPlace(this.exchange, this.stats, this.account.id, {
            tokenId: yes.tokenId,
            side: 'SELL',
            type: 'LIMIT',
            timeInForce: 'GTC',
            priceMicro: ask,
            sharesMicro: askSize,
          })
        : tryPlace(this.exchange, this.stats, this.account.id, {
            tokenId: no.tokenId,
            side: 'BUY',
            type: 'LIMIT',
            timeInForce: 'GTC',
            priceMicro: 1_000_000n - ask,
            sharesMicro: askSize,
          });
    if (bidOrder) placed.push(bidOrder);
    if (askOrder) placed.push(askOrder);
    this.#quotes.set(market.conditionId, placed);
  }
}
