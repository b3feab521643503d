import type { Account } from '../accounts/account.ts';
import type { SimMarket } from '../catalogue/types.ts';
import type { Exchange } from '../engine/exchange.ts';
import { isTerminal, type SimOrder } from '../orders.ts';
import type { Prng } from '../prng.ts';
import { heldIds, restoreHeldOrders, tryPlace, type HeldOrders, type OrderLookup, type TraderStats } from './place.ts';

/** The depth starts outside the market makers' quotes, which sit 1 to 3 ticks from the fair value. */
const INNER_TICKS = 4;

/** Chance that a step of the order flow also touches up the depth of its market. */
const REFRESH_CHANCE = 0.2;

/**
 * Resting liquidity away from the touch, as a real prediction-market book has it: orders on every
 * tick from 4 to `ticks` ticks either side of the fair value (inside the price range), so a
 * full-depth snapshot frame is as long as the venue's. One account holds them. A market's ladder
 * is placed when the market is first seen, then touched up one order at a time: one that drifted
 * into the makers' band or out of the band is cancelled, a missing tick of the band is filled.
 * Bids are BUYs of outcome 0; asks are BUYs of outcome 1 at the complementary price, so the
 * account needs collateral only.
 */
export class RestingDepth {
  readonly #orders = new Map<string, SimOrder[]>();

  constructor(
    readonly account: Account,
    private readonly exchange: Exchange,
    private readonly stats: TraderStats,
    private readonly rng: Prng,
    /** How far the ladder reaches from the fair value, in ticks; below INNER_TICKS there is none. */
    private readonly ticks: number,
  ) {}

  /** The orders it keeps track of, by market (a saved venue). */
  held(): HeldOrders {
    return heldIds(this.#orders);
  }

  /** Takes saved tracking back; orders the venue no longer holds are left out. */
  restoreHeld(held: HeldOrders, orderById: OrderLookup): void {
    restoreHeldOrders(this.#orders, held, orderById);
  }

  /** Places the ladder of a market seen for the first time. */
  ensure(market: SimMarket, fair: number): void {
    if (this.ticks < INNER_TICKS || this.#orders.has(market.conditionId)) return;
    const orders: SimOrder[] = [];
    const center = centerTick(market, fair);
    for (let k = INNER_TICKS; k <= this.ticks; k++) {
      for (const tick of [center - k, center + k]) {
        const order = this.#place(market, tick, center);
        if (order) orders.push(order);
      }
    }
    this.#orders.set(market.conditionId, orders);
  }

  /** The depth's part of a step of the order flow in a market: its ladder when new, else now and then a touch-up. */
  step(market: SimMarket, fair: number): void {
    const held = this.#orders.get(market.conditionId);
    if (!held) this.ensure(market, fair);
    else if (this.rng.chance(REFRESH_CHANCE)) this.#refresh(market, fair, held);
  }

  /** One touch-up of a market's ladder around the fair value now. */
  #refresh(market: SimMarket, fair: number, held: SimOrder[]): void {
    const live = held.filter((o) => !isTerminal(o.status));
    const center = centerTick(market, fair);
    const tickOf = (o: SimOrder): number => {
      const own = o.priceMicro ?? 0n;
      const price = o.outcomeIndex === 0 ? own : 1_000_000n - own;
      return Number(price / market.tickMicro);
    };
    const stale = live.filter((o) => {
      const distance = Math.abs(tickOf(o) - center);
      return distance < INNER_TICKS || distance > this.ticks;
    });
    if (stale.length > 0) this.exchange.cancel(this.account.id, this.rng.pick(stale).id);
    const taken = new Set(live.map(tickOf));
    const offset = this.rng.int(INNER_TICKS, this.ticks);
    const tick = this.rng.chance(0.5) ? center - offset : center + offset;
    if (!taken.has(tick)) {
      const order = this.#place(market, tick, center);
      if (order) live.push(order);
    }
    this.#orders.set(
      market.conditionId,
      live.filter((o) => !isTerminal(o.status)),
    );
  }

  #place(market: SimMarket, tick: number, center: number): SimOrder | undefined {
    const price = BigInt(tick) * market.tickMicro;
    if (price <= 0n || price >= 1_000_000n) return undefined;
    // Enough shares for the venue's minimum notional at the cheapest tick.
    const shares = BigInt(this.rng.int(200, 2_000)) * 1_000_000n;
    const [yes, no] = market.outcomes;
    return tick < center
      ? tryPlace(this.exchange, this.stats, this.account.id, {
          tokenId: yes.tokenId,
          side: 'BUY',
          type: 'LIMIT',
          timeInForce: 'GTC',
          priceMicro: price,
          sharesMicro: shares,
        })
      : tryPlace(this.exchange, this.stats, this.account.id, {
          tokenId: no.tokenId,
          side: 'BUY',
          type: 'LIMIT',
          timeInForce: 'GTC',
          priceMicro: 1_000_000n - price,
          sharesMicro: shares,
        });
  }
}

function centerTick(market: SimMarket, fair: number): number {
  return Math.round((fair * 1e6) / Number(market.tickMicro));
}
