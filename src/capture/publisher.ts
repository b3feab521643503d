import { BusError, type Bus } from '../bus/bus.ts';
import type { ReceivedRecord } from '../bus/record.ts';
import type { TopicCatalogue } from '../bus/topics.ts';
import { backoffStep } from '../util/backoff.ts';
import type { Logger } from '../util/log.ts';
import { isoToMicros, qualityRecord, type RecordSink } from './frames/index.ts';
import { readBookUpdates } from '../records/index.ts';
import type { Clock } from '../util/clock.ts';

interface TopicQueue {
  pending: ReceivedRecord[];
  /** The earliest instant a pending record accounts for (µs): see accountsFromUs. */
  pendingSinceUs: bigint | null;
  /** Same for the batch being published now. */
  inFlightSinceUs: bigint | null;
  inFlight: number;
  running: boolean;
}

/**
 * The earliest instant a record accounts for: when it was handed over, or for a gap the start of
 * the loss it records. Until a gap record is durable, coverage may not be claimed past its start:
 * a capture killed with it unpublished would otherwise leave that loss recorded nowhere.
 */
function accountsFromUs(record: ReceivedRecord, handedOverUs: bigint): bigint {
  if (record.kind !== 'capture_gap') return handedOverUs;
  const start = isoToMicros((record.payload as { gap_start?: string | null }).gap_start ?? null);
  return start !== null && start < handedOverUs ? start : handedOverUs;
}

/**
 * Hands capture's records to the bus: per topic in order, one publish at a time, batching what
 * piles up meanwhile. It knows up to when everything handed over is durable, which is what the
 * coverage marks may claim. A publish that fails is retried (records carry natural keys, so a
 * retry that stored twice is deduplicated by the loader); a record the bus refuses as too large
 * becomes a data-quality record saying so.
 */
export interface RecordPublisherOptions {
  bus: Bus;
  topics: TopicCatalogue;
  clock: Clock;
  log?: Logger;
  /** First wait after a failed publish (doubling up to 30 s; default 1 s). */
  retryDelayMs?: number;
  /**
   * Called with true when more than `highWater` records wait for the bus (stop reading the
   * venue), with false once fewer than `lowWater` do: a slow bus slows capture down instead of
   * growing its memory without bound.
   */
  onPressure?(slowDown: boolean): void;
  /** Default 50 000 and a fifth of it. */
  highWater?: number;
  lowWater?: number;
}

/** Gap records a bus that is not durable holds: published, not yet committed by every reader. */
interface UnstoredGaps {
  topic: string;
  /** Each partition's end right after they were appended. */
  ends: readonly number[];
  /** The earliest gap start among them. */
  sinceUs: bigint;
}

export class RecordPublisher implements RecordSink {
  readonly #queues = new Map<string, TopicQueue>();
  #unstoredGaps: UnstoredGaps[] = [];
  readonly #idle: Array<() => void> = [];
  #stopped = false;
  #pressed = false;
  published = 0;
  byKind = new Map<string, number>();
  private readonly bus: Bus;
  private readonly topics: TopicCatalogue;
  private readonly clock: Clock;
  private readonly log: Logger | undefined;
  private readonly retryDelayMs: number;
  private readonly onPressure: (slowDown: boolean) => void;
  private readonly highWater: number;
  private readonly lowWater: number;

  constructor(options: RecordPublisherOptions) {
    this.bus = options.bus;
    this.topics = options.topics;
    this.clock = options.clock;
    this.log = options.log;
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
    this.onPressure = options.onPressure ?? (() => undefined);
    this.highWater = options.highWater ?? 50_000;
    this.lowWater = options.lowWater ?? Math.floor(this.highWater / 5);
  }

  /** The sink's side: the same as `push`. */
  write(records: readonly ReceivedRecord[]): void {
    this.push(records);
  }

  push(records: readonly ReceivedRecord[]): void {
    const now = this.clock.epochMicros();
    for (const record of records) {
      const topic = this.topics.topicFor(record.kind);
      let queue = this.#queues.get(topic);
      if (!queue) {
        queue = { pending: [], pendingSinceUs: null, inFlightSinceUs: null, inFlight: 0, running: false };
        this.#queues.set(topic, queue);
      }
      const since = accountsFromUs(record, now);
      if (queue.pendingSinceUs === null || since < queue.pendingSinceUs) queue.pendingSinceUs = since;
      queue.pending.push(record);
      if (!queue.running) void this.#pump(topic, queue);
    }
    if (!this.#pressed && this.queued > this.highWater) {
      this.#pressed = true;
      this.log?.warn({ queued: this.queued }, 'the bus is slower than the venue: pausing the streams');
      this.onPressure(true);
    }
  }

  /** Records handed over and not yet durable. */
  get queued(): number {
    let n = 0;
    for (const q of this.#queues.values()) n += q.pending.length + q.inFlight;
    return n;
  }

  /**
   * Everything handed over before this instant is durable on the bus (on a bus that is not
   * durable, a gap record counts once every reader has committed past it).
   */
  durableThroughUs(): bigint {
    let through = this.clock.epochMicros();
    this.#unstoredGaps = this.#unstoredGaps.filter((gaps) => !this.#storedByReaders(gaps));
    for (const gaps of this.#unstoredGaps) if (gaps.sinceUs < through) through = gaps.sinceUs;
    // Both, not the in-flight batch alone: a gap record queued behind it accounts from its gap's
    // start, which can be older than anything in flight.
    for (const q of this.#queues.values())
      for (const since of [q.inFlightSinceUs, q.pendingSinceUs]) if (since !== null && since < through) through = since;
    return through;
  }

  #storedByReaders(gaps: UnstoredGaps): boolean {
    const positions = this.bus.readerPositions?.(gaps.topic) ?? [];
    return gaps.ends.every((end, partition) => (positions[partition]?.uncommitted ?? end) >= end);
  }

  /** On a bus that is not durable, published gap records wait for its readers (see durableThroughUs). */
  #noteUnstoredGaps(topic: string, published: readonly ReceivedRecord[]): void {
    if (!this.bus.readerPositions) return;
    const nowUs = this.clock.epochMicros();
    let sinceUs: bigint | null = null;
    for (const record of published) {
      if (record.kind !== 'capture_gap') continue;
      const since = accountsFromUs(record, nowUs);
      if (sinceUs === null || since < sinceUs) sinceUs = since;
    }
    if (sinceUs === null) return;
    this.#unstoredGaps.push({ topic, ends: this.bus.readerPositions(topic).map((p) => p.end), sinceUs });
  }

  /** Resolves once everything handed over so far is durable (or given up at stop). */
  drain(): Promise<void> {
    if ([...this.#queues.values()].every((q) => !q.running)) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Stops retrying failed publishes (what is in flight still completes). */
  stop(): void {
    this.#stopped = true;
  }

  async #pump(topic: string, queue: TopicQueue): Promise<void> {
    queue.running = true;
    while (queue.pending.length > 0) {
      const batch = queue.pending;
      queue.inFlightSinceUs = queue.pendingSinceUs;
      queue.inFlight = batch.length;
      queue.pending = [];
      queue.pendingSinceUs = null;
      await this.#publish(topic, batch);
      queue.inFlightSinceUs = null;
      queue.inFlight = 0;
      if (this.#pressed && this.queued < this.lowWater) {
        this.#pressed = false;
        this.onPressure(false);
      }
    }
    queue.running = false;
    if ([...this.#queues.values()].every((q) => !q.running)) for (const resolve of this.#idle.splice(0)) resolve();
  }

  async #publish(topic: string, batch: ReceivedRecord[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.bus.publish(topic, batch);
        this.#published(topic, batch);
        return;
      } catch (err) {
        if (err instanceof BusError && err.code === 'record_too_large') return this.#publishOneByOne(topic, batch);
        if ((err instanceof BusError && err.code === 'closed') || this.#stopped) {
          this.log?.error({ err, topic, records: batch.length }, 'capture records not published: the bus is closed');
          return;
        }
        this.log?.warn({ err, topic, records: batch.length, attempt }, 'publishing capture records failed; retrying');
        await this.clock.sleep(backoffStep(attempt, { firstMs: this.retryDelayMs, maxMs: 30_000 }));
      }
    }
  }

  /** Finds the records the bus refuses as too large; each becomes a data-quality record. */
  async #publishOneByOne(topic: string, batch: ReceivedRecord[]): Promise<void> {
    for (let i = 0; i < batch.length; i++) {
      const record = batch[i]!;
      try {
        await this.bus.publish(topic, [record]);
        this.#published(topic, [record]);
      } catch (err) {
        if (!(err instanceof BusError && err.code === 'record_too_large')) return this.#publish(topic, batch.slice(i));
        const p = (record.payload ?? {}) as Record<string, unknown>;
        const conditionId =
          typeof p.condition_id === 'string'
            ? p.condition_id
            : record.kind === 'book_change'
              ? readBookUpdates(record)[0]!.conditionId || null
              : null;
        const origin = {
          connectionId: record.source.type === 'stream' ? record.source.connection : 'sync',
          frameNo: record.source.type === 'stream' ? record.source.frame : 0,
          receivedAtUs: record.receivedAtUs,
        };
        const note = qualityRecord(
          {
            problem: 'record_too_large',
            detail: `${record.kind} record refused by the bus: ${err.message}`,
            stream: 'market',
            conditionId,
          },
          origin,
          record.venueTime,
          record.raw,
        );
        await this.#publish(this.topics.topicFor('data_quality'), [note]);
      }
    }
  }

  #published(topic: string, records: readonly ReceivedRecord[]): void {
    this.#noteUnstoredGaps(topic, records);
    this.published += records.length;
    for (const r of records) this.byKind.set(r.kind, (this.byKind.get(r.kind) ?? 0) + 1);
  }
}
