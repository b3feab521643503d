import type { Account } from '../accounts/account.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { SimMarket } from '../catalogue/types.ts';
import type { Exchange } from '../engine/exchange.ts';
import type { Prng } from '../prng.ts';
import { FairValue } from './fair-value.ts';
import { MarketMaker } from './market-maker.ts';
import { newStats, type HeldOrders, type OrderLookup, type TraderStats } from './place.ts';
import { RestingDepth } from './resting-depth.ts';
import { Taker } from './taker.ts';

/** The order flow of a saved venue: where each market's fair value stands, and what each trader tracks. */
export interface TradersState {
  stats: TraderStats;
  fair: Array<[conditionId: string, logit: number]>;
  makers: HeldOrders[];
  takers: string[][];
  depth: HeldOrders;
}

export interface TraderAccounts {
  makers: Account[];
  takers: Account[];
  /** Holds the resting depth away from the touch; none when absent. */
  depth?: { account: Account; ticks: number; rng: Prng };
}

/**
 * The synthetic order flow: `rate` steps per second of clock time, each a requote by a market
 * maker or a taker crossing the spread in one seeded-random tradable market. Same seed, same
 * steps: the flow depends only on the seed and on how many steps have run.
 */
export class Traders {
  readonly stats: TraderStats = newStats();
  readonly #makers: MarketMaker[];
  readonly #takers: Taker[];
  readonly #depth: RestingDepth | undefined;
  readonly #fair = new Map<string, FairValue>();
  #startMs: number;
  #stepsDone = 0;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly exchange: Exchange,
    private readonly rng: Prng,
    accounts: TraderAccounts,
    nowMs: () => number,
    /** Steps (book changes) per second; 0 stops the flow. */
    public rate: number,
    /** A resumed venue's flow: it goes on from now, with the books it had (nothing is placed at start). */
    saved?: { state: TradersState; orderById: OrderLookup },
  ) {
    this.#makers = accounts.makers.map((a) => new MarketMaker(a, exchange, this.stats));
    this.#takers = accounts.takers.map((a) => new Taker(a, exchange, this.stats, nowMs));
    this.#startMs = nowMs();
    const depth = accounts.depth;
    this.#depth = depth ? new RestingDepth(depth.account, exchange, this.stats, depth.rng, depth.ticks) : undefined;
    if (saved) {
      this.#restore(saved.state, saved.orderById);
      return;
    }
    // With order flow, markets open now get their depth before anyone watches; later ones when
    // first traded. Without (rate 0, a quiet venue for exact tests), books start empty.
    if (rate > 0) {
      for (const market of catalogue.markets) {
        if (catalogue.isAcceptingOrders(market)) this.#depth?.ensure(market, this.#fairOf(market).probability());
      }
      exchange.processDue();
    }
  }

  snapshot(): TradersState {
    return {
      stats: this.stats,
      fair: [...this.#fair].map(([c, f]) => [c, f.logit]),
      makers: this.#makers.map((m) => m.held()),
      takers: this.#takers.map((t) => t.held()),
      depth: this.#depth?.held() ?? [],
    };
  }

  #restore(state: TradersState, orderById: OrderLookup): void {
    Object.assign(this.stats, state.stats);
    for (const [conditionId, logit] of state.fair) this.#fair.set(conditionId, FairValue.atLogit(logit));
    this.#makers.forEach((m, i) => m.restoreHeld(state.makers[i] ?? [], orderById));
    this.#takers.forEach((t, i) => t.restoreHeld(state.takers[i] ?? [], orderById));
    this.#depth?.restoreHeld(state.depth, orderById);
  }

  /** Runs the steps that clock time says are due, at most `maxSteps` of them. */
  runDue(nowMs: number, maxSteps = 5_000): void {
    if (this.rate <= 0) {
      this.#startMs = nowMs;
      this.#stepsDone = 0;
      return;
    }
    const due = Math.floor(((nowMs - this.#startMs) * this.rate) / 1000) - this.#stepsDone;
    const steps = Math.min(due, maxSteps);
    for (let i = 0; i < steps; i++) this.step();
    // Falling behind is dropped rather than replayed in a burst.
    this.#stepsDone += due > maxSteps ? due : steps;
  }

  step(): void {
    const markets = this.catalogue.markets.filter((m) => this.catalogue.isAcceptingOrders(m));
    if (markets.length === 0) return;
    const market = this.rng.pick(markets);
    const fair = this.#fairOf(market);
    fair.step(this.rng);
    this.stats.steps++;
    this.#depth?.step(market, fair.probability());
    const book = this.exchange.book(market);
    const quoted = book.bestLevel('bid') !== undefined && book.bestLevel('ask') !== undefined;
    if (!quoted || this.rng.chance(0.6) || this.#takers.length === 0) {
      if (this.#makers.length > 0) this.rng.pick(this.#makers).requote(market, fair, this.rng);
    } else {
      this.rng.pick(this.#takers).act(market, this.rng);
    }
    this.exchange.processDue();
  }

  #fairOf(market: SimMarket): FairValue {
    let fair = this.#fair.get(market.conditionId);
    if (!fair) {
      fair = new FairValue(market.initialPriceMicro);
      this.#fair.set(market.conditionId, fair);
    }
    return fair;
  }
}
