import { Availability } from '../src/api/availability.ts';
import { VenueClient } from '../src/api/client.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import { positionAfter, type Bus } from '../src/bus/bus.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import type { TokenBooks } from '../src/capture/books/token-books.ts';
import type { CaptureCounters } from '../src/capture/frames/counters.ts';
import { MarketConnection, type MarketOwner } from '../src/capture/market/market-connection.ts';
import { MarketFeed } from '../src/capture/market/market-feed.ts';
import { DECLARATIONS, RECORD_KINDS } from '../src/records/index.ts';
import { TOPICS, type TopicCatalogue } from '../src/bus/topics.ts';
import { startCapture, type CaptureHandle, type CaptureOptions } from '../src/capture/index.ts';
import { ManualClock, startSimulator, type SimulatorHandle, type SimulatorOptions } from '../src/simulator/index.ts';
import type { FramesSent } from '../src/simulator/streams/connection.ts';
import { ConnectionBudget, ConnectionBudgets } from '../src/streams/connection-budget.ts';
import { createLogger } from '../src/util/log.ts';
import { Secret } from '../src/util/secret.ts';
import type { Clock } from '../src/util/clock.ts';

interface Sleeper {
  at: number;
  order: number;
  resolve: () => void;
}

/**
 * The venue's ManualClock seen by capture: waits (watchdog, backoff, Retry-After, rate limits)
 * end when the test moves the venue's time past them, and frames are stamped with venue time, so
 * capture and ground truth share one time line and a slow machine never fakes a silence.
 */
export class SteppedClock implements Clock {
  #sleepers: Sleeper[] = [];
  #order = 0;
  constructor(readonly venue: ManualClock) {}

  now(): number {
    return this.venue.now();
  }

  epochMicros(): bigint {
    return BigInt(this.venue.now()) * 1000n;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (ms <= 0) return void setImmediate(resolve);
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      const sleeper: Sleeper = {
        at: this.venue.now() + ms,
        order: this.#order++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Ends the waits that are due now. */
  wake(): void {
    const now = this.venue.now();
    const due = this.#sleepers.filter((s) => s.at <= now).sort((a, b) => a.at - b.at || a.order - b.order);
    this.#sleepers = this.#sleepers.filter((s) => s.at > now);
    for (const s of due) s.resolve();
  }
}

/** Everything one capture test run needs: a simulator on a ManualClock, capture on the same time line, the records it
 * published. */
export interface SteppedRun {
  sim: SimulatorHandle;
  clock: SteppedClock;
  venue: SteppedVenue;
  capture: CaptureHandle;
  records: ReceivedRecord[];
  /** Moves venue time by `ms` in steps of `stepMs`, letting capture catch up after each. */
  run(ms: number, stepMs?: number): Promise<void>;
  /** Runs until every socket covers its subjects. */
  untilCovered(limitMs?: number): Promise<void>;
  /** Stops capture, collects what it published, and (unless told not to) closes the venue. */
  stop(closeVenue?: boolean): Promise<void>;
}

/**
 * What capture has received of what the venue sent: frames the venue handed to a socket against
 * frames capture took in, less those that will never arrive (sent to a socket capture was closing).
 */
class Delivery {
  /** Frames the venue sent that capture will not receive, as last judged. */
  #lost = 0;
  constructor(
    readonly capture: CaptureHandle,
    readonly sent: FramesSent,
  ) {}

  complete(): boolean {
    const missing = Math.max(0, this.sent.count - this.capture.stats().frames);
    // Frames judged lost that arrived after all are not lost: never count more lost than missing.
    this.#lost = Math.min(this.#lost, missing);
    return missing <= this.#lost;
  }

  /** Nothing more is coming: what is missing now was lost. */
  writeOff(): void {
    this.#lost = Math.max(0, this.sent.count - this.capture.stats().frames);
  }
}

/**
 * Waits until capture has received every frame the venue sent, then nothing new for a few
 * milliseconds, with nothing queued and no re-seed in flight. Counting frames, rather than waiting
 * for a quiet spell alone, keeps a slow machine from receiving a frame after the next step moved
 * venue time (stamping it 250 ms late, so two runs of one seed differ). Frames that never arrive (a
 * socket capture closed) are written off after `lostAfterMs` without one; a re-seed waiting on
 * venue time is given up on after `reseedLimitMs`, and anything else (a bus that does not take what
 * capture queued) after `limitMs`.
 */
async function settle(
  delivery: Delivery,
  quietMs = 4,
  reseedLimitMs = 500,
  lostAfterMs = 100,
  limitMs = 10_000,
): Promise<void> {
  const { capture } = delivery;
  const start = Date.now();
  let frames = -1;
  let quietSince = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 1));
    if (Date.now() - start > limitMs) return;
    const stats = capture.stats();
    if (stats.frames !== frames || stats.queuedRecords > 0) {
      frames = stats.frames;
      quietSince = Date.now();
      continue;
    }
    const quietFor = Date.now() - quietSince;
    if (!delivery.complete()) {
      if (quietFor < lostAfterMs) continue;
      delivery.writeOff();
      return;
    }
    if (stats.reseedsPending > 0) {
      if (Date.now() - start > reseedLimitMs) return;
      quietSince = Date.now();
    } else if (quietFor >= quietMs) return;
  }
}

/** Waits, without moving venue time, until every socket covers its subjects and the first re-seeds are published. */
async function settleFrozen(delivery: Delivery, limitMs = 30_000): Promise<void> {
  const { capture } = delivery;
  const deadline = Date.now() + limitMs;
  for (;;) {
    const s = capture.stats();
    if (s.marketConnections > 0 && s.openGaps === 0 && s.reseedsPending === 0 && s.queuedRecords === 0 && s.reseeds > 0)
      break;
    if (Date.now() > deadline) throw new Error('capture did not cover its subjects while venue time stood still');
    await new Promise((r) => setTimeout(r, 5));
  }
  await settle(delivery, 20);
}

/** Reads everything published on the capture topics back, in a group of its own. */
export async function collect(
  bus: Bus,
  into: ReceivedRecord[],
  topics: TopicCatalogue = TOPICS,
  group = 'capture-test',
): Promise<() => Promise<void>> {
  // Every kind capture publishes, as the declarations say.
  const names = RECORD_KINDS.filter((k) => DECLARATIONS[k].producer.startsWith('capture')).map((k) =>
    topics.topicFor(k),
  );
  const subscription = await bus.subscribe({
    group,
    topics: [...new Set(names)],
    onBatch: async (batch) => {
      for (const m of batch.messages) if (m.ok) into.push(m.record);
      await subscription.commit([positionAfter(batch)]);
    },
  });
  return () => subscription.close();
}

export interface VenueOptions {
  simulator?: SimulatorOptions;
  /** Venue time run before capture starts (books fill up, traders trade). */
  warmupMs?: number;
}

/** The simulator on a ManualClock, the stepped clock capture shares with it, and a client of it. */
export interface SteppedVenue {
  sim: SimulatorHandle;
  clock: SteppedClock;
  client: VenueClient;
  /** Moves venue time (no capture waited for). */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function steppedVenue(options: VenueOptions = {}): Promise<SteppedVenue> {
  const venueClock = new ManualClock();
  const sim = await startSimulator({ seed: 7, rate: 20, ...options.simulator, clock: venueClock });
  for (let t = 0; t < (options.warmupMs ?? 0); t += 500) sim.advance(500);
  const clock = new SteppedClock(venueClock);
  const client = new VenueClient({
    baseUrl: sim.url,
    token: new Secret(sim.demoToken),
    clock,
    limiter: new RateLimiter({ ipLimits: new IpLimits(), clock }),
    availability: new Availability(),
    logger: createLogger('api', 'silent'),
  });
  return {
    sim,
    clock,
    client,
    advance(ms) {
      sim.advance(ms);
      clock.wake();
    },
    async close() {
      await client.close();
      await sim.close();
    },
  };
}

/** A small catalogue: a few markets of each kind, so a test subscribes dozens of tokens, not hundreds. */
export const SMALL_CATALOGUE = {
  games: 2,
  propositions: 3,
  multiOutcome: 1,
  recurring: 1,
  recurringBacklog: { settled: 2, unsettled: 2, upcoming: 3 },
};

export interface SteppedRunOptions extends VenueOptions {
  capture?: Partial<CaptureOptions>;
  bus: Bus;
  topics?: TopicCatalogue;
  /** Capture another run against this venue (a restart) instead of starting one. */
  venue?: SteppedVenue;
  /**
   * Keep venue time still until capture covers everything and its first re-seeds are done, so two
   * runs of one seed subscribe at the same venue instant and publish the same records.
   */
  frozenStart?: boolean;
  /** How long `stop` waits for the collector to read back what was published. */
  readBackMs?: number;
}

/** Waits for a promise while moving venue time, since what it waits for may be a wait on venue time. */
async function whileTicking<T>(venue: SteppedVenue, promise: Promise<T>, stepMs = 100): Promise<T> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) {
    await new Promise((r) => setTimeout(r, 5));
    venue.advance(stepMs);
  }
  return promise;
}

export async function steppedRun(options: SteppedRunOptions): Promise<SteppedRun> {
  const venue = options.venue ?? (await steppedVenue(options));
  const { sim, clock, client } = venue;
  const records: ReceivedRecord[] = [];
  const stopCollecting = await collect(options.bus, records, options.topics);
  const capture = await whileTicking(
    venue,
    startCapture({
      client,
      bus: options.bus,
      topics: options.topics,
      baseUrl: sim.url,
      token: new Secret(sim.demoToken),
      clock,
      budgets: new ConnectionBudgets(undefined, clock),
      log: createLogger('capture', 'silent'),
      ...options.capture,
      // The price feeds only where a test asks for them (test/capture-prices.test.ts).
      streams: { prices: false, oraclePro: false, ...options.capture?.streams },
    }),
    options.frozenStart ? 0 : 100,
  );
  const delivery = new Delivery(capture, sim.streams.sent);
  if (options.frozenStart) await settleFrozen(delivery);
  const run = async (ms: number, stepMs = 250): Promise<void> => {
    for (let t = 0; t < ms; t += stepMs) {
      venue.advance(stepMs);
      await settle(delivery);
    }
  };
  return {
    sim,
    clock,
    venue,
    capture,
    records,
    run,
    async untilCovered(limitMs = 60_000) {
      for (let t = 0; capture.stats().openGaps > 0 || capture.stats().marketConnections === 0; t += 250) {
        if (t > limitMs) throw new Error('capture did not cover its subjects');
        await run(250);
      }
    },
    async stop(closeVenue = true) {
      await whileTicking(venue, capture.stop(), 0);
      const published = capture.stats().records;
      const deadline = Date.now() + (options.readBackMs ?? 5_000);
      while (records.length < published && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await stopCollecting();
      if (closeVenue) await venue.close();
    },
  };
}

/**
 * A market connection of capture taking frames by hand (`receive`), subscribed to token `tok-1`
 * (condition `cond-1`) and event `ev-1`, whose records go to `publish`.
 */
export function marketConnection(
  publish: (records: readonly ReceivedRecord[]) => void,
  counters: CaptureCounters,
  clock: Clock,
  books: TokenBooks,
  url = 'ws://127.0.0.1:9/trade/v1/market-stream',
): MarketConnection {
  // One update a record, written at once: what a frame makes is there when it returns.
  const feed = new MarketFeed({
    sink: { write: publish },
    clock,
    books,
    batch: { maxUpdates: 1, maxDelayMs: 0, maxBytes: 1 },
  });
  const owner: MarketOwner = {
    reseed: () => undefined,
    statusSeen: () => undefined,
    added: () => undefined,
    covered: () => undefined,
  };
  const connection = new MarketConnection(
    {
      url,
      token: null,
      budget: new ConnectionBudget(),
      clock,
      silenceMs: 30_000,
      log: createLogger('market-connection', 'silent'),
      counters,
      feed,
      owner,
    },
    'corpus',
  );
  connection.add(new Map([['tok-1', 'cond-1']]), ['ev-1']);
  return connection;
}
