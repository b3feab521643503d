import type { Clock } from '../clock.ts';
import { closureAgenda } from '../lifecycle/agenda.ts';
import type { Prng } from '../prng.ts';
import type { StreamServer } from '../streams/stream-server.ts';
import { durationOf, isRestFault, parseFaultSpec, type FaultRecord, type FaultSpec } from './fault-spec.ts';
import { RestFaults } from './rest-faults.ts';
import { applyStreamFault, targets } from './stream-faults.ts';

export type { FaultRecord };

/** A record in the ground truth's and the control endpoint's form. */
export function faultJson(f: FaultRecord): Record<string, unknown> {
  const { kind, ...params } = f.spec;
  return {
    id: f.id,
    kind,
    start: new Date(f.startMs).toISOString(),
    end: new Date(f.endMs).toISOString(),
    scope: f.scope,
    params,
  };
}

/**
 * Fault injection (README, "Fault injection"): faults start when injected (by a profile, the
 * control endpoint or `sim.faults`), stream faults act on the connections open then, REST faults
 * are read by the server while they last. Each is reported once, when it ends, with its bounds.
 */
export class Faults {
  readonly rest: RestFaults;
  readonly #active: FaultRecord[] = [];
  readonly #ended: FaultRecord[] = [];
  readonly #later = closureAgenda();
  readonly #listeners: Array<(f: FaultRecord) => void> = [];
  #nextId = 1;

  constructor(
    private readonly clock: Clock,
    private readonly streams: StreamServer,
    rng: Prng,
  ) {
    this.rest = new RestFaults((now) => this.#active.filter((f) => isRestFault(f.spec.kind) && now < f.endMs), rng);
  }

  /** Injects a fault now; the spec is checked first (FaultSpecError on a bad one). */
  inject(spec: FaultSpec): FaultRecord {
    const checked = parseFaultSpec(spec);
    const now = this.clock.now();
    const endMs = now + durationOf(checked);
    const scope = isRestFault(checked.kind)
      ? { paths: checked.path_prefix ?? '/', fraction: checked.fraction ?? 1 }
      : applyStreamFault(this.streams, checked, now, endMs, this.#later);
    const record: FaultRecord = { id: `fault-${this.#nextId++}`, spec: checked, startMs: now, endMs, scope };
    this.#active.push(record);
    this.tick(now);
    return record;
  }

  /** Ends a fault before its time (its connections speak again, its endpoint admits again); a sequence reset runs its
   * course. */
  end(id: string): FaultRecord | undefined {
    const record = this.#active.find((f) => f.id === id);
    if (!record || record.spec.kind === 'sequence_reset') return record;
    this.#endNow(record);
    this.tick(this.clock.now());
    return record;
  }

  onEnded(listener: (f: FaultRecord) => void): void {
    this.#listeners.push(listener);
  }

  active(): FaultRecord[] {
    return [...this.#active];
  }

  ended(): FaultRecord[] {
    return [...this.#ended];
  }

  tick(nowMs: number): void {
    this.#later.runDue(nowMs);
    for (const record of [...this.#active]) {
      if (record.endMs > nowMs) continue;
      this.#active.splice(this.#active.indexOf(record), 1);
      this.#ended.push(record);
      for (const listener of this.#listeners) listener(record);
    }
  }

  /** At shutdown: whatever still runs ends now, so every fault is reported. */
  endAll(): void {
    for (const record of this.#active) this.#endNow(record);
    this.tick(this.clock.now());
  }

  #endNow(record: FaultRecord): void {
    const nowMs = this.clock.now();
    if (record.endMs <= nowMs) return;
    record.endMs = nowMs;
    const spec = record.spec;
    if (spec.kind === 'refuse_connections') this.streams.refuse(spec.endpoint ?? 'market', nowMs);
    for (const conn of targets(this.streams, spec)) {
      if (spec.kind === 'silence') conn.silentUntilMs = nowMs;
      if (spec.kind === 'duplicate_frames') conn.duplicateUntilMs = nowMs;
    }
  }
}
