import { NotFoundError } from '../api/errors.ts';
import type { VenueClient } from '../api/client.ts';
import type { EventDetail, EventListItem, Market } from '../api/schemas/index.ts';

/**
 * What market capture subscribes, read from the catalogue (events list, then event detail): per
 * event, its markets that trade, will trade or still await resolution. A market leaves once it is
 * resolved (or voided) or archived; a recurring event contributes its live and provisioned cycles
 * (the next cycle is covered before it opens, so a roll loses nothing), not its long backlog of
 * announced ones. Announced (DRAFT) markets of other events are taken too: the venue may open them
 * without a status frame.
 */

export interface CaptureMarket {
  conditionId: string;
  marketId: string;
  eventId: string;
  tokenIds: string[];
  /** Resolved or voided: kept a little longer (status frames still arrive), then dropped. */
  final: boolean;
  /** Trading now (state ACTIVE, or a state we do not know). */
  trading: boolean;
}

export interface CaptureEvent {
  eventId: string;
  slug: string;
  markets: CaptureMarket[];
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
const NOT_TRADING = new Set(['DRAFT', 'PROVISIONED', 'CLOSED', 'RESOLVED']);

/** The markets of an event detail that capture should cover. */
export function capturedMarkets(detail: EventDetail): CaptureMarket[] {
  const recurring = detail.event_type === 'RECURRING_PROPOSITION';
  const markets = new Map<string, Market>();
  for (const m of detail.markets ?? []) markets.set(m.id, m);
  for (const m of detail.main_market_group?.markets ?? []) if (typeof m !== 'string' && !markets.has(m.id)) markets.set(m.id, m);
  const out: CaptureMarket[] = [];
  for (const m of markets.values()) {
    const tokenIds = (m.outcomes ?? []).map((o) => o.token_id).filter((t) => t !== '');
    if (!m.condition_id || tokenIds.length === 0 || m.archived_at) continue;
    if (recurring && m.state === 'DRAFT') continue;
    const final = FINAL_RESOLUTIONS.has(String(m.resolution_status ?? '')) || m.state === 'RESOLVED';
    out.push({ conditionId: m.condition_id, marketId: m.id, eventId: detail.id, tokenIds, final, trading: !final && !NOT_TRADING.has(String(m.state ?? '')) });
  }
  return out;
}

/** The list fields whose change means the event's markets may have changed. */
function fingerprint(e: EventListItem): string {
  return JSON.stringify([e.state, e.resolution_status, e.market_count, e.main_market_id, e.is_accepting_orders, e.end_time]);
}

interface Known {
  slug: string;
  fingerprint: string;
  event: CaptureEvent;
  readAtMs: number;
}

export interface CatalogueRead {
  events: Map<string, CaptureEvent>;
  /** Every detail asked for was read (a failed one keeps its last answer). */
  complete: boolean;
  /** Events listed whose detail has never been read: their markets are not known, so not covered. */
  unread: string[];
}

/**
 * Reads the catalogue incrementally: the whole events list each time (cheap, 100 per page), an
 * event's detail only when it is new, its list entry changed, or its last detail is older than
 * `detailMaxAgeMs`. Events of other shards are skipped before any detail is read.
 */
export class CatalogueReader {
  readonly #known = new Map<string, Known>();

  constructor(
    private readonly client: VenueClient,
    private readonly now: () => number,
    private readonly shard?: Shard,
    private readonly detailMaxAgeMs = 10 * 60_000,
  ) {}

  async read(signal?: AbortSignal): Promise<CatalogueRead> {
    const listed = new Map<string, EventListItem>();
    for await (const page of this.client.catalogue.eventPages({ limit: 100 }, signal)) {
      for (const e of page.value.events) if (inShard(e.id, this.shard)) listed.set(e.id, e);
    }
    for (const id of this.#known.keys()) if (!listed.has(id)) this.#known.delete(id);
    let complete = true;
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
    return { events: this.events(), complete, unread };
  }

  /** Reads one event's detail now (a recurring event rolled); null when it is gone (archived). */
  async readEvent(eventId: string, slug = this.#known.get(eventId)?.slug ?? eventId, print = this.#known.get(eventId)?.fingerprint ?? '', signal?: AbortSignal): Promise<CaptureEvent | null> {
    try {
      const { value } = await this.client.catalogue.event(slug, signal);
      const event: CaptureEvent = { eventId, slug: value.slug ?? slug, markets: capturedMarkets(value) };
      this.#known.set(eventId, { slug: event.slug, fingerprint: print, event, readAtMs: this.now() });
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
