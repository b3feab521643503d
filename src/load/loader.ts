import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type {
  BatchOutcome,
  Batch as BusBatch,
  Bus,
  CommitPosition,
  Delivery,
  Subscription,
  TopicPartition,
} from '../bus/bus.ts';
import { SHORT_LANE_SUFFIXES, TOPICS } from '../bus/topics.ts';
import { createLogger, type Logger } from '../util/log.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';
import { BusCommits } from './bus-commits.ts';
import { PartitionBatcher, type BatchLimits, type PartitionStart } from './batching/partition-batcher.ts';
import { DEFAULT_BATCH_LIMITS } from './defaults.ts';
import { Flusher } from './inserting/flusher.ts';
import type { Batch } from './batching/batch.ts';
import { mapDelivery, type DeliverySource } from './mapping/map-delivery.ts';
import { openEpoch, recordDrained, type EpochScope } from './state/bus-coverage.ts';
import { recordExpired } from './state/bus-expiry.ts';
import { partitionKey, readPartitionStarts, type OffsetsScope } from './state/loader-offsets.ts';
import { backoffStep, GaveUp } from '../util/backoff.ts';
import { nowMicros, systemClock, type Clock } from '../util/clock.ts';

export interface LoaderOptions {
  bus: Bus;
  warehouse: Warehouse;
  /** Consumer group: loaders of one group share the partitions; the warehouse keeps its progress. */
  group: string;
  /** Topics to load (default: every topic of the catalogue). */
  topics?: readonly string[];
  /** Batch bounds (default: 50,000 rows, 32 MiB of raw payload, 1 s). */
  batch?: Partial<BatchLimits>;
  /**
   * Which run of the bus the offsets belong to. Default: '' on a durable bus (Kafka); on the
   * embedded bus, one id per bus instance (its offsets start again at 0 in every process), with
   * what a killed run left unstored recorded as gaps. Given explicitly, the caller vouches that
   * the bus keeps offsets and records across restarts under that name (no gaps are recorded).
   */
  busEpoch?: string;
  log?: Logger;
  /** Told of every batch once stored (the process's metrics: freshness, insert time). */
  onBatchStored?(stored: StoredBatch): void;
  /** The waits between retries (default: the system clock). */
  clock?: Clock;
}

/** A batch just stored: its records' receive times and how long its inserts took. */
export interface StoredBatch {
  topic: string;
  /** All of the batch's tables, retries included. */
  insertMs: number;
  storedAtUs: bigint;
  receivedAtUs: Iterable<bigint>;
}

export interface StopOptions {
  /** Give up retrying a failing warehouse after this long; what is unstored stays on the bus (default 30 s). */
  timeoutMs?: number;
}

export interface LoaderStats {
  /** Rows stored per table since the start. */
  rows: Record<string, number>;
  /** Dead letters written since the start (included in `rows.dead_letters`). */
  deadLetters: number;
  batches: number;
  /** Records on the bus the group has not committed, in total and per topic. */
  lag: number;
  lagByTopic: Record<string, number>;
  /** Rows cut into batches and not yet stored. */
  queuedRows: number;
  warehouseDown: boolean;
  /** Embedded bus: gaps recorded at the start for earlier runs that were killed. */
  busGapsRecorded: number;
  /** While warehouse calls fail (a table missing, the warehouse down): since when (wall-clock ms) and why. */
  failing?: { sinceMs: number; reason: string };
}

/** What a stop left behind: records the group had not stored when it ended, and why. */
export interface LoaderStopOutcome {
  unstoredRecords: number;
  reason?: string;
}

export interface Loaders {
  /** Stores and commits what is held, then leaves the group. */
  stop(options?: StopOptions): Promise<LoaderStopOutcome>;
  stats(): Promise<LoaderStats>;
  /**
   * Settles (it never rejects) with the error that ended an insert pipeline, a fault of the
   * loader's own and not the warehouse's (whose calls are retried for ever). Nothing more is stored
   * by this loader: stop it and start it again (a process exits, for its supervisor to restart).
   */
  readonly failed: Promise<Error>;
}

export { DEFAULT_BATCH_LIMITS } from './defaults.ts';

/**
 * The short lane: trades, quotes and market status go to the warehouse in rounds of their own, cut
 * every 200 ms at most, so that a burst of catalogue or account data (or of book changes) never
 * holds them behind it. Everything else goes in the bulk lane, cut by the batch bounds.
 */
const SHORT_LANE_TOPICS = SHORT_LANE_SUFFIXES; // the kinds' declarations say their topic's lane
export const SHORT_LANE_DELAY_MS = 200;

type LaneName = 'short' | 'bulk';

/** The lane of a topic of the catalogue (any prefix). */
export function laneOf(topic: string): LaneName {
  return SHORT_LANE_TOPICS.some((suffix) => topic === suffix || topic.endsWith(`.${suffix}`)) ? 'short' : 'bulk';
}

const epochs = new WeakMap<Bus, string>();

// Rows mapped between two pauses for I/O (a millisecond or two of work).
const YIELD_EVERY_ROWS = 1_000;

/** Retries of a failed subscription (1 s doubling up to 30 s) and of reading where partitions stand (0.5 s up to 5 s).
 */
const RESUBSCRIBE_BACKOFF = { firstMs: 1_000, maxMs: 30_000 };
const STARTS_BACKOFF = { firstMs: 500, maxMs: 5_000 };

/** The embedded bus's offsets are only meaningful within one instance: each gets its own epoch. */
function epochOf(bus: Bus): string {
  let epoch = epochs.get(bus);
  if (epoch === undefined) {
    epoch = randomUUID();
    epochs.set(bus, epoch);
  }
  return epoch;
}

/**
 * Starts loading `topics` from the bus into the warehouse, exactly once (see README.md in this
 * folder): batches per partition, their offset ranges recorded in `loader_offsets` before and
 * after each insert, deduplication tokens from the ranges, bus commits after the warehouse, and
 * progress read back from the warehouse on start.
 */
export async function startLoaders(options: LoaderOptions): Promise<Loaders> {
  // The short lane inserts through a session of its own: on chDB, one session runs one query at a
  // time, and a trade round must not wait behind a bulk round's insert (or a sync job's read).
  const shortLane = await options.warehouse.ownSession();
  const loader = new Loader(options, { short: shortLane, bulk: options.warehouse });
  try {
    await loader.start();
  } catch (error) {
    await shortLane.close().catch(() => undefined);
    throw error;
  }
  return {
    stop: async (stopOptions) => {
      try {
        return await loader.stop(stopOptions);
      } finally {
        await shortLane.close();
      }
    },
    stats: () => loader.stats(),
    failed: loader.failed,
  };
}

class Loader {
  readonly #bus: Bus;
  readonly #group: string;
  readonly #topics: readonly string[];
  readonly #limits: BatchLimits;
  readonly #scope: OffsetsScope;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #durable: boolean;
  readonly #batchers = new Map<string, PartitionBatcher | Promise<PartitionBatcher>>();
  readonly #stored = new Map<string, bigint>();
  readonly #shrunk = new Set<string>();
  readonly #rows: Record<string, number> = {};
  readonly #giveUp = new AbortController();
  readonly #commits: BusCommits;
  /** One insert pipeline per lane. */
  readonly #lanes = new Map<LaneName, Flusher>();
  readonly #laneLimits = new Map<LaneName, BatchLimits>();
  #assigned = new Set<string>();
  /** Grows with every assignment: work for an earlier one is abandoned. */
  #generation = 0;
  /** A rebalance began and the next assignment has not come yet: no delivery is taken. */
  #rebalancing = false;
  /** Why deliveries are paused: the warehouse is down, the insert queue is full. */
  #warehouseDown = false;
  #queueFull = false;
  /** Reading the assigned partitions' state is failing (the warehouse is down). */
  #startsFailing = false;
  #subscription: Subscription | undefined;
  #inBatch: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;
  #stopped: Promise<LoaderStopOutcome> | undefined;
  #deadLetters = 0;
  #batches = 0;
  #busGaps = 0;
  /** An insert pipeline ended by an error of its own: what stats() says until a restart. */
  #pipelineFailed: { sinceMs: number; reason: string } | undefined;
  #failedWith!: (error: Error) => void;
  readonly failed = new Promise<Error>((resolve) => (this.#failedWith = resolve));

  constructor(
    private readonly options: LoaderOptions,
    laneWarehouses: Record<LaneName, Warehouse>,
  ) {
    this.#bus = options.bus;
    this.#clock = options.clock ?? systemClock;
    this.#group = options.group;
    this.#topics = options.topics ?? TOPICS.topics.map((spec) => spec.name);
    this.#limits = { ...DEFAULT_BATCH_LIMITS, ...options.batch };
    this.#durable = options.busEpoch !== undefined || options.bus.durable;
    const epoch = options.busEpoch ?? (this.#durable ? '' : epochOf(options.bus));
    this.#scope = { group: options.group, epoch, loaderId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}` };
    this.#log = (options.log ?? createLogger('load')).child({ group: options.group });
    this.#commits = new BusCommits(() => this.#subscription, this.#log);
    for (const lane of ['short', 'bulk'] as const) {
      const limits =
        lane === 'short'
          ? { ...this.#limits, maxDelayMs: Math.min(this.#limits.maxDelayMs, SHORT_LANE_DELAY_MS) }
          : this.#limits;
      this.#laneLimits.set(lane, limits);
      const flusher = new Flusher({
        lane,
        context: { warehouse: laneWarehouses[lane], group: options.group, epoch },
        scope: this.#scope,
        commits: this.#commits,
        log: this.#log,
        giveUp: this.#giveUp.signal,
        clock: options.clock,
        maxQueuedRows: 4 * this.#limits.maxRows,
        // A round's `after` rows ride on the next round's `before` insert when one follows soon.
        afterDelayMs: limits.maxDelayMs,
        onWarehouseDown: () => this.#setFlow({ warehouseDown: true }),
        onWarehouseUp: () => this.#setFlow({ warehouseDown: this.#flushers.some((other) => other.warehouseDown) }),
        owns: (topic, partition) => this.#assigned.has(partitionKey(topic, partition)),
        onStored: (batch, insertMs) => this.#onStored(batch, insertMs),
      });
      flusher.done.catch((error: unknown) => {
        if (error instanceof GaveUp) return;
        this.#log.error({ err: error, lane }, 'the insert pipeline failed; nothing more is stored until a restart');
        this.#pipelineFailed ??= {
          sinceMs: Date.now(),
          reason: `the ${lane} lane's insert pipeline failed: ${String(error)}`,
        };
        this.#failedWith(error instanceof Error ? error : new Error(String(error)));
      });
      this.#lanes.set(lane, flusher);
    }
  }

  get #flushers(): Flusher[] {
    return [...this.#lanes.values()];
  }

  #flusherOf(topic: string): Flusher {
    return this.#lanes.get(laneOf(topic))!;
  }

  #onStored(batch: Batch, insertMs: number): void {
    this.#batches += 1;
    this.#stored.set(partitionKey(batch.topic, batch.partition), batch.range.last);
    for (const [table, rows] of batch.tables) {
      if (rows.length === 0) continue;
      this.#rows[table] = (this.#rows[table] ?? 0) + rows.length;
      if (table === 'dead_letters') this.#deadLetters += rows.length;
    }
    if (this.options.onBatchStored) {
      const receivedAtUs = Array.from(batch.records.values(), (record) => record.receivedAtUs);
      this.options.onBatchStored({ topic: batch.topic, insertMs, storedAtUs: nowMicros(), receivedAtUs });
    }
  }

  async start(): Promise<void> {
    if (!this.#durable) await this.#openEpoch();
    // Where each partition stands is read on each assignment, when the partition is ours.
    await this.#subscribe();
    const tick = Math.max(
      10,
      Math.min(100, Math.floor(Math.min(...[...this.#laneLimits.values()].map((l) => l.maxDelayMs)) / 10)),
    );
    this.#timer = setInterval(() => this.#sealDue(tick), tick);
    this.#timer.unref();
  }

  stop(options: StopOptions = {}): Promise<LoaderStopOutcome> {
    this.#stopped ??= this.#stop(options);
    return this.#stopped;
  }

  async #stop(options: StopOptions): Promise<LoaderStopOutcome> {
    let reason: string | undefined;
    const deadline = setTimeout(() => this.#giveUp.abort(), options.timeoutMs ?? 30_000);
    // The embedded bus forgets what it holds when the process ends: take all of it first (unless
    // an insert pipeline failed: nothing more would be stored).
    if (!this.#durable && !this.#pipelineFailed) await this.#drainBus();
    this.#stopping = true;
    clearInterval(this.#timer);
    try {
      this.#subscription?.pause();
      for (const flusher of this.#flushers) flusher.acceptAllRows();
      await this.#inBatch;
      for (const batcher of this.#batchers.values()) {
        if (batcher instanceof PartitionBatcher) {
          const batch = batcher.sealForStop();
          if (batch) this.#flusherOf(batch.topic).enqueue(batch);
        }
      }
      await Promise.all(this.#flushers.map((flusher) => flusher.close()));
      // A stop does not wait out a rebalance (another loader leaving at the same time) for its last commits.
      this.#commits.stopRetrying();
      await this.#commits.commit([]);
      if (!this.#durable) await this.#markDrained();
    } catch (error) {
      if (!(error instanceof GaveUp)) {
        await this.#subscription?.close();
        throw error;
      }
      reason = this.#flushers.find((flusher) => flusher.failing)?.failing?.reason ?? String(error.lastError);
      this.#log.warn({ reason }, 'stopped with the warehouse still failing; unstored records stay on the bus');
    } finally {
      clearTimeout(deadline);
    }
    try {
      // What the group has not committed is not stored (on the embedded bus: lost with the process).
      // (Kafka keeps them for the group's next reader; a lag that cannot be read is not a failed stop.)
      const lags = await this.#bus.lag(this.#group, this.#topics).catch(() => []);
      const unstoredRecords = lags.reduce((sum, entry) => sum + Number(entry.lag), 0);
      return { unstoredRecords, ...(reason === undefined ? {} : { reason }) };
    } finally {
      await this.#subscription?.close();
    }
  }

  async stats(): Promise<LoaderStats> {
    const lags = await this.#bus.lag(this.#group, this.#topics);
    const failing =
      this.#pipelineFailed ?? this.#flushers.map((flusher) => flusher.failing).find((reason) => reason !== undefined);
    const lagByTopic: Record<string, number> = {};
    let lag = 0;
    for (const entry of lags) {
      lag += Number(entry.lag);
      lagByTopic[entry.topic] = (lagByTopic[entry.topic] ?? 0) + Number(entry.lag);
    }
    return {
      rows: { ...this.#rows },
      deadLetters: this.#deadLetters,
      batches: this.#batches,
      lag,
      lagByTopic,
      queuedRows: this.#flushers.reduce((sum, flusher) => sum + flusher.queuedRows, 0),
      warehouseDown: this.#flushers.some((flusher) => flusher.warehouseDown) || this.#startsFailing,
      busGapsRecorded: this.#busGaps,
      ...(failing ? { failing } : {}),
    };
  }

  /** Waits until the group has committed everything on the bus (or the stop's deadline passes). */
  async #drainBus(): Promise<void> {
    while (!this.#giveUp.signal.aborted && this.#subscription) {
      const lags = await this.#bus.lag(this.#group, this.#topics);
      if (lags.every((entry) => entry.lag === 0n)) return;
      // The last partial batches are cut by the timer within the time bound.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * A clean stop with nothing left on the bus unstored: the next start records no gap for this
   * run. (With records left — producers still publishing — it records one, from the last stored.)
   */
  async #markDrained(): Promise<void> {
    const lags = await this.#bus.lag(this.#group, this.#topics);
    if (lags.every((entry) => entry.lag === 0n)) await recordDrained(this.#epochScope(), nowMicros());
  }

  #epochScope(): EpochScope {
    return { warehouse: this.options.warehouse, group: this.#group, epoch: this.#scope.epoch };
  }

  async #openEpoch(): Promise<void> {
    const partitions = (await this.#bus.lag(this.#group, this.#topics)).map(({ topic, partition }) => ({
      topic,
      partition,
    }));
    const opening = await openEpoch(this.#epochScope(), nowMicros(), partitions);
    this.#busGaps = opening.gaps;
    if (opening.gaps > 0)
      this.#log.warn(
        opening,
        'the embedded bus lost what it held unstored when an earlier run was killed: recorded as capture gaps',
      );
  }

  /** Deliveries flow unless the warehouse is down, the queue is full or the loader stops. */
  #setFlow(change: { warehouseDown?: boolean; queueFull?: boolean }): void {
    this.#warehouseDown = change.warehouseDown ?? this.#warehouseDown;
    this.#queueFull = change.queueFull ?? this.#queueFull;
    if (this.#warehouseDown || this.#queueFull || this.#stopping) this.#subscription?.pause();
    else this.#subscription?.resume();
  }

  /**
   * No room for more rows in a lane: deliveries pause (the batch handler returns, it does not wait —
   * a Kafka member waiting inside a batch cannot rejoin a rebalance) until that lane has room.
   */
  #full(flusher: Flusher): void {
    if (this.#queueFull) return;
    this.#setFlow({ queueFull: true });
    void flusher.untilRowsAccepted().then(() => this.#setFlow({ queueFull: false }));
  }

  async #subscribe(): Promise<void> {
    const subscription = await this.#bus.subscribe({
      group: this.#group,
      topics: this.#topics,
      onAssignment: (partitions) => this.#assign(partitions),
      onRevoke: () => this.#revoke(),
      onBatch: (batch) => {
        const handled = this.#take(batch);
        this.#inBatch = handled.then(
          () => undefined,
          () => undefined,
        );
        return handled;
      },
    });
    this.#subscription = subscription;
    void subscription.stopped.then((end) => {
      if (end.reason === 'failed' && !this.#stopping && this.#subscription === subscription)
        void this.#resubscribe(end.error);
    });
  }

  /** The bus stopped delivering (a Kafka consumer crash): once what is queued is stored, read again from the
   * warehouse's state. */
  async #resubscribe(error: unknown): Promise<void> {
    this.#log.warn({ err: error }, 'bus subscription failed; resubscribing once the queued batches are stored');
    for (const flusher of this.#flushers) flusher.resumeWithAssignment();
    await Promise.all(this.#flushers.map((flusher) => flusher.whenIdle()));
    this.#batchers.clear();
    this.#assigned = new Set();
    for (let attempt = 1; !this.#stopping; attempt++) {
      try {
        await this.#subscribe();
        return;
      } catch (failure) {
        this.#log.warn({ err: failure, attempt }, 'resubscribing failed; trying again');
        await this.#clock.sleep(backoffStep(attempt, RESUBSCRIBE_BACKOFF));
      }
    }
  }

  /**
   * A rebalance began (Kafka): the partitions may go to another loader, which reads their state
   * from `loader_offsets`. No delivery is taken and no round starts until the next assignment;
   * resolves once the round under way has its `before` rows written or given up.
   */
  #revoke(): Promise<void> {
    this.#rebalancing = true;
    return Promise.all(this.#flushers.map((flusher) => flusher.pauseForRebalance())).then(() => undefined);
  }

  /**
   * The partitions this loader now reads, and where each is read from. Lost ones drop what is
   * unstored (their new reader has it). Kept ones go on from what was taken. Gained ones start
   * from the warehouse's state, read now that they are ours — not at the start, nor before the
   * previous owner stopped — at the newest stored offset + 1 (ranges recorded `before` and never
   * `after` above it are rebuilt exactly). Kafka's committed offsets do not decide anything: a
   * warehouse restored from a backup, or `loader_offsets` rows removed, make the loader read
   * again what Kafka still holds.
   */
  #assign(partitions: readonly TopicPartition[]): Promise<CommitPosition[]> {
    const generation = ++this.#generation;
    const next = new Set(partitions.map(({ topic, partition }) => partitionKey(topic, partition)));
    for (const key of this.#assigned) {
      if (next.has(key)) continue;
      const [topic, partition] = splitKey(key);
      this.#batchers.delete(key);
      this.#flusherOf(topic).dropPartition(topic, partition);
      this.#commits.forget(topic, partition);
    }
    // Gained: new to this loader, or kept but whose state was still being read for an assignment
    // now superseded (that read is abandoned).
    const gained = [...next].filter(
      (key) => !this.#assigned.has(key) || !(this.#batchers.get(key) instanceof PartitionBatcher),
    );
    this.#assigned = next;
    this.#rebalancing = false;
    for (const flusher of this.#flushers) flusher.resumeWithAssignment();
    const positions: CommitPosition[] = [];
    for (const key of next) {
      const batcher = this.#batchers.get(key);
      if (batcher instanceof PartitionBatcher)
        positions.push({ topic: batcher.topic, partition: batcher.partition, next: batcher.taken + 1n });
    }
    if (gained.length === 0) return Promise.resolve(positions);
    const starts = this.#readStarts(generation);
    starts.catch(() => undefined);
    for (const key of gained) {
      const [topic, partition] = splitKey(key);
      const batcher = starts.then((map) => {
        const start = map.get(key) ?? { stored: -1n, unfinished: [] };
        this.#stored.set(key, start.stored);
        return new PartitionBatcher(topic, partition, start, this.#laneLimits.get(laneOf(topic))!);
      });
      batcher.catch(() => undefined); // superseded: the next assignment reads again
      this.#batchers.set(key, batcher);
    }
    return starts.then((map) => [
      ...positions,
      ...gained.map((key) => ({
        topic: splitKey(key)[0],
        partition: splitKey(key)[1],
        next: (map.get(key)?.stored ?? -1n) + 1n,
      })),
    ]);
  }

  /** The partitions' state, read again until the warehouse answers (or another assignment came). */
  async #readStarts(generation: number): Promise<Map<string, PartitionStart>> {
    for (let attempt = 1; ; attempt++) {
      try {
        const starts = await readPartitionStarts(this.options.warehouse.client, this.#scope, this.#topics, (late) =>
          this.#log.warn(
            { topic: late.topic, partition: late.partition, first: String(late.first), last: String(late.last) },
            'a range a killed loader recorded after this one read where storing stood is left out: its rows were never sent',
          ),
        );
        this.#startsFailing = false;
        return starts;
      } catch (error) {
        this.#startsFailing = true;
        if (generation !== this.#generation || this.#stopping) throw error;
        this.#log.warn({ attempt, err: error }, 'reading where the assigned partitions stand failed; trying again');
        await this.#clock.sleep(backoffStep(attempt, STARTS_BACKOFF));
      }
    }
  }

  async #take(batch: BusBatch): Promise<BatchOutcome | void> {
    const key = partitionKey(batch.topic, batch.partition);
    const first = batch.messages[0];
    // Not ours (any more), or stopping: left uncommitted, for the group's next reader.
    if (!this.#assigned.has(key) || this.#stopping || !first) return;
    // A rebalance under way, or no room: read again from here later.
    if (this.#rebalancing) return { next: first.offset };
    const flusher = this.#flusherOf(batch.topic);
    if (!flusher.acceptsRows) {
      this.#full(flusher);
      return { next: first.offset };
    }
    const pending = this.#batchers.get(key);
    if (pending === undefined) return;
    let batcher: PartitionBatcher;
    try {
      batcher = await pending;
    } catch {
      return { next: first.offset }; // its state was read for an assignment since superseded
    }
    if (this.#batchers.get(key) !== pending && this.#batchers.get(key) !== batcher) return; // lost meanwhile
    this.#batchers.set(key, batcher);
    if (this.#durable && first.offset > batcher.taken + 1n) {
      const resumeAt = await this.#jumped(batch.topic, batch.partition, batcher, first);
      if (resumeAt !== undefined) return { next: resumeAt };
    }
    const source: DeliverySource = { topic: batch.topic, partition: batch.partition, group: this.#group };
    let last = -1n;
    let sinceYield = 0;
    for (const delivery of batch.messages) {
      if (this.#stopping || this.#batchers.get(key) !== batcher) return; // lost meanwhile, or stopping
      if (this.#rebalancing) return { next: delivery.offset };
      if (!flusher.acceptsRows) {
        this.#full(flusher);
        return { next: delivery.offset };
      }
      last = delivery.offset;
      if (!batcher.takes(delivery.offset)) continue;
      const rows = mapDelivery(delivery, source);
      const sealed = batcher.add(delivery.offset, rows, delivery.ok ? delivery.record : undefined);
      for (const done of sealed) flusher.enqueue(done);
      sinceYield += rows.length;
      // Every so often, and whenever a batch is cut, let I/O in: the inserts' answers come back
      // as I/O callbacks, and a thread that maps on without a pause would leave the engine idle
      // waiting for the next round to be sent.
      if (sealed.length > 0 || sinceYield >= YIELD_EVERY_ROWS) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    // Redelivered records that were already stored: move the group's position past them.
    const stored = this.#stored.get(key) ?? -1n;
    if (last >= 0n && last <= stored)
      void this.#commits.commit([{ topic: batch.topic, partition: batch.partition, next: last + 1n }]);
    if (batch.highWatermark <= stored && !this.#shrunk.has(key)) {
      // The partition ends below what this group stored: the topic was deleted and created again
      // (offsets start over), so new records would pass for stored ones. Say so loudly.
      this.#shrunk.add(key);
      this.#log.error(
        { topic: batch.topic, partition: batch.partition, end: String(batch.highWatermark), stored: String(stored) },
        'partition ends below the offsets already stored: was the topic recreated? records at stored offsets are skipped; load it under a new group',
      );
    }
  }

  /**
   * The bus handed over a record past the next one this group needs. Only Kafka's log start can
   * say the records in between are gone (retention ran out): then they are a recorded gap. While
   * Kafka still holds them (a delivery from a stale position), they are read again instead.
   * Returns where to read from, or undefined to go on with this batch.
   */
  async #jumped(
    topic: string,
    partition: number,
    batcher: PartitionBatcher,
    first: Delivery,
  ): Promise<bigint | undefined> {
    const wanted = batcher.taken + 1n;
    const logStart = (await this.#bus.logStarts(topic)).get(partition) ?? 0n;
    if (logStart <= wanted) {
      this.#log.warn(
        { topic, partition, wanted: String(wanted), delivered: String(first.offset) },
        'the bus delivered from past the stored position while it still holds the records between: reading them again',
      );
      return wanted;
    }
    const resumed = first.offset <= logStart ? first : undefined;
    const range = {
      topic,
      partition,
      firstMissing: wanted,
      lastMissing: logStart - 1n,
      resumedAtUs: resumed?.ok ? resumed.record.receivedAtUs : nowMicros(),
    };
    this.#log.error(
      { topic, partition, firstMissing: String(range.firstMissing), lastMissing: String(range.lastMissing) },
      'the bus deleted records before this group stored them (retention ran out): recorded as a capture gap',
    );
    await recordExpired(this.options.warehouse, this.#scope, range, nowMicros());
    batcher.skipTo(logStart);
    // The first record kept lies before this batch: read from it.
    return first.offset > logStart ? logStart : undefined;
  }

  /**
   * A lane's open batches all go once its oldest record will have waited the lane's time bound
   * within `aheadMs` (the time until the timer looks again): one round then carries all of its
   * partitions, rather than one round per partition as each comes due.
   */
  #sealDue(aheadMs: number): void {
    const now = performance.now();
    for (const [lane, limits] of this.#laneLimits) {
      const open: PartitionBatcher[] = [];
      let oldest = Infinity;
      for (const batcher of this.#batchers.values()) {
        if (!(batcher instanceof PartitionBatcher) || laneOf(batcher.topic) !== lane) continue;
        const since = batcher.openSince;
        if (since === undefined) continue;
        open.push(batcher);
        if (since < oldest) oldest = since;
      }
      if (open.length === 0 || now + aheadMs - oldest < limits.maxDelayMs) continue;
      const flusher = this.#lanes.get(lane)!;
      for (const batcher of open) {
        const batch = batcher.sealOpen();
        if (batch) flusher.enqueue(batch);
      }
    }
  }
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf('\u0000');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
