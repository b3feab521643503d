import type { VenueClient } from '../../api/client.ts';
import type { BusRecord } from '../../bus/record.ts';
import type { ConnectionBudget } from '../../streams/connection-budget.ts';
import { backoffStep } from '../../util/backoff.ts';
import type { Logger } from '../../util/log.ts';
import type { Secret } from '../../util/secret.ts';
import { nextAnchorMs } from './anchors.ts';
import {
  BOOK_BATCH_DEFAULTS,
  readSequence,
  Reseeder,
  type BookBatchLimits,
  type RestBook,
  type SnapshotReason,
  type TokenBooks,
  type ReseedOutcome,
  type ReseedTask,
} from '../books/index.ts';
import {
  CatalogueReader,
  inShard,
  type CaptureEvent,
  type CaptureMarket,
  type CatalogueRead,
  type Shard,
  type SkippedMarket,
} from './catalogue.ts';
import { ConnectionPlan } from './connection-plan.ts';
import { endOf, startOf, gapRecord, scopeOf, type FrameTime, type StreamMark } from '../coverage/index.ts';
import { qualityRecord, type JsonObject, type RecordSink, type Origin, type CaptureCounters } from '../frames/index.ts';
import { MarketConnection, type MarketConnectionOptions, type MarketOwner } from './market-connection.ts';
import { MarketFeed } from './market-feed.ts';
import { scoped } from '../../util/scoped-signal.ts';
import type { Clock } from '../../util/clock.ts';

export interface MarketCaptureOptions {
  client: VenueClient;
  /** ws(s)://…/trade/v1/market-stream */
  url: string;
  token: Secret | null;
  budget: ConnectionBudget;
  clock: Clock;
  counters: CaptureCounters;
  /** Where the records go (the publisher). */
  sink: RecordSink;
  mark: StreamMark;
  silenceMs: number;
  tokensPerConnection: number;
  shard?: Shard;
  catalogueRefreshMs: number;
  /** Anchor snapshots of every book this often (and at each UTC hour); 0: hours only. */
  anchorEveryMs: number;
  /** A resolved market stays subscribed this long (its last status frames still come). */
  dropGraceMs: number;
  reseedConcurrency: number;
  /** How book updates are gathered into `book_change` records (default BOOK_BATCH_DEFAULTS). */
  bookBatch?: BookBatchLimits;
  log?: Logger;
}

/** Retries of the first catalogue read: 1 s doubling up to 30 s. */
const CATALOGUE_RETRY = { firstMs: 1_000, maxMs: 30_000 };

/** Status kinds after which an event's markets may have changed: its detail is read again at once. */
const CATALOGUE_KINDS = new Set([
  'current_market_changed',
  'market_resolution_completed',
  'market_resolved',
  'payouts_resolved',
]);

/**
 * Market capture: follows the catalogue, spreads its markets over sockets, keeps a book per token,
 * re-seeds books from REST, writes anchor snapshots, and records what it did not cover.
 */
export class MarketCapture implements MarketOwner {
  readonly #feed: MarketFeed;
  readonly #reseeder: Reseeder;
  readonly #plan: ConnectionPlan;
  readonly #connections: MarketConnection[] = [];
  readonly #reader: CatalogueReader;
  readonly #markets = new Map<string, CaptureMarket>();
  readonly #finalSince = new Map<string, number>();
  readonly #unreadSince = new Map<string, bigint>();
  /** Listed markets left out, and the reason last written for each (market id → reason): one `not_captured` gap per
   * reason. */
  readonly #skipped = new Map<string, string>();
  /** Markets taken from a status frame before the catalogue listed them (condition → clock ms). */
  readonly #pinned = new Map<string, number>();
  /** Tokens found already trading: the gap from when they could have started to their acknowledgement. */
  readonly #late = new Map<string, bigint>();
  readonly #refreshing = new Set<string>();
  readonly #stopping = new AbortController();
  readonly #loops: Array<Promise<void>> = [];
  readonly #connectionOptions: MarketConnectionOptions;
  #previousReadUs: bigint | null = null;
  #paused = false;

  constructor(private readonly o: MarketCaptureOptions) {
    this.#feed = new MarketFeed({ sink: o.sink, clock: o.clock, batch: o.bookBatch });
    this.#plan = new ConnectionPlan(o.tokensPerConnection);
    this.#reader = new CatalogueReader({ client: o.client, clock: o.clock, shard: o.shard });
    const fetch = o.token
      ? async (tokenId: string, signal: AbortSignal): Promise<RestBook> => {
          const { value, raw } = await o.client.orders.orderbook(tokenId, signal);
          return {
            conditionId: value.condition_id ?? null,
            sequence: readSequence(value.sequence),
            asOf: value.as_of ?? null,
            bids: value.bids,
            asks: value.asks,
            raw: JSON.stringify(raw),
          };
        }
      : null;
    this.#reseeder = new Reseeder(
      fetch,
      (task, outcome) => this.#reseeded(task, outcome),
      o.clock,
      o.reseedConcurrency,
    );
    this.#connectionOptions = {
      url: o.url,
      token: o.token,
      budget: o.budget,
      clock: o.clock,
      silenceMs: o.silenceMs,
      log: o.log,
      counters: o.counters,
      feed: this.#feed,
      owner: this,
    };
  }

  /** Reads the catalogue (retrying until it answers), subscribes, and starts the schedules. */
  async start(): Promise<void> {
    const signal = this.#stopping.signal;
    for (let attempt = 0; ; attempt++) {
      const readUs = this.o.clock.epochMicros();
      try {
        const read = await scoped(signal, (s) => this.#reader.read(s));
        this.#noteCursorLoop(read);
        this.#apply(read.events, true);
        this.#noteUnread(read.unread, readUs);
        this.#previousReadUs = readUs;
        break;
      } catch (err) {
        if (signal.aborted) return;
        this.o.log?.warn({ err, attempt }, 'catalogue read failed; retrying');
        await this.o.clock.sleep(backoffStep(attempt + 1, CATALOGUE_RETRY), signal).catch(() => undefined);
        if (signal.aborted) return;
      }
    }
    const batchDelayMs = (this.o.bookBatch ?? BOOK_BATCH_DEFAULTS).maxDelayMs;
    this.#loops.push(
      this.#every(this.o.catalogueRefreshMs, () => this.#refresh()),
      this.#anchors(),
      this.#every(Math.max(1, batchDelayMs / 4), async () => this.#feed.flushDue()),
    );
  }

  async stop(): Promise<void> {
    this.#stopping.abort(new Error('capture stopping'));
    this.#reseeder.stop();
    await Promise.all(this.#connections.map((c) => c.stop()));
    await Promise.all(this.#loops);
    this.#feed.flush();
  }

  /** Hands every held book update to the bus now (drain, stop). */
  flush(): void {
    this.#feed.flush();
  }

  /** When the oldest book update not yet handed to the bus was made (µs); null when none is held. */
  heldSinceUs(): bigint | null {
    return this.#feed.heldSinceUs();
  }

  /** Every token's book (tests, `tapehouse book`, figures). */
  get books(): TokenBooks {
    return this.#feed.books;
  }

  /** Back-pressure: every socket stops reading until `resume` (new sockets start paused). */
  pause(): void {
    this.#paused = true;
    for (const c of this.#connections) c.pause();
  }

  resume(): void {
    this.#paused = false;
    for (const c of this.#connections) c.resume();
  }

  get connections(): readonly MarketConnection[] {
    return this.#connections;
  }

  get reseedsPending(): number {
    return this.#reseeder.pending;
  }

  get rest429(): number {
    return this.#reseeder.rest429;
  }

  get subscribedTokens(): number {
    let n = 0;
    for (const m of this.#markets.values()) n += m.tokenIds.length;
    return n;
  }

  /** Scopes not covered now: sockets with subjects that are not covering them, and markets awaiting their first
   * acknowledgement. */
  get openGaps(): number {
    return (
      this.#connections.filter((c) => (c.tokens.size > 0 || c.events.size > 0) && !c.covered).length +
      (this.#late.size > 0 ? 1 : 0)
    );
  }

  /** Up to when every subject is known covered; null while some socket has never covered its subjects. */
  coveredThroughUs(): bigint | null {
    let through: bigint | null = this.o.clock.epochMicros();
    for (const c of this.#connections) {
      if (c.tokens.size === 0 && c.events.size === 0) continue;
      const own = c.coveredThroughUs();
      if (own === null) return null;
      if (own < through) through = own;
    }
    for (const since of this.#late.values()) if (since < through) through = since;
    return through;
  }

  #subscribed(tokenId: string): boolean {
    return this.#connections.some((c) => c.tokens.has(tokenId));
  }

  async #every(ms: number, run: () => Promise<void>): Promise<void> {
    const signal = this.#stopping.signal;
    while (!signal.aborted) {
      try {
        await this.o.clock.sleep(ms, signal);
      } catch {
        return;
      }
      await run();
    }
  }

  async #refresh(): Promise<void> {
    const readUs = this.o.clock.epochMicros();
    try {
      const read = await scoped(this.#stopping.signal, (s) => this.#reader.read(s));
      this.#noteCursorLoop(read);
      this.#apply(read.events, false);
      this.#noteUnread(read.unread, readUs);
      this.#previousReadUs = readUs;
    } catch (err) {
      if (!this.#stopping.signal.aborted)
        this.o.log?.warn({ err }, 'catalogue refresh failed; keeping the current subscriptions');
    }
  }

  /** Brings the subscriptions in line with the catalogue. */
  #apply(events: ReadonlyMap<string, CaptureEvent>, initial: boolean): void {
    const nowMs = this.o.clock.now();
    const desired = new Map<string, CaptureMarket>();
    const skipped: SkippedMarket[] = [];
    for (const event of events.values()) {
      skipped.push(...event.skipped);
      for (const m of event.markets) {
        if (!m.final) {
          this.#finalSince.delete(m.conditionId);
          desired.set(m.conditionId, m);
          continue;
        }
        // Resolved before capture took it: nothing left to capture. Taken: kept a while for its last status frames.
        if (!this.#markets.has(m.conditionId)) {
          skipped.push({ ...m, reason: 'resolved or voided before capture took it (final: no trade can follow)' });
          continue;
        }
        const since = this.#finalSince.get(m.conditionId) ?? nowMs;
        this.#finalSince.set(m.conditionId, since);
        if (nowMs - since < this.o.dropGraceMs) desired.set(m.conditionId, m);
      }
    }
    for (const [conditionId, market] of this.#markets) {
      if (desired.has(conditionId)) continue;
      const pinnedAt = this.#pinned.get(conditionId);
      if (pinnedAt !== undefined && (this.#reader.readAtMs(market.eventId) ?? -1) < pinnedAt) continue;
      this.#drop(market, this.#finalSince.has(conditionId) ? 'market resolved' : 'market left the catalogue');
    }
    for (const market of desired.values()) {
      this.#pinned.delete(market.conditionId);
      this.#skipped.delete(market.marketId);
      if (this.#markets.has(market.conditionId)) {
        this.#markets.set(market.conditionId, market);
        continue;
      }
      // A market that may have traded was uncovered since it was last seen without it: the event's
      // previous detail (or the previous listing); an event unread until now, since then.
      const event = events.get(market.eventId);
      const since = initial || !market.mayHaveTraded ? null : (event?.previousReadUs ?? this.#previousReadUs);
      this.#subscribeMarket(market, this.#unreadSince.get(market.eventId) ?? since);
    }
    for (const eventId of events.keys()) this.#unreadSince.delete(eventId);
    this.#noteSkipped(skipped.filter((m) => !(m.conditionId !== null && this.#markets.has(m.conditionId))));
  }

  /** A `not_captured` gap (of no length) for each listed market left out, once per reason. */
  #noteSkipped(skipped: readonly SkippedMarket[]): void {
    const byReason = new Map<string, SkippedMarket[]>();
    for (const m of skipped) {
      if (this.#skipped.get(m.marketId) === m.reason) continue;
      this.#skipped.set(m.marketId, m.reason);
      (byReason.get(m.reason) ?? byReason.set(m.reason, []).get(m.reason)!).push(m);
    }
    if (byReason.size === 0) return;
    const nowUs = this.o.clock.epochMicros();
    const origin: Origin = { connectionId: 'catalogue', frameNo: 0, receivedAtUs: nowUs };
    const records: BusRecord[] = [];
    for (const [reason, markets] of byReason) {
      const tokens = new Map<string, string>();
      for (const m of markets) for (const t of m.tokenIds) tokens.set(t, m.conditionId ?? '');
      const scope = scopeOf([], tokens, []);
      // Markets without a condition or tokens are named by their event.
      scope.event_ids = [
        ...new Set(markets.filter((m) => m.conditionId === null || m.tokenIds.length === 0).map((m) => m.eventId)),
      ];
      const detail = `${reason}; markets ${markets.map((m) => m.marketId).join(', ')}`;
      records.push(
        gapRecord(
          { stream: 'market', reason: 'not_captured', detail, scope, startUs: nowUs, endUs: null, recovery: 'none' },
          origin,
        ),
      );
    }
    this.#feed.write(records);
  }

  /** The listing stopped at a cursor the venue handed out twice: a data-quality record (the next read tries again). */
  #noteCursorLoop(read: CatalogueRead): void {
    if (!read.cursorLoop) return;
    this.o.log?.warn(
      { endpoint: read.cursorLoop.endpoint },
      'catalogue listing stopped at a repeated cursor; keeping what it had read',
    );
    const origin: Origin = { connectionId: 'catalogue', frameNo: 0, receivedAtUs: this.o.clock.epochMicros() };
    this.#feed.write([
      qualityRecord({ problem: 'cursor_loop', detail: read.cursorLoop.message, stream: 'market' }, origin, null, null),
    ]);
  }

  /**
   * Events the catalogue lists whose detail could not be read (a venue error): since when. Their
   * markets are taken late, from then, once read; the restart gap of a new run does not cover them.
   */
  #noteUnread(eventIds: readonly string[], readUs: bigint): void {
    const listed = new Set(eventIds);
    for (const id of this.#unreadSince.keys()) if (!listed.has(id)) this.#unreadSince.delete(id);
    for (const id of eventIds) if (!this.#unreadSince.has(id)) this.#unreadSince.set(id, readUs);
  }

  /** Subscribes a market; `lateSinceUs`: it already trades, uncovered since then. */
  #subscribeMarket(market: CaptureMarket, lateSinceUs: bigint | null): void {
    this.#markets.set(market.conditionId, market);
    const { connection, eventIsNew } = this.#plan.place(market.eventId, market.conditionId, market.tokenIds.length);
    if (lateSinceUs !== null) for (const t of market.tokenIds) this.#late.set(t, lateSinceUs);
    const tokens = new Map(market.tokenIds.map((t) => [t, market.conditionId]));
    this.#connection(connection).add(tokens, eventIsNew ? [market.eventId] : []);
  }

  #drop(market: CaptureMarket, detail: string): void {
    this.#markets.delete(market.conditionId);
    this.#finalSince.delete(market.conditionId);
    this.#pinned.delete(market.conditionId);
    const { connection, eventGoneFrom } = this.#plan.release(
      market.eventId,
      market.conditionId,
      market.tokenIds.length,
    );
    if (connection !== undefined)
      this.#connections[connection]?.remove(
        market.tokenIds,
        eventGoneFrom === connection ? [market.eventId] : [],
        detail,
      );
    if (eventGoneFrom !== undefined && eventGoneFrom !== connection)
      this.#connections[eventGoneFrom]?.remove([], [market.eventId], detail);
    for (const t of market.tokenIds) {
      this.#feed.forget(t);
      this.#reseeder.cancel(t);
      this.#late.delete(t);
    }
  }

  #connection(index: number): MarketConnection {
    let connection = this.#connections[index];
    if (!connection) {
      connection = new MarketConnection(this.#connectionOptions, `market-${index + 1}`);
      this.#connections[index] = connection;
      if (this.#paused) connection.pause();
      if (!this.#stopping.signal.aborted) connection.start();
    }
    return connection;
  }

  #reseeded(task: ReseedTask, outcome: ReseedOutcome): void {
    if (!this.#subscribed(task.tokenId)) return;
    const nowUs = this.o.clock.epochMicros();
    const origin: Origin = { ...task.origin, receivedAtUs: nowUs };
    if (outcome.ok) {
      this.o.counters.reseeds += 1;
      this.#feed.reseeded(task.tokenId, outcome.book, task.reason, origin);
    } else if (outcome.unavailable) {
      this.#feed.awaitStreamBook(task.tokenId, task.reason);
    } else {
      this.o.counters.reseedFailures += 1;
      const conditionId = this.#conditionOf(task.tokenId);
      const failed = qualityRecord(
        {
          problem: 'reseed_failed',
          detail: `REST order book not read: ${(outcome.error as Error).message}; the streamed ladder is written instead`,
          stream: 'market',
          tokenId: task.tokenId,
          conditionId,
        },
        origin,
        null,
        null,
      );
      this.#feed.snapshot([task.tokenId], task.reason, nowUs, [failed]);
    }
  }

  #conditionOf(tokenId: string): string | null {
    for (const c of this.#connections) {
      const condition = c.tokens.get(tokenId);
      if (condition !== undefined) return condition;
    }
    return null;
  }

  // ---- what the connections tell (MarketOwner) ----

  reseed(tokens: readonly string[], reason: SnapshotReason, origin: Origin): void {
    this.#reseeder.request(
      tokens.filter((t) => this.#subscribed(t)),
      reason,
      origin,
    );
  }

  added(tokens: readonly string[], stamp: FrameTime, origin: Origin): void {
    this.#closeLate(tokens, stamp, origin);
  }

  covered(connection: MarketConnection, stamp: FrameTime, origin: Origin): void {
    this.#closeLate([...connection.tokens.keys()], stamp, origin);
    const waiting = this.#connections.some((c) => (c.tokens.size > 0 || c.events.size > 0) && !c.coverage.everCovered);
    if (waiting) return;
    const gap = this.o.mark.resumed(stamp, origin);
    if (gap) this.#feed.write([gap]);
  }

  /** Tokens that were already trading when subscribed are covered now: their gap. */
  #closeLate(tokens: readonly string[], stamp: FrameTime, origin: Origin): void {
    const late = new Map<bigint, Map<string, string>>();
    for (const t of tokens) {
      const since = this.#late.get(t);
      if (since === undefined) continue;
      this.#late.delete(t);
      if (!late.has(since)) late.set(since, new Map());
      late.get(since)!.set(t, this.#conditionOf(t) ?? '');
    }
    for (const [since, group] of late) {
      const scope = scopeOf(['orderbook', 'best_quote', 'trades', 'market_status'], group, []);
      this.#feed.write([
        gapRecord(
          {
            stream: 'market',
            reason: 'subscribed_late',
            detail: 'the market may have traded before capture subscribed it',
            scope,
            startUs: since,
            endUs: endOf(stamp),
            recovery: 'books_reseeded',
          },
          origin,
        ),
      ]);
    }
  }

  statusSeen(data: JsonObject, stamp: FrameTime): void {
    const kind = typeof data.kind === 'string' ? data.kind : '';
    const eventId = typeof data.event_id === 'string' ? data.event_id : null;
    if (!eventId || !CATALOGUE_KINDS.has(kind)) return;
    if (kind === 'current_market_changed') this.#subscribeNewCycle(data, eventId, stamp);
    void this.#refreshEvent(eventId);
  }

  /** A recurring event's new cycle that capture does not cover yet (it was not provisioned in the catalogue): take it
   * now. */
  #subscribeNewCycle(data: JsonObject, eventId: string, stamp: FrameTime): void {
    const conditionId = typeof data.condition_id === 'string' ? data.condition_id : null;
    if (!conditionId || this.#markets.has(conditionId) || !inShard(eventId, this.o.shard)) return;
    const outcomes = Array.isArray(data.outcomes) ? (data.outcomes as JsonObject[]) : [];
    const tokenIds = outcomes.map((o) => o.token_id).filter((t): t is string => typeof t === 'string');
    if (tokenIds.length === 0) return;
    this.#pinned.set(conditionId, this.o.clock.now());
    const marketId = typeof data.market_id === 'string' ? data.market_id : '';
    this.#subscribeMarket(
      { conditionId, marketId, eventId, tokenIds, final: false, mayHaveTraded: true },
      startOf(stamp),
    );
  }

  async #refreshEvent(eventId: string): Promise<void> {
    if (this.#refreshing.has(eventId)) return;
    this.#refreshing.add(eventId);
    try {
      await scoped(this.#stopping.signal, (s) => this.#reader.readEvent(eventId, undefined, undefined, s));
      this.#apply(this.#reader.events(), false);
    } catch (err) {
      if (!this.#stopping.signal.aborted)
        this.o.log?.warn({ err, eventId }, 'event detail read failed; the next catalogue refresh tries again');
    } finally {
      this.#refreshing.delete(eventId);
    }
  }

  /** Anchor snapshots of every book, on the schedule of `nextAnchorMs`. */
  async #anchors(): Promise<void> {
    const signal = this.#stopping.signal;
    while (!signal.aborted) {
      const nowMs = Number(this.o.clock.epochMicros() / 1000n);
      const next = nextAnchorMs(nowMs, this.o.anchorEveryMs);
      try {
        await this.o.clock.sleep(next.atMs - nowMs, signal);
      } catch {
        return;
      }
      this.#feed.snapshot(this.#feed.books.tokens(), next.hour ? 'hour' : 'anchor', this.o.clock.epochMicros());
    }
  }
}
