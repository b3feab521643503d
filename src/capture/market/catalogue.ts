import { NotFoundError } from '../../api/errors.ts';
import { CursorLoopError } from '../../api/paging.ts';
import type { VenueClient } from '../../api/client.ts';
import type { EventDetail, EventListItem, Market } from '../../api/schemas/index.ts';
import type { Clock } from '../../util/clock.ts';

/**
 * What market capture subscribes, read from the catalogue (events list, then event detail): what
 * trades, not what a state name says (§2.9 shows only DRAFT and PROVISIONED, and the live cycle of
 * a recurring event reads DRAFT while it accepts orders). A listed market is taken when it accepts
 * orders, has traded or quoted (volume, a best bid or ask, liquidity), or is a recurring event's
 * next cycle (PROVISIONED: covered before it opens, so a roll loses nothing) or any other market
 * not yet final, whatever its `state` string. Left out, each with a `not_captured` gap naming why:
 * a recurring event's announced cycles that neither accept orders nor ever traded or quoted (its
 * long backlog: the next one is taken as PROVISIONED, and a cycle that opens is taken, from the
 * previous catalogue read, on its status frame or the next read); archived markets; resolved or
 * voided ones (final, §3.2) once their last status frames have had time to arrive; markets without
 * a condition or token ids (nothing to subscribe).
 */

export interface CaptureMarket {
  conditionId: string;
  marketId: string;
  eventId: string;
  tokenIds: string[];
  /** Resolved or voided: kept a little longer (status frames still arrive), then dropped. */
  final: boolean;
  /**
   * Could have traded before capture took it: it accepts orders, has traded or quoted, or names a
   * state other than the two the interface documents as not trading yet (DRAFT, PROVISIONED).
   */
  mayHaveTraded: boolean;
}

/** A listed market capture leaves out, and why (a `not_captured` gap says so). */
export interface SkippedMarket {
  eventId: string;
  marketId: string;
  conditionId: string | null;
  tokenIds: string[];
  reason: string;
}

export interface CaptureEvent {
  eventId: string;
  slug: string;
  markets: CaptureMarket[];
  skipped: SkippedMarket[];
  /** When the detail before this one was read (µs): a market new in this one may have traded since. Null on the first.
   */
  previousReadUs: bigint | null;
}

export interface Shard {
  /** 0-based, as `--shard i/n` takes it (0 ≤ i < n). */
  index: number;
  count: number;
}

/** FNV-1a of the event id: a shard takes whole events, so event-scoped status frames stay with their markets. */
export function inShard(eventId: string, shard: Shard | undefined): boolean {
  if (!shard || shard.count <= 1) return true;
  let hash = 0x811c9dc5;
  for (let i = 0; i < eventId.length; i++) {
    hash ^= eventId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shard.count === shard.index;
}

const FINAL_RESOLUTIONS = new Set(['RESOLVED', 'VOID']);
/** The interface's two documented states; either, with no orders accepted and no trade or quote, has not traded. */
const NOT_YET_TRADING = new Set(['DRAFT', 'PROVISIONED']);
const upper = (value: unknown): string => (typeof value === 'string' ? value.toUpperCase() : '');

/** Has traded or shows a quote: volume, a best bid or ask on an outcome, resting liquidity. */
function tradedOrQuoted(m: Market): boolean {
  if ((m.volume_micro ?? 0n) > 0n || (m.volume_24h_micro ?? 0n) > 0n) return true;
  if ((m.outcomes ?? []).some((o) => o.best_bid_micro !== undefined || o.best_ask_micro !== undefined)) return true;
  const liquidity = Number(m.liquidity ?? '0');
  return Number.isFinite(liquidity) && liquidity > 0;
}

/** The markets of an event detail that capture should cover, and those it leaves out with why. */
export function capturedMarkets(detail: EventDetail): { captured: CaptureMarket[]; skipped: SkippedMarket[] } {
  const recurring = detail.event_type === 'RECURRING_PROPOSITION';
  const markets = new Map<string, Market>();
  for (const m of detail.markets ?? []) markets.set(m.id, m);
  for (const m of detail.main_market_group?.markets ?? [])
    if (typeof m !== 'string' && !markets.has(m.id)) markets.set(m.id, m);
  const captured: CaptureMarket[] = [];
  const skipped: SkippedMarket[] = [];
  for (const m of markets.values()) {
    const tokenIds = (m.outcomes ?? []).map((o) => o.token_id).filter((t) => t !== '');
    const skip = (reason: string): void =>
      void skipped.push({ eventId: detail.id, marketId: m.id, conditionId: m.condition_id ?? null, tokenIds, reason });
    if (!m.condition_id || tokenIds.length === 0) {
      skip('no condition_id or token ids: nothing to subscribe');
      continue;
    }
    const accepting = m.is_accepting_orders === true;
    const state = upper(m.state);
    if (!accepting && m.archived_at) {
      skip(`archived at ${m.archived_at}`);
      continue;
    }
    const final = !accepting && (FINAL_RESOLUTIONS.has(upper(m.resolution_status)) || state === 'RESOLVED');
    if (!final && !accepting && recurring && state !== 'PROVISIONED' && !tradedOrQuoted(m)) {
      skip(
        `an announced cycle of a recurring event (state ${JSON.stringify(m.state ?? null)}): not accepting orders, never traded or quoted`,
      );
      continue;
    }
    const mayHaveTraded = accepting || tradedOrQuoted(m) || !NOT_YET_TRADING.has(state);
    captured.push({ conditionId: m.condition_id, marketId: m.id, eventId: detail.id, tokenIds, final, mayHaveTraded });
  }
  return { captured, skipped };
}

/** The list fields whose change means the event's markets may have changed. */
function fingerprint(e: EventListItem): string {
  return JSON.stringify([
    e.state,
    e.resolution_status,
    e.market_count,
    e.main_market_id,
    e.is_accepting_orders,
    e.end_time,
  ]);
}

interface Known {
  slug: string;
  fingerprint: string;
  event: CaptureEvent;
  readAtMs: number;
  readAtUs: bigint;
}

export interface CatalogueRead {
  events: Map<string, CaptureEvent>;
  /** Every detail asked for was read (a failed one keeps its last answer). */
  complete: boolean;
  /** Events listed whose detail has never been read: their markets are not known, so not covered. */
  unread: string[];
  /** The venue handed a list cursor out twice: the listing stopped there (events not seen are kept as they were). */
  cursorLoop?: CursorLoopError;
}

/**
 * Reads the catalogue incrementally: the whole events list each time (cheap, 100 per page), an
 * event's detail only when it is new, its list entry changed, or its last detail is older than
 * `detailMaxAgeMs`. Events of other shards are skipped before any detail is read.
 */
export interface CatalogueReaderOptions {
  client: VenueClient;
  /** Its `now` times detail reads; its wall time stamps when a market was last seen. */
  clock: Clock;
  /** Capture a share of the events (`--shard i/n`). */
  shard?: Shard;
  /** An event's detail is read again at least this often (default 10 min). */
  detailMaxAgeMs?: number;
}

export class CatalogueReader {
  readonly #known = new Map<string, Known>();

  private readonly client: VenueClient;
  private readonly shard: Shard | undefined;
  private readonly detailMaxAgeMs: number;
  readonly #clock: Clock;

  constructor(options: CatalogueReaderOptions) {
    this.client = options.client;
    this.#clock = options.clock;
    this.shard = options.shard;
    this.detailMaxAgeMs = options.detailMaxAgeMs ?? 10 * 60_000;
  }

  private now(): number {
    return this.#clock.now();
  }

  /** Wall time in µs (the records' clock). */
  private nowUs(): bigint {
    return this.#clock.epochMicros();
  }

  async read(signal?: AbortSignal): Promise<CatalogueRead> {
    const listed = new Map<string, EventListItem>();
    let cursorLoop: CursorLoopError | undefined;
    try {
      for await (const page of this.client.catalogue.eventPages({ limit: 100 }, signal)) {
        for (const e of page.value.events) if (inShard(e.id, this.shard)) listed.set(e.id, e);
      }
    } catch (err) {
      if (!(err instanceof CursorLoopError)) throw err;
      cursorLoop = err;
    }
    // A listing cut short by a cursor loop says nothing of the events it did not reach.
    if (!cursorLoop) for (const id of this.#known.keys()) if (!listed.has(id)) this.#known.delete(id);
    let complete = cursorLoop === undefined;
    const unread: string[] = [];
    for (const [id, item] of listed) {
      const known = this.#known.get(id);
      const print = fingerprint(item);
      if (known && known.fingerprint === print && this.now() - known.readAtMs < this.detailMaxAgeMs) continue;
      try {
        await this.readEvent(id, item.slug ?? known?.slug ?? id, print, signal);
      } catch (err) {
        if (signal?.aborted) throw err;
        complete = false;
        if (!this.#known.has(id)) unread.push(id);
      }
    }
    return { events: this.events(), complete, unread, ...(cursorLoop ? { cursorLoop } : {}) };
  }

  /** Reads one event's detail now (a recurring event rolled); null when it is gone (archived). */
  async readEvent(
    eventId: string,
    slug = this.#known.get(eventId)?.slug ?? eventId,
    print = this.#known.get(eventId)?.fingerprint ?? '',
    signal?: AbortSignal,
  ): Promise<CaptureEvent | null> {
    try {
      const { value } = await this.client.catalogue.event(slug, signal);
      const { captured, skipped } = capturedMarkets(value);
      const readAtUs = this.nowUs();
      const event: CaptureEvent = {
        eventId,
        slug: value.slug ?? slug,
        markets: captured,
        skipped,
        previousReadUs: this.#known.get(eventId)?.readAtUs ?? null,
      };
      this.#known.set(eventId, { slug: event.slug, fingerprint: print, event, readAtMs: this.now(), readAtUs });
      return event;
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      this.#known.delete(eventId);
      return null;
    }
  }

  /** When the event's detail was last read (clock ms), if ever. */
  readAtMs(eventId: string): number | undefined {
    return this.#known.get(eventId)?.readAtMs;
  }

  events(): Map<string, CaptureEvent> {
    const out = new Map<string, CaptureEvent>();
    for (const [id, known] of this.#known) out.set(id, known.event);
    return out;
  }
}
