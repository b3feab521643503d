/**
 * Small seeded PRNG (sfc32, seeded through splitmix32) so the same seed gives the same catalogue
 * and the same order flow. Independent streams are forked by label so adding draws in one part
 * (say the traders) does not shift another (the catalogue).
 */
export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** A new generator whose sequence depends only on this seed and the label. */
  static forStream(seed: number, label: string): Prng {
    let h = 2166136261 ^ (seed >>> 0);
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619) >>> 0;
    return new Prng(h);
  }

  uint32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Standard normal draw (Box-Muller). */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.uint32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  /** RFC 4122 version-4 shaped uuid from this stream. */
  uuid(): string {
    const h = this.hex(32);
    const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  /** A long decimal string, the shape outcome token ids have on Polymarket-like venues. */
  decimalId(digits: number): string {
    let out = String(this.int(1, 9));
    while (out.length < digits) out += String(this.uint32()).padStart(10, '0');
    return out.slice(0, digits);
  }
}

/** The generators of one venue run, by label. */
export type PrngStreams = (label: string) => Prng;

/**
 * The streams of a seed in one generation of a saved venue (README, "A world that goes on"). Each
 * start of a saved venue is a new generation, saved before anything is served: its streams are
 * forked anew from the seed, the label and the generation, so a start never draws again what an
 * earlier start drew — ids included, even when it resumes from a save older than what the earlier
 * start had issued (a kill). Generation 0 is the seed's own streams, as an unsaved venue has them.
 */
export function prngStreams(seed: number, generation: number): PrngStreams {
  return (label) => Prng.forStream(seed, generation === 0 ? label : `${label}#${generation}`);
}
