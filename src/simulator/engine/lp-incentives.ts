import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Exchange } from './exchange.ts';
import type { VenueEvents } from '../events.ts';
import { remainingShares } from '../orders.ts';
import { creditLpIncentive } from '../accounts/ledger.ts';
import type { AccountRegistry } from '../accounts/registry.ts';

const DAY_MS = 86_400_000;

/** Scoring of a saved venue: this epoch's scores and the schedule. */
export interface LpState {
  scores: Array<[conditionId: string, scores: Array<[accountId: string, score: number]>]>;
  epochStartMs: number;
  nextSampleMs: number;
}

/**
 * Liquidity-provider scoring, Polymarket style: every sample, each resting order of at least the
 * market's minimum shares within `max_spread` of the midpoint scores shares × ((max − distance) / max)².
 * Epochs are UTC days; at an epoch's end each market's pool is paid out pro rata to score.
 */
export class LpIncentives {
  /** condition → account → score this epoch. */
  #scores = new Map<string, Map<string, number>>();
  #epochStartMs: number;
  #nextSampleMs: number;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly exchange: Exchange,
    private readonly accounts: AccountRegistry,
    private readonly events: VenueEvents,
    startMs: number,
    readonly sampleIntervalMs: number,
  ) {
    this.#epochStartMs = Math.floor(startMs / DAY_MS) * DAY_MS;
    this.#nextSampleMs = startMs;
  }

  snapshot(): LpState {
    return {
      scores: [...this.#scores].map(([c, m]) => [c, [...m]]),
      epochStartMs: this.#epochStartMs,
      nextSampleMs: this.#nextSampleMs,
    };
  }

  /** A resumed venue's epoch: epochs that ended while it was not running are paid at the next tick. */
  restore(state: LpState): void {
    this.#scores = new Map(state.scores.map(([c, list]) => [c, new Map(list)]));
    this.#epochStartMs = state.epochStartMs;
    this.#nextSampleMs = state.nextSampleMs;
  }

  epochStartMs(): number {
    return this.#epochStartMs;
  }

  epochEndsAtMs(): number {
    return this.#epochStartMs + DAY_MS;
  }

  score(conditionId: string, accountId: string): number {
    return this.#scores.get(conditionId)?.get(accountId) ?? 0;
  }

  totalScore(conditionId: string): number {
    let total = 0;
    for (const s of this.#scores.get(conditionId)?.values() ?? []) total += s;
    return total;
  }

  /** This account's share of the pool if the epoch ended now (floor to the micro). */
  projectedPayoutMicro(conditionId: string, accountId: string, poolMicro: bigint): bigint {
    const total = this.totalScore(conditionId);
    if (total <= 0) return 0n;
    // Scores are floats; the ratio is taken in parts per billion to keep the payout an integer.
    const ppb = BigInt(Math.floor((this.score(conditionId, accountId) / total) * 1e9));
    return (poolMicro * ppb) / 1_000_000_000n;
  }

  runIfDue(nowMs: number): void {
    while (nowMs >= this.epochEndsAtMs()) this.#closeEpoch(nowMs);
    if (nowMs < this.#nextSampleMs) return;
    this.#nextSampleMs = nowMs + this.sampleIntervalMs;
    this.#sample();
  }

  #sample(): void {
    for (const { market, book } of this.exchange.booksWithOrders()) {
      const lp = market.lpIncentive;
      if (!lp || !this.catalogue.isAcceptingOrders(market)) continue;
      const top = book.topFor(0);
      if (top.bid === undefined || top.ask === undefined) continue;
      const mid = Number(top.bid + top.ask) / 2;
      const scores = this.#scores.get(market.conditionId) ?? new Map<string, number>();
      for (const order of book.restingOrders()) {
        const shares = remainingShares(order);
        if (shares < lp.minSharesMicro) continue;
        const price0 = Number(book.priceOfTick(book.tickOf(order)));
        const distance = Math.abs(price0 - mid);
        if (distance > lp.maxSpreadMicro) continue;
        const weight = (lp.maxSpreadMicro - distance) / lp.maxSpreadMicro;
        scores.set(order.accountId, (scores.get(order.accountId) ?? 0) + (Number(shares) / 1e6) * weight * weight);
      }
      this.#scores.set(market.conditionId, scores);
    }
  }

  #closeEpoch(nowMs: number): void {
    for (const [conditionId, scores] of this.#scores) {
      const market = this.catalogue.marketByCondition(conditionId);
      if (!market?.lpIncentive) continue;
      for (const accountId of scores.keys()) {
        const payout = this.projectedPayoutMicro(conditionId, accountId, market.lpIncentive.poolMicro);
        const account = this.accounts.get(accountId);
        if (!account || payout <= 0n) continue;
        creditLpIncentive(account, payout);
        this.exchange.venue.lpIncentivesPaidMicro += payout;
        this.events.emit('account', { kind: 'balance', accountId, reason: 'LP_INCENTIVE', tokenIds: [], atMs: nowMs });
      }
    }
    this.#scores = new Map();
    this.#epochStartMs += DAY_MS;
  }
}
