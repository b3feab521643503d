/**
 * The order book of one token as capture keeps it: price level → size, per side.
 *
 * Prices are micro-units of a probability, so always below 1,000,000 and exact as a JS number;
 * sizes are share quantities in micro-units and stay canonical decimal strings (no leading zeros),
 * which are exact, compare as fast as numbers, and are already the wire form of a bigint. Anything
 * that breaks these rules is rejected by the parser (levels.ts) before it gets here.
 */

import type { Level } from '../frames/index.ts';

export type { Level };

export type Side = 'bid' | 'ask';

export interface LevelChange extends Level {
  side: Side;
}

export class BookLadder {
  bids = new Map<number, string>();
  asks = new Map<number, string>();

  get empty(): boolean {
    return this.bids.size === 0 && this.asks.size === 0;
  }

  /**
   * Replaces the whole ladder (a `snapshot` frame) and returns the level changes that turn the old
   * ladder into the new one: changed and new levels with their size, vanished levels with "0".
   */
  replace(bids: readonly Level[], asks: readonly Level[]): LevelChange[] {
    const changes: LevelChange[] = [];
    diffSide('bid', this.bids, bids, changes);
    diffSide('ask', this.asks, asks, changes);
    return changes;
  }

  /** Replaces one side (a snapshot whose other side is known unchanged), pushing what changed. */
  replaceSide(side: Side, levels: readonly Level[], out: LevelChange[]): void {
    diffSide(side, side === 'bid' ? this.bids : this.asks, levels, out);
  }

  /** Applies changed levels (a `delta` frame); returns those that changed anything. */
  apply(changes: readonly LevelChange[]): LevelChange[] {
    const effective: LevelChange[] = [];
    for (const change of changes) {
      const side = change.side === 'bid' ? this.bids : this.asks;
      const before = side.get(change.priceMicro);
      if (change.sizeMicro === '0') {
        if (before === undefined) continue;
        side.delete(change.priceMicro);
      } else {
        if (before === change.sizeMicro) continue;
        side.set(change.priceMicro, change.sizeMicro);
      }
      effective.push(change);
    }
    return effective;
  }

  bestBid(): number | null {
    return best(this.bids, Math.max);
  }

  bestAsk(): number | null {
    return best(this.asks, Math.min);
  }

  /** The ladder, best first (bids descending, asks ascending), `depth` levels per side at most. */
  levels(depth = Number.POSITIVE_INFINITY): { bids: Level[]; asks: Level[] } {
    return { bids: sorted(this.bids, (a, b) => b - a, depth), asks: sorted(this.asks, (a, b) => a - b, depth) };
  }

  clone(): BookLadder {
    const copy = new BookLadder();
    copy.bids = new Map(this.bids);
    copy.asks = new Map(this.asks);
    return copy;
  }
}

/**
 * Turns `levels` into the side's new content in place, pushing what changed. Most frames resize a
 * level or two: when the side ends with as many levels as the frame has, nothing vanished and no
 * set of the new prices is built.
 */
function diffSide(side: Side, levels: Map<number, string>, after: readonly Level[], out: LevelChange[]): void {
  for (let i = 0; i < after.length; i++) {
    const { priceMicro, sizeMicro } = after[i]!;
    if (levels.get(priceMicro) === sizeMicro) continue;
    levels.set(priceMicro, sizeMicro);
    out.push({ side, priceMicro, sizeMicro });
  }
  if (levels.size === after.length) return;
  const kept = new Set<number>();
  for (const level of after) kept.add(level.priceMicro);
  for (const priceMicro of levels.keys()) {
    if (kept.has(priceMicro)) continue;
    levels.delete(priceMicro);
    out.push({ side, priceMicro, sizeMicro: '0' });
  }
}

function best(levels: Map<number, string>, pick: (a: number, b: number) => number): number | null {
  let result: number | null = null;
  for (const price of levels.keys()) result = result === null ? price : pick(result, price);
  return result;
}

function sorted(levels: Map<number, string>, order: (a: number, b: number) => number, depth: number): Level[] {
  return [...levels.keys()]
    .sort(order)
    .slice(0, depth)
    .map((priceMicro) => ({ priceMicro, sizeMicro: levels.get(priceMicro)! }));
}
