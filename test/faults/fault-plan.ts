import type { FaultSpec } from '../../src/simulator/faults/fault-spec.ts';
import { Prng } from '../../src/simulator/prng.ts';

/**
 * What the fault suite does to the pipeline, on a timeline: venue faults injected through the
 * simulator's control port (every kind, every error-frame action, every 5xx recovery strategy,
 * every malformed-frame variant), SIGKILLs of the pipeline's processes, and restarts of Kafka and
 * Temporal. Seeded: the same seed and length give the same plan.
 */

export type Target = 'run' | 'capture' | 'load' | 'worker';
export type Service = 'kafka' | 'temporal';

export type Step =
  | { atMs: number; type: 'inject'; spec: FaultSpec }
  | { atMs: number; type: 'kill'; target: Target; downMs: number }
  | { atMs: number; type: 'restart'; service: Service };

/** The silence tolerance of our stream clients is 30 s: one silence goes past it, one stays under. */
const LONG_SILENCE_MS = 36_000;

/** Every venue fault the suite injects, in the order of the first tour. */
export function tour(r: Prng): FaultSpec[] {
  return [
    { kind: 'drop_connection', endpoint: 'market' },
    { kind: 'sequence_reset', endpoint: 'market', gap_ms: r.int(1, 3) * 500 },
    { kind: 'error_frame', endpoint: 'market', action: 'keep' },
    { kind: 'rest_rate_limit_storm', duration_ms: r.int(4, 8) * 1000, fraction: 0.6, retry_after_seconds: 2 },
    { kind: 'error_frame', endpoint: 'market', action: 'resubscribe' },
    { kind: 'malformed_frames', endpoint: 'market', variant: 'invalid_json', count: r.int(1, 3) },
    { kind: 'rest_server_error', strategy: 'none', duration_ms: r.int(3, 6) * 1000, fraction: 0.5 },
    { kind: 'error_frame', endpoint: 'market', action: 'reconnect' },
    { kind: 'malformed_frames', endpoint: 'market', variant: 'wrong_types', count: r.int(1, 3) },
    { kind: 'silence', endpoint: 'market', duration_ms: LONG_SILENCE_MS },
    { kind: 'rest_server_error', strategy: 'retry', duration_ms: r.int(3, 6) * 1000, fraction: 0.5 },
    { kind: 'drop_connection', endpoint: 'account' },
    { kind: 'malformed_frames', endpoint: 'market', variant: 'unknown_kind', count: r.int(1, 3) },
    { kind: 'pnl_not_ready', duration_ms: r.int(10, 20) * 1000 },
    { kind: 'refuse_connections', endpoint: 'market', duration_ms: r.int(5, 10) * 1000 },
    // Right after the refusal starts: the reconnect meets 429 with Retry-After.
    { kind: 'drop_connection', endpoint: 'market' },
    {
      kind: 'rest_server_error',
      strategy: 'retry_after',
      duration_ms: r.int(3, 6) * 1000,
      fraction: 0.5,
      retry_after_seconds: 2,
    },
    { kind: 'malformed_frames', endpoint: 'market', variant: 'unknown_fields', count: r.int(1, 5) },
    { kind: 'sequence_reset', endpoint: 'account', gap_ms: r.int(0, 2) * 500 },
    { kind: 'duplicate_frames', endpoint: 'market', duration_ms: r.int(2, 6) * 1000 },
    { kind: 'unavailable_exchanges', duration_ms: r.int(5, 15) * 1000 },
    { kind: 'malformed_frames', endpoint: 'market', variant: 'oversized', count: 1 },
    { kind: 'drop_connection', endpoint: 'portfolio' },
    { kind: 'dependency_outcome_unknown', duration_ms: r.int(5, 10) * 1000, fraction: 0.5 },
    { kind: 'silence', endpoint: 'market', duration_ms: r.int(3, 10) * 1000 },
    // Every paged read (catalogue, orders, trades, activities) meets a cursor handed out twice.
    { kind: 'repeat_cursor', duration_ms: r.int(5, 15) * 1000, fraction: 0.5 },
  ];
}

export interface PlanOptions {
  seed: number;
  /** Length of the fault window. */
  faultMs: number;
  mode: 'embedded' | 'kafka';
}

/** Kills and service restarts: the short form gets each once; a long one every few minutes. */
function disruptions(mode: PlanOptions['mode'], faultMs: number, r: Prng): Step[] {
  const steps: Step[] = [];
  const kinds: Array<{ every: number; make: (atMs: number) => Step }> =
    mode === 'embedded'
      ? [{ every: 150_000, make: (atMs) => ({ atMs, type: 'kill', target: 'run', downMs: r.int(1, 5) * 1000 }) }]
      : [
          { every: 240_000, make: (atMs) => ({ atMs, type: 'kill', target: 'capture', downMs: r.int(1, 5) * 1000 }) },
          { every: 240_000, make: (atMs) => ({ atMs, type: 'kill', target: 'load', downMs: r.int(1, 5) * 1000 }) },
          { every: 240_000, make: (atMs) => ({ atMs, type: 'kill', target: 'worker', downMs: r.int(1, 5) * 1000 }) },
          { every: 600_000, make: (atMs) => ({ atMs, type: 'restart', service: 'kafka' }) },
          { every: 600_000, make: (atMs) => ({ atMs, type: 'restart', service: 'temporal' }) },
        ];
  for (const kind of kinds) {
    // At least once; then once per `every`, each at a random instant of its own slot.
    const count = Math.max(1, Math.floor(faultMs / kind.every));
    const slot = faultMs / count;
    for (let i = 0; i < count; i++) steps.push(kind.make(Math.round(slot * i + slot * (0.15 + 0.7 * r.float()))));
  }
  return steps;
}

export function planFaults(options: PlanOptions): Step[] {
  const r = Prng.forStream(options.seed, 'fault-suite');
  const steps: Step[] = disruptions(options.mode, options.faultMs, r);
  // The tour first, spread over the window (or its first 150 s), then random picks from it.
  const first = tour(r);
  const spacing = Math.min(6_000, options.faultMs / (first.length + 1));
  let atMs = 2_000;
  for (const spec of first) {
    steps.push({ atMs, type: 'inject', spec });
    atMs += spec.kind === 'refuse_connections' ? 1_000 : spacing;
  }
  while (atMs < options.faultMs - 10_000) {
    atMs += r.int(4, 12) * 1000;
    steps.push({ atMs, type: 'inject', spec: r.pick(tour(r)) });
  }
  return steps.filter((s) => s.atMs < options.faultMs).sort((a, b) => a.atMs - b.atMs);
}

/** The name a step's fault is counted under in the figures. */
export function faultName(step: Step): string {
  if (step.type === 'kill') return `sigkill_${step.target}`;
  if (step.type === 'restart') return `${step.service}_restart`;
  const { spec } = step;
  if (spec.kind === 'error_frame') return `error_frame_${spec.action}`;
  if (spec.kind === 'rest_server_error') return `rest_server_error_${spec.strategy}`;
  if (spec.kind === 'malformed_frames') return `malformed_frames_${spec.variant}`;
  if (spec.kind === 'silence') return (spec.duration_ms ?? 0) >= 30_000 ? 'silence_past_tolerance' : 'silence_short';
  if (spec.endpoint && spec.endpoint !== 'market') return `${spec.kind}_${spec.endpoint}`;
  return spec.kind;
}
