import type { AccountRegistry } from '../accounts/registry.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { SimEvent, SimMarket } from '../catalogue/types.ts';
import type { Exchange } from '../engine/exchange.ts';
import type { VenueEvents } from '../events.ts';
import type { Prng } from '../prng.ts';
import { Agenda, type AgendaEntry } from './agenda.ts';
import type { LifecycleConfig } from './config.ts';
import { decidePayouts } from './payouts.ts';
import { liveCycle, rollRecurring } from './recurring-roll.ts';
import { MarketResolution, type Payouts } from './resolution.ts';

const HALT_REASONS = ['Trading paused pending review', 'Official data feed delayed', 'Rules clarification in progress'];

/** Payouts decided for markets, by condition id (plain data: jobs are saved with the venue). */
type PayoutList = Array<[conditionId: string, payouts: Payouts]>;

/**
 * What the lifecycle has to do later, as plain data so a saved venue takes its pending proposals,
 * disputes, resolutions and redemptions with it (a closure could not be saved).
 */
export type LifecycleJob =
  | { kind: 'resume'; conditionId: string }
  /** An ended event's first proposal, for every market it closed. */
  | { kind: 'propose_event'; eventId: string; payouts: PayoutList }
  | { kind: 'dispute'; eventId: string; conditionId: string }
  /** The disputed market proposed again (round 2). */
  | { kind: 'repropose'; eventId: string; conditionId: string; payouts: Payouts }
  | { kind: 'settle_event'; eventId: string; payouts: PayoutList }
  /** Redemption and `market_resolution_completed`, naming the cycle that replaced a recurring one. */
  | { kind: 'redeem'; payouts: PayoutList; replacementId?: string }
  | { kind: 'propose'; conditionId: string; payouts: Payouts }
  | { kind: 'resolve'; conditionId: string; payouts: Payouts };

/** The lifecycle's state in a saved venue. */
export interface LifecycleState {
  agenda: Array<AgendaEntry<LifecycleJob>>;
  ending: string[];
  nextHaltMs: number;
  nextEndMs: number;
  initiallyOpen: number;
}

/**
 * Moves the running venue's markets through their lives on the clock: random halts and resumes,
 * non-recurring events ending → proposed (sometimes disputed) → resolved → redeemed, and recurring
 * events rolling to their next cycle. Markets the catalogue generated as already ended, proposed
 * or disputed keep that state: only what closes while the venue runs moves on.
 */
export class MarketLifecycle {
  readonly resolution: MarketResolution;
  readonly #agenda = new Agenda<LifecycleJob>((job, at) => this.#run(job, at));
  readonly #ending = new Set<string>();
  #nextHaltMs: number;
  #nextEndMs: number;
  #initiallyOpen: number;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly exchange: Exchange,
    accounts: AccountRegistry,
    events: VenueEvents,
    private readonly rng: Prng,
    private readonly config: LifecycleConfig,
    startMs: number,
    /** A resumed venue's lifecycle: its pending jobs and schedule instead of a new one's. */
    saved?: LifecycleState,
  ) {
    this.resolution = new MarketResolution(catalogue, exchange, accounts, events);
    if (saved) {
      this.#agenda.restore(saved.agenda);
      for (const id of saved.ending) this.#ending.add(id);
      this.#initiallyOpen = saved.initiallyOpen;
      // Random happenings are not replayed for the time the venue was not running: the next ones
      // are drawn from now (jobs already scheduled — resumes, proposals, resolutions — do run).
      this.#nextHaltMs = saved.nextHaltMs > startMs ? saved.nextHaltMs : startMs + this.#gap(config.haltEveryMs);
      this.#nextEndMs = saved.nextEndMs > startMs ? saved.nextEndMs : startMs + this.#gap(config.endEventEveryMs);
      return;
    }
    this.#nextHaltMs = startMs + this.#gap(config.haltEveryMs);
    this.#nextEndMs = startMs + this.#gap(config.endEventEveryMs);
    this.#initiallyOpen = this.#endable().length;
    for (const market of catalogue.markets) {
      if (market.haltedAtMs !== undefined && market.state === 'ACTIVE')
        this.#agenda.at(startMs + config.haltDurationMs, { kind: 'resume', conditionId: market.conditionId });
    }
  }

  snapshot(): LifecycleState {
    return {
      agenda: [...this.#agenda.entries()],
      ending: [...this.#ending],
      nextHaltMs: this.#nextHaltMs,
      nextEndMs: this.#nextEndMs,
      initiallyOpen: this.#initiallyOpen,
    };
  }

  tick(nowMs: number): void {
    this.#agenda.runDue(nowMs);
    for (
      ;
      this.config.haltEveryMs > 0 && this.#nextHaltMs <= nowMs;
      this.#nextHaltMs += this.#gap(this.config.haltEveryMs)
    )
      this.#haltOne(nowMs);
    for (
      ;
      this.config.endEventEveryMs > 0 && this.#nextEndMs <= nowMs;
      this.#nextEndMs += this.#gap(this.config.endEventEveryMs)
    )
      this.#endOne(nowMs);
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
    const decided = decidePayouts(markets, (m) => this.exchange.markPriceMicro(m, 0), this.rng, this.config.splitRate);
    // In the markets' order, as their frames go out.
    const payouts: PayoutList = markets.map((m) => [
      m.conditionId,
      decided.get(m.conditionId) ?? missingPayouts(m.conditionId),
    ]);
    const { proposeAfterMs, challengeMs } = this.config;
    this.#agenda.at(nowMs + proposeAfterMs, { kind: 'propose_event', eventId: event.id, payouts });
    const challengedAt = nowMs + proposeAfterMs + challengeMs;
    const disputed =
      markets.length > 0 && this.rng.chance(this.config.disputeRate) ? this.rng.pick(markets) : undefined;
    if (!disputed) {
      this.#agenda.at(challengedAt, { kind: 'settle_event', eventId: event.id, payouts });
      return;
    }
    this.#agenda.at(challengedAt, { kind: 'dispute', eventId: event.id, conditionId: disputed.conditionId });
    this.#agenda.at(challengedAt + challengeMs, {
      kind: 'repropose',
      eventId: event.id,
      conditionId: disputed.conditionId,
      payouts: payoutsOf(payouts, disputed.conditionId),
    });
    this.#agenda.at(challengedAt + 2 * challengeMs, { kind: 'settle_event', eventId: event.id, payouts });
  }

  #run(job: LifecycleJob, at: number): void {
    const event = 'eventId' in job ? this.catalogue.eventById(job.eventId) : undefined;
    switch (job.kind) {
      case 'resume':
        return this.#resume(this.#market(job.conditionId), at);
      case 'propose_event':
        for (const [conditionId, payouts] of job.payouts)
          this.resolution.propose(this.#market(conditionId), payouts, 1, at);
        return setEventState(event, 'PROPOSED', 'PROPOSED');
      case 'dispute':
        this.resolution.dispute(this.#market(job.conditionId));
        return setEventState(event, 'DISPUTED', 'DISPUTED');
      case 'repropose':
        this.resolution.propose(this.#market(job.conditionId), job.payouts, 2, at);
        return setEventState(event, 'PROPOSED', 'PROPOSED');
      case 'settle_event':
        for (const [conditionId, payouts] of job.payouts)
          this.resolution.resolve(this.#market(conditionId), payouts, at);
        setEventState(event, 'CLOSED', 'RESOLVED');
        return this.#agenda.at(at + this.config.redeemDelayMs, { kind: 'redeem', payouts: job.payouts });
      case 'redeem': {
        const replacement = job.replacementId === undefined ? undefined : this.catalogue.marketById(job.replacementId);
        for (const [conditionId, payouts] of job.payouts) {
          const market = this.#market(conditionId);
          const redeemed = this.resolution.redeem(market, at);
          this.resolution.complete(market, payouts, replacement, redeemed, at);
        }
        return;
      }
      case 'propose':
        return this.resolution.propose(this.#market(job.conditionId), job.payouts, 1, at);
      case 'resolve':
        return this.resolution.resolve(this.#market(job.conditionId), job.payouts, at);
    }
  }

  #market(conditionId: string): SimMarket {
    const market = this.catalogue.marketByCondition(conditionId);
    if (!market) throw new Error(`lifecycle job for unknown condition ${conditionId}`);
    return market;
  }

  #rollRecurring(nowMs: number): void {
    for (const event of this.catalogue.events) {
      if (event.eventType !== 'RECURRING_PROPOSITION') continue;
      for (
        let live = liveCycle(this.catalogue, event);
        live && live.state === 'ACTIVE' && live.closeMs <= nowMs;
        live = liveCycle(this.catalogue, event)
      ) {
        const { closed, next } = rollRecurring(this.catalogue, this.resolution, this.rng, event, live, nowMs);
        this.#resolveCycle(closed, next, nowMs);
      }
    }
  }

  /** A closed cycle: its outcome is proposed, then final, then paid out, naming the cycle that replaced it. */
  #resolveCycle(closed: SimMarket, next: SimMarket, nowMs: number): void {
    const payouts = decidePayouts([closed], (m) => this.exchange.markPriceMicro(m, 0), this.rng, 0).get(
      closed.conditionId,
    ) ?? [0n, 1_000_000n];
    const { proposeAfterMs, challengeMs, redeemDelayMs } = this.config;
    const proposeAt = nowMs + proposeAfterMs;
    const conditionId = closed.conditionId;
    this.#agenda.at(proposeAt, { kind: 'propose', conditionId, payouts });
    this.#agenda.at(proposeAt + challengeMs, { kind: 'resolve', conditionId, payouts });
    this.#agenda.at(proposeAt + challengeMs + redeemDelayMs, {
      kind: 'redeem',
      payouts: [[conditionId, payouts]],
      replacementId: next.id,
    });
  }

  #haltOne(nowMs: number): void {
    const candidates = this.catalogue.markets.filter(
      (m) => m.recurring === undefined && this.catalogue.isAcceptingOrders(m) && !this.#ending.has(m.eventId),
    );
    if (candidates.length === 0) return;
    const market = this.rng.pick(candidates);
    this.catalogue.halt(market.conditionId, this.rng.pick(HALT_REASONS), nowMs);
    this.#agenda.at(nowMs + this.config.haltDurationMs, { kind: 'resume', conditionId: market.conditionId });
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
      if (e.eventType === 'RECURRING_PROPOSITION' || e.archivedAtMs !== undefined || this.#ending.has(e.id))
        return false;
      if (e.state !== 'ACTIVE' && e.state !== 'LIVE') return false;
      const markets = this.catalogue.marketsOf(e);
      return markets.length > 0 && markets.every((m) => this.catalogue.isAcceptingOrders(m));
    });
  }

  /** Announced events open when others end, so a long run keeps markets to trade. No frame: §6.2 has no kind for it. */
  #openDraftEvent(nowMs: number): void {
    const draft = this.catalogue.events.find(
      (e) => e.state === 'DRAFT' && e.archivedAtMs === undefined && e.eventType !== 'RECURRING_PROPOSITION',
    );
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

function payoutsOf(payouts: PayoutList, conditionId: string): Payouts {
  return payouts.find(([id]) => id === conditionId)?.[1] ?? missingPayouts(conditionId);
}

function missingPayouts(conditionId: string): never {
  throw new Error(`no payouts decided for ${conditionId}`);
}

function setEventState(
  event: SimEvent | undefined,
  state: SimEvent['state'],
  resolutionStatus: SimEvent['resolutionStatus'],
): void {
  if (!event) return;
  event.state = state;
  event.resolutionStatus = resolutionStatus;
}
