import type { Prng } from '../prng.ts';
import type { CategoryTree } from './categories.ts';
import { buildMarket, type MarketSpec } from './market-factory.ts';
import { statesFor, timesFor, type Scenario } from './scenario.ts';
import type { EventType, SimEvent, SimMarket } from './types.ts';

/** Shared state of one catalogue generation run. */
export class GenContext {
  readonly events: SimEvent[] = [];
  readonly markets: SimMarket[] = [];
  readonly #usedSlugs = new Set<string>();

  constructor(
    readonly rng: Prng,
    readonly nowMs: number,
    readonly tree: CategoryTree,
    /** Probability that an ACTIVE market starts halted. */
    readonly haltRate: number,
  ) {}

  uniqueSlug(base: string): string {
    const clean = base
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    let slug = clean;
    for (let n = 2; this.#usedSlugs.has(slug); n++) slug = `${clean}-${n}`;
    this.#usedSlugs.add(slug);
    return slug;
  }

  newEvent(args: {
    title: string;
    eventType: EventType;
    scenario: Scenario;
    categoryKeys: string[];
    durationMs: number;
    offsetHours: number;
    tags: string[];
    description: string;
  }): SimEvent {
    const states = statesFor(args.scenario);
    const { startMs, endMs } = timesFor(args.scenario, this.nowMs, args.durationMs, args.offsetHours);
    const event: SimEvent = {
      id: this.rng.uuid(),
      slug: this.uniqueSlug(args.title),
      title: args.title,
      eventType: args.eventType,
      state: states.eventState,
      resolutionStatus: states.resolutionStatus,
      isLive: states.isLive,
      startMs,
      endMs,
      categoryKeys: args.categoryKeys,
      marketIds: [],
      mainMarketId: '',
      negRiskId: undefined,
      childSlugs: [],
      archivedAtMs: args.scenario === 'archived' ? endMs + 86_400_000 : undefined,
      ordinal: this.events.length,
      game: undefined,
      relatedEventIds: [],
      tags: args.tags,
      description: args.description,
    };
    this.events.push(event);
    return event;
  }

  /** Adds a market to an event, with the event's scenario deciding state and resolution. */
  addMarket(
    event: SimEvent,
    scenario: Scenario,
    spec: Omit<MarketSpec, 'eventId' | 'slug' | 'state' | 'resolutionStatus' | 'openMs' | 'closeMs'> &
      Partial<MarketSpec>,
  ): SimMarket {
    const states = statesFor(scenario);
    const state = spec.state ?? states.marketState;
    const resolutionStatus = spec.resolutionStatus ?? states.resolutionStatus;
    const winner =
      spec.winner ??
      (state === 'RESOLVED' ? (this.rng.chance(0.1) ? 'void' : this.rng.pick([0, 1] as const)) : undefined);
    const halted =
      spec.halted ??
      (state === 'ACTIVE' && this.rng.chance(this.haltRate)
        ? { atMs: this.nowMs - 60_000, reason: 'Trading paused pending review' }
        : undefined);
    const market = buildMarket(this.rng, {
      ...spec,
      eventId: event.id,
      slug: spec.slug ?? this.uniqueSlug(spec.question),
      state,
      resolutionStatus: winner === 'void' ? 'VOID' : resolutionStatus,
      openMs: spec.openMs ?? event.startMs - 7 * 86_400_000,
      closeMs: spec.closeMs ?? event.endMs,
      winner,
      halted,
    });
    if (market.archivedAtMs === undefined && event.archivedAtMs !== undefined) market.archivedAtMs = event.archivedAtMs;
    this.markets.push(market);
    event.marketIds.push(market.id);
    if (event.mainMarketId === '') event.mainMarketId = market.id;
    return market;
  }

  /** A fair price in (0.05, 0.95) in micro-units. */
  fairPrice(): bigint {
    return BigInt(this.rng.int(5, 95)) * 10_000n;
  }

  leafKeysUnder(rootSlug: string, childSlug?: string): string[] {
    return this.tree
      .leaves()
      .filter((c) => c.rootSlug === rootSlug && (childSlug === undefined || c.path.some((p) => p.slug === childSlug)))
      .map((c) => c.key);
  }
}
