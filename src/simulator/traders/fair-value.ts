import type { Prng } from '../prng.ts';

/** A market's fair price of outcome 0, drifting as a random walk in log-odds so it never leaves (0, 1). */
export class FairValue {
  #logit: number;

  constructor(
    initialPriceMicro: bigint,
    private readonly volatility = 0.04,
  ) {
    const p = Math.min(0.98, Math.max(0.02, Number(initialPriceMicro) / 1e6));
    this.#logit = Math.log(p / (1 - p));
  }

  /** Where the walk stands (log-odds), to save and take back. */
  get logit(): number {
    return this.#logit;
  }

  static atLogit(logit: number): FairValue {
    const fair = new FairValue(500_000n);
    fair.#logit = logit;
    return fair;
  }

  step(rng: Prng): void {
    this.#logit = Math.max(-4, Math.min(4, this.#logit + this.volatility * rng.normal()));
  }

  /** Fair probability of outcome 0. */
  probability(): number {
    return 1 / (1 + Math.exp(-this.#logit));
  }
}

/** Snaps a probability to the market's tick grid, inside (0, 1). */
export function onTick(probability: number, tickMicro: bigint, direction: 'down' | 'up'): bigint {
  const tick = Number(tickMicro);
  const raw = probability * 1e6;
  let ticks = direction === 'down' ? Math.floor(raw / tick) : Math.ceil(raw / tick);
  const maxTicks = 1e6 / tick - 1;
  ticks = Math.max(1, Math.min(maxTicks, ticks));
  return BigInt(ticks) * tickMicro;
}
