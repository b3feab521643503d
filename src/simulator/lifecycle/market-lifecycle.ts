import type { AccountRegistry } from '../accounts/registry.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { SimEvent, SimMarket } from '../catalogue/types.ts';
import type { Exchange } from '../engine/exchange.ts';
import type { VenueEvents } from '../events.ts';
import type { Prng } from '../prng.ts';
import { Agenda } from './agenda.ts';
import type { LifecycleConfig } from './config.ts';
import { decidePayouts } from './payouts.ts';
import { liveCycle, rollRecurring } from './recurring-roll.ts';
import { MarketResolution, type Payouts } from './resolution.ts';

const HALT_REASONS = ['Trading paused pending review', 'Official data feed delayed', 'Rules clarification in progress'];

/**
 * Moves the running venue's markets through their lives on the clock: random halts and resumes,
 * non-recurring events ending → proposed (sometimes disputed) → resolved → redeemed, and recurring
 * events rolling to their next cycle. Markets the catalogue generated as already ended, proposed
 * or disputed keep that state: only what closes while the venue runs moves on.
 */
export class MarketLifecycle {
  readonly resolution: MarketResolution;
  readonly #agenda = new Agenda();
  readonly #ending = new Set<string>();
  #nextHaltMs: number;
  #nextEndMs: number;
  readonly #initiallyOpen: number;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly exchange: Exchange,
    accounts: AccountRegistry,
    events: VenueEvents,
    private readonly rng: Prng,
    private readonly config: LifecycleConfig,
    startMs: number,
  ) {
    this.resolution = new MarketResolution(catalogue, exchange, accounts, events);
    this.#nextHaltMs = startMs + this.#gap(config.haltEveryMs);
    this.#nextEndMs = startMs + this.#gap(config.endEventEveryMs);
    this.#initiallyOpen = this.#endable().length;
    for (const market of catalogue.markets) {
      if (market.haltedAtMs !== undefined && market.state === 'ACTIVE') this.#agenda.at(startMs + config.haltDurationMs, (at) => this.#resume(market, at));
    }
  }

  tick(nowMs: number): void {
    this.#agenda.runDue(nowMs);
    for (; this.config.haltEveryMs > 0 && this.#nextHaltMs <= nowMs; this.#nextHaltMs += this.#gap(this.config.haltEveryMs)) this.#haltOne(nowMs);
    for (; this.config.endEventEveryMs > 0 && this.#nextEndMs <= nowMs; this.#nextEndMs += this.#gap(this.config.endEventEveryMs)) this.#endOne(nowMs);
    this.#rollRecurring(nowMs);
    this.#agenda.runDue(nowMs);
  }

  /** Ends an event now (tests): its markets close and go through proposal to redemption on the configured delays. */
  endEvent(event: SimEvent, nowMs: number): void {
    if (this.#ending.has(event.id)) return;
    this.#ending.add(event.id);
    const markets = this.catalogue.marketsOf(event).filter((m) => m.state === 'ACTIVE');
    for (const market of markets) this.resolution.close(market, nowMs);
    event.state = 'ENDED';
    event.isLive = false;
    event.endMs = Math.min(event.endMs, nowMs);
    this.#openDraftEvent(nowMs);
    const payouts = decidePayouts(markets, (m) => this.exchange.markPriceMicro(m, 0), this.rng, this.config.splitRate);
    const { proposeAfterMs, challengeMs } = this.config;
    this.#agenda.at(nowMs + proposeAfterMs, (at) => {
      for (const market of markets) this.resolution.propose(market, payoutsOf(payouts, market), 1, at);
      event.state = 'PROPOSED';
      event.resolutionStatus = 'PROPOSED';
    });
    const challengedAt = nowMs + proposeAfterMs + challengeMs;
    const disputed = markets.length > 0 && this.rng.chance(this.config.disputeRate) ? this.rng.pick(markets) : undefined;
    if (!disputed) {
      this.#agenda.at(challengedAt, (at) => this.#settle(event, markets, payouts, at));
      return;
    }
    this.#agenda.at(challengedAt, () => {
      this.resolution.dispute(disputed);
      event.state = 'DISPUTED';
      event.resolutionStatus = 'DISPUTED';
    });
    this.#agenda.at(challengedAt + challengeMs, (at) => {
      this.resolution.propose(disputed, payoutsOf(payouts, disputed), 2, at);
      event.state = 'PROPOSED';
      event.resolutionStatus = 'PROPOSED';
    });
    this.#agenda.at(challengedAt + 2 * challengeMs, (at) => this.#settle(event, markets, payouts, at));
  }

  #settle(event: SimEvent, markets: SimMarket[], payouts: Map<string, Payouts>, atMs: number): void {
    for (const market of markets) this.resolution.resolve(market, payoutsOf(payouts, market), atMs);
    event.state = 'CLOSED';
    event.resolutionStatus = 'RESOLVED';
    this.#agenda.at(atMs + this.config.redeemDelayMs, (at) => {
      for (const market of markets) this.#redeemAndComplete(market, payoutsOf(payouts, market), undefined, at);
    });
  }

  #redeemAndComplete(market: SimMarket, payouts: Payouts, replacement: SimMarket | undefined, atMs: number): void {
    const redeemed = this.resolution.redeem(market, atMs);
    this.resolution.complete(market, payouts, replacement, redeemed, atMs);
  }

  #rollRecurring(nowMs: number): void {
    for (const event of this.catalogue.events) {
      if (event.eventType !== 'RECURRING_PROPOSITION') continue;
      for (let live = liveCycle(this.catalogue, event); live && live.state === 'ACTIVE' && live.closeMs <= nowMs; live = liveCycle(this.catalogue, event)) {
        const { closed, next } = rollRecurring(this.catalogue, this.resolution, this.rng, event, live, nowMs);
        this.#resolveCycle(closed, next, nowMs);
      }
    }
  }

  /** A closed cycle: its outcome is proposed, then final, then paid out, naming the cycle that replaced it. */
  #resolveCycle(closed: SimMarket, next: SimMarket, nowMs: number): void {
    const payouts = decidePayouts([closed], (m) => this.exchange.markPriceMicro(m, 0), this.rng, 0).get(closed.conditionId) ?? [0n, 1_000_000n];
    const { proposeAfterMs, challengeMs, redeemDelayMs } = this.config;
    const proposeAt = nowMs + proposeAfterMs;
    this.#agenda.at(proposeAt, (at) => this.resolution.propose(closed, payouts, 1, at));
    this.#agenda.at(proposeAt + challengeMs, (at) => this.resolution.resolve(closed, payouts, at));
    this.#agenda.at(proposeAt + challengeMs + redeemDelayMs, (at) => this.#redeemAndComplete(closed, payouts, next, at));
  }

  #haltOne(nowMs: number): void {
    const candidates = this.catalogue.markets.filter(
      (m) => m.recurring === undefined && this.catalogue.isAcceptingOrders(m) && !this.#ending.has(m.eventId),
    );
    if (candidates.length === 0) return;
    const market = this.rng.pick(candidates);
    this.catalogue.halt(market.conditionId, this.rng.pick(HALT_REASONS), nowMs);
    this.#agenda.at(nowMs + this.config.haltDurationMs, (at) => this.#resume(market, at));
  }

  #resume(market: SimMarket, nowMs: number): void {
    if (market.state === 'ACTIVE' && market.haltedAtMs !== undefined) this.catalogue.resume(market.conditionId, nowMs);
  }

  /** Ends one open event, keeping at least half of those open at the start (a DRAFT event opens in its place). */
  #endOne(nowMs: number): void {
    const endable = this.#endable();
    if (endable.length === 0 || endable.length <= this.#initiallyOpen / 2) return;
    this.endEvent(this.rng.pick(endable), nowMs);
  }

  #endable(): SimEvent[] {
    return this.catalogue.events.filter((e) => {
      if (e.eventType === 'RECURRING_PROPOSITION' || e.archivedAtMs !== undefined || this.#ending.has(e.id)) return false;
      if (e.state !== 'ACTIVE' && e.state !== 'LIVE') return false;
      const markets = this.catalogue.marketsOf(e);
      return markets.length > 0 && markets.every((m) => this.catalogue.isAcceptingOrders(m));
    });
  }

  /** Announced events open when others end, so a long run keeps markets to trade. No frame: §6.2 has no kind for it. */
  #openDraftEvent(nowMs: number): void {
    const draft = this.catalogue.events.find((e) => e.state === 'DRAFT' && e.archivedAtMs === undefined && e.eventType !== 'RECURRING_PROPOSITION');
    if (!draft) return;
    draft.state = 'ACTIVE';
    for (const market of this.catalogue.marketsOf(draft)) {
      if (market.state !== 'DRAFT') continue;
      market.state = 'ACTIVE';
      market.openMs = nowMs;
    }
  }

  /** Spacing of random happenings: uniform between half and one and a half times the mean. */
  #gap(meanMs: number): number {
    return Math.max(1, Math.round(meanMs * (0.5 + this.rng.float())));
  }
}

function payoutsOf(payouts: Map<string, Payouts>, market: SimMarket): Payouts {
  const p = payouts.get(market.conditionId);
  if (!p) throw new Error(`no payouts decided for ${market.conditionId}`);
  return p;
}
