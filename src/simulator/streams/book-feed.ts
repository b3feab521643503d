import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Exchange } from '../engine/exchange.ts';
import type { BookLevel, VenueEvents } from '../events.ts';

export interface LevelChange {
  side: 'bid' | 'ask';
  priceMicro: bigint;
  /** The level's new size; 0 removes it. */
  sharesMicro: bigint;
}

/** One token's book after a change: the full ladder, what changed since the last one, and whether the top moved. */
export interface BookUpdate {
  tokenId: string;
  conditionId: string;
  marketId: string;
  eventId: string;
  sequence: number;
  atMs: number;
  bids: BookLevel[];
  asks: BookLevel[];
  changes: LevelChange[];
  topChanged: boolean;
}

interface Ladder {
  bids: BookLevel[];
  asks: BookLevel[];
}

function diffSide(side: 'bid' | 'ask', before: BookLevel[], after: BookLevel[]): LevelChange[] {
  const old = new Map(before.map((l) => [l.priceMicro, l.sharesMicro]));
  const out: LevelChange[] = [];
  for (const l of after) {
    if (old.get(l.priceMicro) !== l.sharesMicro)
      out.push({ side, priceMicro: l.priceMicro, sharesMicro: l.sharesMicro });
    old.delete(l.priceMicro);
  }
  for (const price of old.keys()) out.push({ side, priceMicro: price, sharesMicro: 0n });
  // Best first, like the ladder.
  return out.sort((a, b) =>
    side === 'bid' ? Number(b.priceMicro - a.priceMicro) : Number(a.priceMicro - b.priceMicro),
  );
}

/**
 * Turns the engine's book events into full ladders and level changes, for the tokens someone
 * watches (stream subscribers, the ground-truth log). It keeps the last ladder of each watched
 * token; a token stops being watched and its ladder is forgotten, so a later watcher primes it
 * again with `current()` before it relies on deltas.
 */
export class BookFeed {
  readonly #last = new Map<string, Ladder>();
  readonly #listeners: Array<(u: BookUpdate) => void> = [];
  readonly #watchers: Array<(tokenId: string) => boolean> = [];

  constructor(
    private readonly catalogue: Catalogue,
    private readonly exchange: Exchange,
    events: VenueEvents,
  ) {
    events.on('book', (e) => {
      if (!this.#watchers.some((w) => w(e.tokenId))) {
        this.#last.delete(e.tokenId);
        return;
      }
      const snap = e.snapshot();
      const ref = this.catalogue.token(e.tokenId);
      const before = this.#last.get(e.tokenId) ?? { bids: [], asks: [] };
      this.#last.set(e.tokenId, { bids: snap.bids, asks: snap.asks });
      const update: BookUpdate = {
        tokenId: e.tokenId,
        conditionId: e.conditionId,
        marketId: ref?.market.id ?? '',
        eventId: ref?.market.eventId ?? '',
        sequence: e.sequence,
        atMs: e.atMs,
        bids: snap.bids,
        asks: snap.asks,
        changes: [...diffSide('bid', before.bids, snap.bids), ...diffSide('ask', before.asks, snap.asks)],
        topChanged:
          before.bids[0]?.priceMicro !== snap.bids[0]?.priceMicro ||
          before.asks[0]?.priceMicro !== snap.asks[0]?.priceMicro,
      };
      for (const listener of this.#listeners) listener(update);
    });
  }

  /** `watches(tokenId)` says whether updates of that token are wanted. */
  watch(watches: (tokenId: string) => boolean): void {
    this.#watchers.push(watches);
  }

  onUpdate(listener: (u: BookUpdate) => void): void {
    this.#listeners.push(listener);
  }

  /** The token's ladder now, which also becomes the base of its next level changes. */
  current(tokenId: string): (Ladder & { sequence: number }) | undefined {
    const ref = this.catalogue.token(tokenId);
    if (!ref) return undefined;
    const book = this.exchange.book(ref.market);
    const ladder = book.ladderFor(ref.outcomeIndex);
    this.#last.set(tokenId, ladder);
    return { ...ladder, sequence: book.sequence };
  }
}
