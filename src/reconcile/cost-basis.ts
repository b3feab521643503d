import { notional } from './venue-rules.ts';

/**
 * Cost basis of one token's holding under an accounting method. The venue keeps average cost
 * (its `avg_price_micro` is basis ÷ shares); FIFO is offered to see the same fills lot by lot.
 */
export type CostMethod = 'average' | 'fifo';

export const COST_METHODS: readonly CostMethod[] = ['average', 'fifo'];

export interface CostBook {
  readonly basisMicro: bigint;
  add(sharesMicro: bigint, costMicro: bigint): void;
  /** Removes `sharesMicro` of `heldMicro` shares; returns the basis they carried. */
  remove(sharesMicro: bigint, heldMicro: bigint): bigint;
}

export function newCostBook(method: CostMethod): CostBook {
  return method === 'average' ? new AverageCost() : new FifoLots();
}

/** The venue's rule: a sale removes ⌊basis × sold ÷ held⌋, or the whole basis when nothing is left. */
class AverageCost implements CostBook {
  basisMicro = 0n;

  add(_sharesMicro: bigint, costMicro: bigint): void {
    this.basisMicro += costMicro;
  }

  remove(sharesMicro: bigint, heldMicro: bigint): bigint {
    const removed = sharesMicro >= heldMicro ? this.basisMicro : (this.basisMicro * sharesMicro) / heldMicro;
    this.basisMicro -= removed;
    return removed;
  }
}

interface Lot {
  sharesMicro: bigint;
  /** Price per share of the lot, so part of it costs price × part (exact on the venue's grid). */
  priceMicro: bigint;
  costMicro: bigint;
}

/** Oldest lots are sold first; a lot partly sold keeps the rest of its cost. */
class FifoLots implements CostBook {
  basisMicro = 0n;
  readonly #lots: Lot[] = [];
  #head = 0;

  add(sharesMicro: bigint, costMicro: bigint): void {
    if (sharesMicro <= 0n) return;
    this.#lots.push({ sharesMicro, priceMicro: (costMicro * 1_000_000n) / sharesMicro, costMicro });
    this.basisMicro += costMicro;
  }

  remove(sharesMicro: bigint): bigint {
    let left = sharesMicro;
    let removed = 0n;
    while (left > 0n && this.#head < this.#lots.length) {
      const lot = this.#lots[this.#head]!;
      if (lot.sharesMicro <= left) {
        removed += lot.costMicro;
        left -= lot.sharesMicro;
        this.#head += 1;
        continue;
      }
      const part = notional(lot.priceMicro, left);
      lot.sharesMicro -= left;
      lot.costMicro -= part;
      removed += part;
      left = 0n;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#lots.length) {
      // Drop sold lots now and then, so a long history does not keep them all.
      this.#lots.splice(0, this.#head);
      this.#head = 0;
    }
    this.basisMicro -= removed;
    return removed;
  }
}
