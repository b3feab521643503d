/**
 * A set of 128-bit digests with a fixed capacity, the oldest (by first insertion) forgotten first,
 * held in two typed arrays allocated once: a ring of the digests in insertion order and an
 * open-addressing index (linear probing) from a digest to its place in the ring.
 *
 * Why not a `Set<string>`: a job's sync memory holds hundreds of thousands of keys; as strings in a
 * Set each costs ~90 bytes of JS heap and the Set's table is reallocated whole as it doubles. Here
 * an entry costs 16 bytes of ring and 8 of index, outside the JS heap, and nothing is reallocated.
 */
export class DigestRing {
  /** Four 32-bit words per entry, in insertion order; `#oldest` is the next to forget. */
  readonly #ring: Uint32Array;
  /** Ring position + 1 of the digest whose probe sequence passes here; 0 is an empty slot. */
  readonly #index: Uint32Array;
  readonly #mask: number;
  #oldest = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`DigestRing capacity must be a positive integer, got ${capacity}`);
    this.#ring = new Uint32Array(capacity * 4);
    // At most half full, so a probe stays short.
    let slots = 2;
    while (slots < capacity * 2) slots *= 2;
    this.#index = new Uint32Array(slots);
    this.#mask = slots - 1;
  }

  get size(): number {
    return this.#size;
  }

  /** `digest`: at least 16 bytes (a SHA-1's 20 are fine); its first 16 are the entry. */
  has(digest: Uint8Array): boolean {
    return this.#find(words(digest)) >= 0;
  }

  /** Adds the digest unless present (a present one keeps its age). */
  add(digest: Uint8Array): void {
    const w = words(digest);
    if (this.#find(w) >= 0) return;
    if (this.#size === this.capacity) this.#forgetOldest();
    const position = (this.#oldest + this.#size) % this.capacity;
    this.#ring.set(w, position * 4);
    let slot = w[0]! & this.#mask;
    while (this.#index[slot] !== 0) slot = (slot + 1) & this.#mask;
    this.#index[slot] = position + 1;
    this.#size += 1;
  }

  /** The index slot holding the digest, or −1. */
  #find(w: Uint32Array): number {
    const ring = this.#ring;
    for (let slot = w[0]! & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const entry = this.#index[slot]!;
      if (entry === 0) return -1;
      const at = (entry - 1) * 4;
      if (ring[at] === w[0] && ring[at + 1] === w[1] && ring[at + 2] === w[2] && ring[at + 3] === w[3]) return slot;
    }
  }

  #forgetOldest(): void {
    const at = this.#oldest * 4;
    const slot = this.#find(this.#ring.subarray(at, at + 4));
    this.#oldest = (this.#oldest + 1) % this.capacity;
    this.#size -= 1;
    this.#removeSlot(slot);
  }

  /** Backward-shift deletion: moves later entries of the probe run into the hole so every lookup still finds them. */
  #removeSlot(hole: number): void {
    const index = this.#index;
    const mask = this.#mask;
    let i = hole;
    for (let j = (i + 1) & mask; index[j] !== 0; j = (j + 1) & mask) {
      const home = this.#ring[(index[j]! - 1) * 4]! & mask;
      // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
      const homeBetween = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!homeBetween) {
        index[i] = index[j]!;
        i = j;
      }
    }
    index[i] = 0;
  }
}

function words(digest: Uint8Array): Uint32Array {
  if (digest.length < 16) throw new RangeError(`a digest of at least 16 bytes is needed, got ${digest.length}`);
  // A copy: a Buffer from crypto may sit at an offset of a shared pool that is not 4-byte aligned.
  const w = new Uint32Array(4);
  new Uint8Array(w.buffer).set(digest.subarray(0, 16));
  return w;
}
