import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import { Availability } from '../src/api/availability.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import type { Bus, PublishOptions } from '../src/bus/bus.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { MemoryCheckpointStore } from '../src/sync/checkpoint.ts';
import { syncDeps, type SyncDeps, type SyncTuning } from '../src/sync/deps.ts';
import { createSyncVenue, type SyncVenue } from '../src/sync/venue.ts';
import { ManualClock, startSimulator, type SimulatorHandle, type SimulatorOptions } from '../src/simulator/index.ts';
import { Secret } from '../src/util/secret.ts';
import { ManualClock as VirtualClock, nowMicros, type Clock } from '../src/util/clock.ts';

/** Test set-up of the sync jobs: the simulator, the jobs' clients, an embedded bus, checkpoints in memory. */

/** Counts the requests the clients send, by "METHOD path" (query left out). */
export class RequestLog {
  readonly sent: string[] = [];

  count(prefix: string): number {
    return this.sent.filter((line) => line.startsWith(prefix)).length;
  }

  dispatcher(): Dispatcher {
    return new Agent().compose((dispatch) => (options, handler) => {
      this.sent.push(`${options.method} ${(options.path ?? '').split('?')[0]}`);
      return dispatch(options, handler);
    });
  }
}

/** A bus that keeps a copy of every record it confirmed, in order. */
export class RecordingBus implements Bus {
  readonly records: ReceivedRecord[] = [];
  /** Fails the publish calls whose number (from 1) is listed, before anything is stored. */
  failOn = new Set<number>();
  #calls = 0;

  constructor(private readonly inner: Bus = new EmbeddedBus({ capacity: { records: 1_000_000, bytes: 1 << 30 } })) {}

  get durable(): boolean {
    return this.inner.durable;
  }

  async publish(topic: string, records: readonly ReceivedRecord[], options?: PublishOptions): Promise<void> {
    this.#calls += 1;
    if (this.failOn.has(this.#calls)) throw new Error(`publish ${this.#calls} failed (test)`);
    await this.inner.publish(topic, records, options);
    this.records.push(...records);
  }

  of(kind: ReceivedRecord['kind']): ReceivedRecord[] {
    return this.records.filter((record) => record.kind === kind);
  }

  subscribe: Bus['subscribe'] = (options) => this.inner.subscribe(options);
  committedOffsets: Bus['committedOffsets'] = (group, topic) => this.inner.committedOffsets(group, topic);
  lag: Bus['lag'] = (group, topics) => this.inner.lag(group, topics);
  logStarts: Bus['logStarts'] = (topic) => this.inner.logStarts(topic);
  close: Bus['close'] = () => this.inner.close();
}

/** Log lines as parsed JSON, for asserting what the jobs reported. */
export function captureLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines };
}

export interface Harness {
  sim: SimulatorHandle;
  /** The client's clock: waiting moves the simulator's time by as much. */
  clock: Clock;
  venue: SyncVenue;
  bus: RecordingBus;
  store: MemoryCheckpointStore;
  deps: SyncDeps;
  requests: RequestLog;
  logLines: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  sim?: SimulatorOptions;
  tuning?: Partial<SyncTuning>;
  /** Let the synthetic traders trade this long first (ms of simulated time, in 500 ms steps). */
  warmUpMs?: number;
}

/**
 * One simulated time for both sides (as in the client's own simulator test): the simulator runs on
 * a manual clock, and every wait of the client (pacing, backoff, Retry-After) moves it by as much.
 * Jobs must then run one at a time.
 */
export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const venueTime = new ManualClock();
  const sim = await startSimulator({ seed: 7, rate: 40, clock: venueTime, ...options.sim });
  for (let t = 0; t < (options.warmUpMs ?? 0); t += 500) sim.advance(500);
  const clock: Clock = {
    now: () => venueTime.now(),
    epochMicros: nowMicros,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sim.advance(Math.ceil(ms));
    },
  };
  const requests = new RequestLog();
  const { logger, lines } = captureLogger();
  const venue = createSyncVenue({
    baseUrl: sim.url,
    token: new Secret(sim.demoToken),
    clock,
    limiter: new RateLimiter({ ipLimits: new IpLimits(), clock }),
    availability: new Availability(),
    dispatcher: requests.dispatcher(),
    logger,
    random: () => 0.5,
  });
  const bus = new RecordingBus();
  const store = new MemoryCheckpointStore();
  const deps = syncDeps({
    venue,
    bus,
    checkpoints: store,
    account: 'demo',
    logger,
    now: () => venueTime.now(),
    tuning: options.tuning,
  });
  return {
    sim,
    clock,
    venue,
    bus,
    store,
    deps,
    requests,
    logLines: lines,
    async close() {
      await venue.close();
      await bus.close();
      await sim.close();
    },
  };
}

/** JSON as the wire carries it: bigints as decimal strings, absent fields left out. */
export function asWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

/**
 * The newest observation per natural id, as a loader keeps it: by the venue's time of the answer
 * (`venue_time`), then by bus order — two jobs reading the same orders can publish out of order.
 */
export function latestBy(
  records: readonly ReceivedRecord[],
  id: (payload: Record<string, unknown>) => string,
): Map<string, Record<string, unknown>> {
  const latest = new Map<string, { at: number; payload: Record<string, unknown> }>();
  for (const record of records) {
    const payload = record.payload as Record<string, unknown>;
    const at = record.venueTime === null ? 0 : Date.parse(record.venueTime);
    const key = id(payload);
    const seen = latest.get(key);
    if (!seen || at >= seen.at) latest.set(key, { at, payload });
  }
  return new Map([...latest].map(([key, { payload }]) => [key, payload]));
}

/** Requests of this process's undici clients that have not been answered yet. */
export function requestsInFlight(): { count: () => number; stop: () => void } {
  let inFlight = 0;
  const started = (): void => void (inFlight += 1);
  const ended = (): void => void (inFlight -= 1);
  subscribe('undici:request:create', started);
  subscribe('undici:request:trailers', ended);
  subscribe('undici:request:error', ended);
  return {
    count: () => inFlight,
    stop: () => {
      unsubscribe('undici:request:create', started);
      unsubscribe('undici:request:trailers', ended);
      unsubscribe('undici:request:error', ended);
    },
  };
}

/**
 * One virtual time for the venue, the client and the scheduler's timers. It jumps to the earliest
 * timer only while no request is on its way, so a read takes no virtual time and jobs see the
 * venue the way they would in real time; the venue then works off what became due.
 */
export class SharedTime extends VirtualClock {
  constructor(
    busy: () => boolean,
    onAdvance: () => void,
    /** Jump only while at least this many waits are pending (every loop of a scheduler asleep). */
    minSleepers = 1,
  ) {
    super(Date.UTC(2025, 0, 6, 12, 0, 0), nowMicros(), {
      mayAdvance: (pending) => !busy() && pending >= minSleepers,
      onAdvance,
    });
  }

  /** Records keep the real wall time: only the waits are virtual. */
  override epochMicros(): bigint {
    return nowMicros();
  }
}

/** Resolves once the condition holds, checking every few ms of real time. */
export function until(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => (condition() ? resolve() : void setTimeout(check, 2));
    check();
  });
}
