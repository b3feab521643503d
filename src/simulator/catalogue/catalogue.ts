import type { MarketStatusKind, VenueEvents } from '../events.ts';
import type { CategoryTree } from './categories.ts';
import type { GeneratedCatalogue } from './generate.ts';
import type { SimEvent, SimMarket } from './types.ts';

export interface TokenRef {
  market: SimMarket;
  outcomeIndex: 0 | 1;
}

/** The live catalogue: lookups by every identifier the interface uses, and market state changes. */
export class Catalogue {
  readonly tree: CategoryTree;
  readonly events: SimEvent[];
  readonly markets: SimMarket[];
  readonly #eventById = new Map<string, SimEvent>();
  readonly #rootBySlug = new Map<string, SimEvent>();
  readonly #marketById = new Map<string, SimMarket>();
  readonly #marketByCondition = new Map<string, SimMarket>();
  readonly #token = new Map<string, TokenRef>();

  constructor(
    generated: GeneratedCatalogue,
    private readonly venueEvents: VenueEvents,
  ) {
    this.tree = generated.tree;
    this.events = generated.events;
    this.markets = generated.markets;
    for (const event of this.events) {
      this.#eventById.set(event.id, event);
      this.#rootBySlug.set(event.slug, event);
      for (const child of event.childSlugs) this.#rootBySlug.set(child, event);
    }
    for (const market of this.markets) this.#index(market);
  }

  /** A market created while the venue runs (a recurring event's next cycle), with its event's slugs. */
  addMarket(market: SimMarket, event: SimEvent, childSlug?: string): void {
    this.markets.push(market);
    event.marketIds.push(market.id);
    if (childSlug) {
      event.childSlugs.push(childSlug);
      this.#rootBySlug.set(childSlug, event);
    }
    this.#index(market);
  }

  slugTaken(slug: string): boolean {
    return this.#rootBySlug.has(slug);
  }

  #index(market: SimMarket): void {
    this.#marketById.set(market.id, market);
    this.#marketByCondition.set(market.conditionId, market);
    for (const outcome of market.outcomes) this.#token.set(outcome.tokenId, { market, outcomeIndex: outcome.index });
  }

  eventById(id: string): SimEvent | undefined {
    return this.#eventById.get(id);
  }

  /** Any slug of a group resolves to the group root. */
  groupRootBySlug(slug: string): SimEvent | undefined {
    return this.#rootBySlug.get(slug);
  }

  marketById(id: string): SimMarket | undefined {
    return this.#marketById.get(id);
  }

  marketByCondition(conditionId: string): SimMarket | undefined {
    return this.#marketByCondition.get(conditionId);
  }

  token(tokenId: string): TokenRef | undefined {
    return this.#token.get(tokenId);
  }

  eventOf(market: SimMarket): SimEvent {
    const event = this.#eventById.get(market.eventId);
    if (!event) throw new Error(`market ${market.id} has no event`);
    return event;
  }

  marketsOf(event: SimEvent): SimMarket[] {
    return event.marketIds.map((id) => this.#marketById.get(id)).filter((m): m is SimMarket => m !== undefined);
  }

  isAcceptingOrders(market: SimMarket): boolean {
    return market.state === 'ACTIVE' && market.haltedAtMs === undefined && market.archivedAtMs === undefined;
  }

  eventVolumeMicro(event: SimEvent): bigint {
    return this.marketsOf(event).reduce((sum, m) => sum + m.volumeMicro, 0n);
  }

  /** Halt stops placement until resumed (§3.2). */
  halt(conditionId: string, reason: string, atMs: number): void {
    const market = this.#requireMarket(conditionId);
    if (market.haltedAtMs !== undefined) return;
    market.haltedAtMs = atMs;
    market.haltedReason = reason;
    this.announce('market_halted', market, atMs, { reason });
  }

  resume(conditionId: string, atMs: number): void {
    const market = this.#requireMarket(conditionId);
    if (market.haltedAtMs === undefined) return;
    market.haltedAtMs = undefined;
    market.haltedReason = undefined;
    this.announce('market_resumed', market, atMs, {});
  }

  /** Publishes a `market_status` event (§6.2) about a market. */
  announce(kind: MarketStatusKind, market: SimMarket, atMs: number, detail: Record<string, unknown>): void {
    this.venueEvents.emit('market_status', {
      kind,
      conditionId: market.conditionId,
      marketId: market.id,
      eventId: market.eventId,
      atMs,
      detail,
    });
  }

  #requireMarket(conditionId: string): SimMarket {
    const market = this.#marketByCondition.get(conditionId);
    if (!market) throw new Error(`unknown condition ${conditionId}`);
    return market;
  }
}
