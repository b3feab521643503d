import type { BookLevel } from '../events.ts';
import { remainingShares, type SimOrder } from '../orders.ts';

/**
 * One binary market's order book, kept as a single ladder in outcome-0 prices (§1.2).
 *
 * BUY outcome 0 at p and SELL outcome 1 at 1 − p both want outcome-0 exposure: they are bids at p.
 * SELL outcome 0 at p and BUY outcome 1 at 1 − p are asks at p. So a BUY on one outcome meets a
 * BUY on the other (a mint), and each outcome's book, read from this ladder, already shows the
 * complementary liquidity at its effective price.
 */

export type LadderSide = 'bid' | 'ask';

export interface Level {
  tick: number;
  /** FIFO: time priority within the price. */
  orders: SimOrder[];
  sharesMicro: bigint;
}

export function ladderSideOf(order: Pick<SimOrder, 'outcomeIndex' | 'side'>): LadderSide {
  return (order.outcomeIndex === 0) === (order.side === 'BUY') ? 'bid' : 'ask';
}

/** A price in outcome `index`'s terms, converted to or from outcome-0 terms (the map is its own inverse). */
export function toOutcomePrice(priceMicro: bigint, index: 0 | 1): bigint {
  return index === 0 ? priceMicro : 1_000_000n - priceMicro;
}

export class MarketBook {
  readonly #bids: Array<Level | undefined>;
  readonly #asks: Array<Level | undefined>;
  /** Highest bid tick, or -1. */
  #bestBid = -1;
  /** Lowest ask tick, or `#maxTick + 1`. */
  #bestAsk: number;
  readonly #maxTick: number;
  /** Book sequence per outcome token: both move together, since one ladder serves both books. */
  sequence = 0;

  constructor(
    readonly conditionId: string,
    readonly tickMicro: bigint,
  ) {
    this.#maxTick = Number(1_000_000n / tickMicro);
    this.#bids = new Array<Level | undefined>(this.#maxTick + 1);
    this.#asks = new Array<Level | undefined>(this.#maxTick + 1);
    this.#bestAsk = this.#maxTick + 1;
  }

  /** Outcome-0 price of the order's limit as a tick index. */
  tickOf(order: SimOrder): number {
    if (order.priceMicro === undefined) throw new Error('a market order has no tick');
    return Number(toOutcomePrice(order.priceMicro, order.outcomeIndex) / this.tickMicro);
  }

  priceOfTick(tick: number): bigint {
    return BigInt(tick) * this.tickMicro;
  }

  add(order: SimOrder): void {
    const side = ladderSideOf(order);
    const tick = this.tickOf(order);
    const levels = side === 'bid' ? this.#bids : this.#asks;
    let level = levels[tick];
    if (!level) {
      level = { tick, orders: [], sharesMicro: 0n };
      levels[tick] = level;
    }
    level.orders.push(order);
    level.sharesMicro += remainingShares(order);
    if (side === 'bid' && tick > this.#bestBid) this.#bestBid = tick;
    if (side === 'ask' && tick < this.#bestAsk) this.#bestAsk = tick;
  }

  /** Takes an order off the book whatever its remaining size. */
  remove(order: SimOrder): void {
    const side = ladderSideOf(order);
    const tick = this.tickOf(order);
    const levels = side === 'bid' ? this.#bids : this.#asks;
    const level = levels[tick];
    if (!level) return;
    const at = level.orders.indexOf(order);
    if (at < 0) return;
    level.orders.splice(at, 1);
    level.sharesMicro -= remainingShares(order);
    if (level.orders.length === 0) this.#dropLevel(side, tick);
  }

  /** Records a fill of a resting order; the order's own counters are updated by the caller first. */
  reduce(order: SimOrder, sharesMicro: bigint): void {
    const side = ladderSideOf(order);
    const level = (side === 'bid' ? this.#bids : this.#asks)[this.tickOf(order)];
    if (level) level.sharesMicro -= sharesMicro;
  }

  bestLevel(side: LadderSide): Level | undefined {
    return side === 'bid' ? this.#bids[this.#bestBid] : this.#asks[this.#bestAsk];
  }

  /** Levels of one side, best first. */
  *levels(side: LadderSide): Generator<Level> {
    if (side === 'bid') {
      for (let t = this.#bestBid; t >= 0; t--) {
        const level = this.#bids[t];
        if (level) yield level;
      }
    } else {
      for (let t = this.#bestAsk; t <= this.#maxTick; t++) {
        const level = this.#asks[t];
        if (level) yield level;
      }
    }
  }

  /** The book of one outcome token in its own prices: bids descending, asks ascending. */
  ladderFor(index: 0 | 1): { bids: BookLevel[]; asks: BookLevel[] } {
    const read = (side: LadderSide): BookLevel[] =>
      [...this.levels(side)].map((l) => ({
        priceMicro: toOutcomePrice(this.priceOfTick(l.tick), index),
        sharesMicro: l.sharesMicro,
      }));
    return index === 0 ? { bids: read('bid'), asks: read('ask') } : { bids: read('ask'), asks: read('bid') };
  }

  /** Best bid and ask of an outcome token in its own prices. */
  topFor(index: 0 | 1): { bid: bigint | undefined; ask: bigint | undefined } {
    const bid = this.bestLevel('bid');
    const ask = this.bestLevel('ask');
    const yesBid = bid ? this.priceOfTick(bid.tick) : undefined;
    const yesAsk = ask ? this.priceOfTick(ask.tick) : undefined;
    if (index === 0) return { bid: yesBid, ask: yesAsk };
    return {
      bid: yesAsk === undefined ? undefined : 1_000_000n - yesAsk,
      ask: yesBid === undefined ? undefined : 1_000_000n - yesBid,
    };
  }

  restingOrders(): SimOrder[] {
    return [...this.levels('bid'), ...this.levels('ask')].flatMap((l) => l.orders);
  }

  #dropLevel(side: LadderSide, tick: number): void {
    if (side === 'bid') {
      this.#bids[tick] = undefined;
      if (tick === this.#bestBid) {
        let t = tick - 1;
        while (t >= 0 && !this.#bids[t]) t--;
        this.#bestBid = t;
      }
    } else {
      this.#asks[tick] = undefined;
      if (tick === this.#bestAsk) {
        let t = tick + 1;
        while (t <= this.#maxTick && !this.#asks[t]) t++;
        this.#bestAsk = t;
      }
    }
  }
}
