import type { Prng } from '../prng.ts';
import type { FaultSpec } from './fault-spec.ts';

export const FAULT_PROFILES = ['none', 'light', 'heavy'] as const;
export type FaultProfileName = (typeof FAULT_PROFILES)[number];

type Draw = (rng: Prng) => FaultSpec;

/** Faults a light profile draws from: brief, and never longer than a client's 30 s silence tolerance. */
const LIGHT: Draw[] = [
  () => ({ kind: 'drop_connection', endpoint: 'market' }),
  (r) => ({ kind: 'silence', endpoint: 'market', duration_ms: r.int(3, 15) * 1000 }),
  (r) => ({ kind: 'sequence_reset', endpoint: 'market', gap_ms: r.int(0, 2) * 500 }),
  () => ({ kind: 'error_frame', endpoint: 'market', action: 'keep' }),
  () => ({ kind: 'error_frame', endpoint: 'market', action: 'resubscribe' }),
  (r) => ({ kind: 'duplicate_frames', endpoint: 'market', duration_ms: r.int(2, 6) * 1000 }),
  (r) => ({ kind: 'malformed_frames', endpoint: 'market', variant: 'unknown_fields', count: r.int(1, 5) }),
  (r) => ({ kind: 'rest_server_error', strategy: 'retry', duration_ms: r.int(2, 5) * 1000, fraction: 0.2 }),
  (r) => ({ kind: 'rest_rate_limit_storm', duration_ms: r.int(2, 5) * 1000, fraction: 0.2, retry_after_seconds: 1 }),
];

/** A heavy profile adds long silences, reconnects, refusals, malformed frames and every REST fault. */
const HEAVY: Draw[] = [
  ...LIGHT,
  (r) => ({ kind: 'silence', endpoint: 'market', duration_ms: r.int(35, 45) * 1000 }),
  () => ({ kind: 'error_frame', endpoint: 'market', action: 'reconnect' }),
  (r) => ({ kind: 'refuse_connections', endpoint: 'market', duration_ms: r.int(5, 15) * 1000 }),
  (r) => ({
    kind: 'malformed_frames',
    endpoint: 'market',
    variant: r.pick(['invalid_json', 'wrong_types', 'unknown_kind', 'oversized'] as const),
    count: r.int(1, 3),
  }),
  (r) => ({ kind: 'drop_connection', endpoint: r.pick(['account', 'portfolio'] as const) }),
  (r) => ({ kind: 'sequence_reset', endpoint: 'account', gap_ms: r.int(0, 2) * 500 }),
  (r) => ({
    kind: 'rest_server_error',
    strategy: r.pick(['none', 'retry', 'retry_after'] as const),
    duration_ms: r.int(3, 10) * 1000,
    fraction: 0.5,
    retry_after_seconds: 2,
  }),
  (r) => ({ kind: 'rest_rate_limit_storm', duration_ms: r.int(3, 10) * 1000, fraction: 0.6, retry_after_seconds: 2 }),
  (r) => ({ kind: 'dependency_outcome_unknown', duration_ms: r.int(5, 15) * 1000, fraction: 0.5 }),
  (r) => ({ kind: 'pnl_not_ready', duration_ms: r.int(10, 30) * 1000 }),
  (r) => ({ kind: 'unavailable_exchanges', duration_ms: r.int(5, 20) * 1000 }),
];

const PROFILES: Record<FaultProfileName, { meanGapMs: number; draws: Draw[] }> = {
  none: { meanGapMs: 0, draws: [] },
  light: { meanGapMs: 120_000, draws: LIGHT },
  heavy: { meanGapMs: 15_000, draws: HEAVY },
};

/**
 * A startup fault profile: on the clock, a seeded draw of faults at random gaps (uniform between
 * half and one and a half times the profile's mean). Same seed and clock steps, same faults.
 */
export class FaultProfile {
  #nextMs: number;

  constructor(
    readonly name: FaultProfileName,
    private readonly rng: Prng,
    private readonly inject: (spec: FaultSpec) => void,
    startMs: number,
  ) {
    this.#nextMs = startMs + this.#gap();
  }

  tick(nowMs: number): void {
    const { draws } = PROFILES[this.name];
    if (draws.length === 0) return;
    for (; this.#nextMs <= nowMs; this.#nextMs += this.#gap()) this.inject(this.rng.pick(draws)(this.rng));
  }

  #gap(): number {
    const mean = PROFILES[this.name].meanGapMs;
    return mean > 0 ? Math.round(mean * (0.5 + this.rng.float())) : Number.POSITIVE_INFINITY;
  }
}
