import { randomUUID } from 'node:crypto';
import type { Json } from '../../bus/record.ts';
import type { JsonObject } from '../frames/index.ts';

/**
 * The portfolio stream's positions as changes. Every `portfolio.sync` event carries the account's
 * whole positions list (§6.4) — 140 to 170 positions about twice a second on the simulator at
 * rate 20, most of them the same as the event before. So a chain of records: an ANCHOR (the event
 * whole, raw frame kept) when a connection starts, after any frame missed, after an unusable read,
 * when the venue's `as_of` goes back or the stream id changes, and at least every `anchorEveryUs`;
 * in between, each event's CHANGES: the positions that differ from the event before (whole, every
 * field the venue sent, so nothing unknown is lost) and the tokens no longer listed. The mapping
 * (src/load/mapping/kinds/portfolio-sync.ts) stores a positions row per change; `positions_latest`
 * and `positions_as_of` put a read back together from its chain (sql/0110).
 *
 * The payload keeps the event's fields; `positions.positions` holds the changes only, and
 * `position_chain` says which chain and what the read holds: `{id, anchor, anchor_as_of,
 * position_count, removed}`. A change record has no raw frame: its payload is all it adds to its
 * chain (the loader keeps that JSON in `_raw` instead).
 */
export interface ChainedSync {
  payload: Json;
  raw: string | null;
}

interface Chain {
  id: string;
  streamId: unknown;
  anchorAsOf: string;
  anchoredAtUs: bigint;
  lastAsOfMs: number;
  /** Each position of the last event, as JSON text, by token. */
  last: Map<string, string>;
}

/** At least one anchor a minute: a lost change record (a bus gap) misleads for a minute at most, and an as-of read
 * replays at most a minute of changes. */
export const ANCHOR_EVERY_US = 60_000_000n;

export class PositionChain {
  #chain: Chain | undefined;

  constructor(
    private readonly anchorEveryUs = ANCHOR_EVERY_US,
    private readonly newId: () => string = randomUUID,
  ) {}

  /** The next event starts a new chain (a new connection, frames missed). */
  reset(): void {
    this.#chain = undefined;
  }

  /**
   * The record to publish for an event (`payload`: the event's data as a payload). A read that is
   * not usable, or not of the expected shape, goes whole and as before (no chain): the mapping
   * decides what to make of it, and the next event anchors a new chain.
   */
  shape(payload: JsonObject, raw: string, receivedAtUs: bigint): ChainedSync {
    const response = payload.positions as JsonObject;
    const listed = response.positions;
    const asOf = response.as_of;
    const asOfMs = typeof asOf === 'string' ? Date.parse(asOf) : NaN;
    const unavailable = response.unavailable_exchanges;
    const usable =
      Array.isArray(listed) && !Number.isNaN(asOfMs) && !(Array.isArray(unavailable) && unavailable.length > 0);
    const current = usable ? byToken(listed) : undefined;
    if (!current || typeof asOf !== 'string') {
      this.reset();
      return { payload: payload as Json, raw };
    }
    const chain = this.#chain;
    if (
      !chain ||
      chain.streamId !== payload.stream_id ||
      asOfMs < chain.lastAsOfMs ||
      receivedAtUs - chain.anchoredAtUs >= this.anchorEveryUs
    ) {
      const id = this.newId();
      this.#chain = {
        id,
        streamId: payload.stream_id,
        anchorAsOf: asOf,
        anchoredAtUs: receivedAtUs,
        lastAsOfMs: asOfMs,
        last: current.text,
      };
      return {
        payload: {
          ...payload,
          position_chain: { id, anchor: true, anchor_as_of: asOf, position_count: current.text.size, removed: [] },
        } as Json,
        raw,
      };
    }
    const changed = current.positions.filter((_, i) => chain.last.get(current.tokens[i]!) !== current.texts[i]);
    const removed = [...chain.last.keys()].filter((token) => !current.text.has(token));
    chain.last = current.text;
    chain.lastAsOfMs = asOfMs;
    const positions = { ...response, positions: changed };
    const link = {
      id: chain.id,
      anchor: false,
      anchor_as_of: chain.anchorAsOf,
      position_count: current.text.size,
      removed,
    };
    return { payload: { ...payload, positions, position_chain: link } as Json, raw: null };
  }
}

/** The positions by token, or undefined when one has no token id or a token is listed twice (then the read goes whole).
 */
function byToken(
  listed: unknown[],
): { positions: unknown[]; tokens: string[]; texts: string[]; text: Map<string, string> } | undefined {
  const text = new Map<string, string>();
  const tokens: string[] = [];
  const texts: string[] = [];
  for (const position of listed) {
    const token = typeof position === 'object' && position !== null ? (position as JsonObject).token_id : undefined;
    if (typeof token !== 'string' || text.has(token)) return undefined;
    const json = JSON.stringify(position);
    text.set(token, json);
    tokens.push(token);
    texts.push(json);
  }
  return { positions: listed, tokens, texts, text };
}
