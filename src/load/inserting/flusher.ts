import { Signal } from '../../bus/signal.ts';
import type { Logger } from '../../util/log.ts';
import type { Batch } from '../batching/batch.ts';
import type { BusCommits } from '../bus-commits.ts';
import type { TableName } from '../mapping/types.ts';
import { offsetRows, partitionKey, type OffsetsScope } from '../state/loader-offsets.ts';
import { dropRecord, encodeTable, prepareBatch, type BatchContext, type PreparedBatch } from './prepare.ts';
import { errorSummary, refusedRow } from './warehouse-errors.ts';
import { retryForever, type RetryHooks } from '../../util/backoff.ts';
import { nowMicros, type Clock } from '../../util/clock.ts';

export interface FlusherOptions {
  context: BatchContext;
  scope: OffsetsScope;
  commits: BusCommits;
  log: Logger;
  /** Called when the warehouse starts failing and when it answers again (pause and resume the bus). */
  onWarehouseDown(): void;
  onWarehouseUp(): void;
  /** Aborted at a stop's deadline: retries end and what is unstored stays on the bus. */
  giveUp: AbortSignal;
  /** Deliveries wait (`room()`) while more rows than this are queued. */
  maxQueuedRows: number;
  /** Called after each batch is stored (all its tables acknowledged), with the time that took. */
  onStored(prepared: PreparedBatch, insertMs: number): void;
  /** The waits between retries (default: the system clock). */
  clock?: Clock;
}

interface Entry {
  batch: Batch;
  prepared: Promise<PreparedBatch>;
  /** Rows it counts for in `queuedRows` (dead-lettering may change the batch's own count). */
  rows: number;
  /** The partition's ownership when it was cut: a batch of an ownership since lost is never recorded `before`. */
  owned: number;
}

// A round records at most this many batches in one loader_offsets insert.
const MAX_ROUND = 64;

/**
 * The insert pipeline. Batches are encoded as soon as they are cut (on the JS thread, while the
 * previous insert runs in the engine), then go out in rounds:
 *
 *   1. one loader_offsets insert: `after` for the previous round, `before` for this one;
 *   2. bus commits for the previous round (its `after` is now durable);
 *   3. the batches' inserts, all handed to the engine at once (each batch's tables in order),
 *      each table with its deduplication token;
 * and when nothing else waits, the round's `after` rows and commits right away.
 *
 * Every warehouse call is retried with backoff while the warehouse is down (the bus is paused
 * meanwhile); a value the engine refuses makes that record a dead letter instead.
 */
export class Flusher {
  readonly #queue: Entry[] = [];
  readonly #wake = new Signal();
  readonly #room = new Signal();
  /** Per partition, how often it was lost: batches cut before the last loss are stale. */
  readonly #losses = new Map<string, number>();
  readonly #idle = new Signal();
  #queuedRows = 0;
  #busy = false;
  #stored: PreparedBatch[] = [];
  #closing = false;
  #releasing = false;
  #down = false;
  /** A rebalance is under way: no new round (no `before` row) until `release()`. */
  #held = false;
  /** The `before` rows of the round under way, until the warehouse took them or the round gave them up. */
  #recordingBefore: Promise<unknown> | undefined;
  #failing: { sinceMs: number; reason: string } | undefined;
  readonly done: Promise<void>;

  constructor(private readonly options: FlusherOptions) {
    this.done = this.#run();
  }

  /** Queues a batch; its encoding starts now. */
  enqueue(batch: Batch): void {
    const prepared = prepareBatch(batch, this.options.context);
    prepared.catch(() => undefined); // surfaced by the round that awaits it
    this.#queue.push({ batch, prepared, rows: batch.rowCount, owned: this.#losses.get(partitionKey(batch.topic, batch.partition)) ?? 0 });
    this.#queuedRows += batch.rowCount;
    this.#wake.notify();
  }

  /** Whether a delivery may add rows now (fewer than `maxQueuedRows` wait). */
  get hasRoom(): boolean {
    return this.#queuedRows < this.options.maxQueuedRows || this.#closing || this.#releasing;
  }

  /** Resolves once there is room again. */
  async room(): Promise<void> {
    while (!this.hasRoom) await this.#room.wait();
  }

  /**
   * A rebalance began: the partitions may go to another loader, which will read their state from
   * `loader_offsets`. No new round starts; resolves once the round under way has its `before`
   * rows in the warehouse or has given them up (then they are never written). Inserts already
   * recorded `before` go on: the new owner rebuilds those ranges with the same tokens.
   */
  hold(): Promise<void> {
    this.#held = true;
    return Promise.resolve(this.#recordingBefore).then(() => undefined, () => undefined);
  }

  /** The new assignment is known (lost partitions forgotten): rounds go on. */
  release(): void {
    this.#held = false;
    this.#wake.notify();
  }

  /**
   * A partition went to another loader: its batches not yet recorded `before` are dropped — also
   * those of the round under way, whose `before` insert is still being retried.
   */
  forget(topic: string, partition: number): void {
    const key = partitionKey(topic, partition);
    this.#losses.set(key, (this.#losses.get(key) ?? 0) + 1);
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      const entry = this.#queue[i]!;
      if (partitionKey(entry.batch.topic, entry.batch.partition) === key) {
        this.#queue.splice(i, 1);
        this.#queuedRows -= entry.rows;
      }
    }
    this.#room.notify();
  }

  /** Rows queued and not yet stored. */
  get queuedRows(): number {
    return this.#queuedRows;
  }

  /** Whether a warehouse call is failing now (the loader is waiting for it). */
  get warehouseDown(): boolean {
    return this.#down;
  }

  /** Since when (wall-clock ms) and why the warehouse calls fail, while they do. */
  get failing(): { sinceMs: number; reason: string } | undefined {
    return this.#failing && { ...this.#failing };
  }

  /**
   * A batch's encoding, retried like the inserts when it fails for a reason other than a value
   * (those are dead letters already): a table that is missing holds the batch, visibly, instead
   * of ending the pipeline.
   */
  #prepared(entry: Entry): Promise<PreparedBatch> {
    return this.#retry(async () => {
      try {
        return await entry.prepared;
      } catch (error) {
        entry.prepared = prepareBatch(entry.batch, this.options.context);
        entry.prepared.catch(() => undefined);
        throw error;
      }
    });
  }

  /** Resolves once everything queued is stored and recorded `after`. */
  async whenIdle(): Promise<void> {
    while (this.#busy || this.#queue.length > 0 || this.#stored.length > 0) await this.#idle.wait();
  }

  /** Lets deliveries waiting for room go on (a stop is about to store what they hold). */
  releaseWaiters(): void {
    this.#releasing = true;
    this.#room.notify();
  }

  /** Stores what is queued, records it `after`, commits, then ends. */
  close(): Promise<void> {
    this.#closing = true;
    this.#wake.notify();
    this.#room.notify();
    return this.done;
  }

  async #run(): Promise<void> {
    for (;;) {
      if (this.#queue.length === 0 || this.#held) {
        if (this.#stored.length > 0) {
          this.#busy = true;
          await this.#record<{ entry: Entry; prepared: PreparedBatch }>([]);
          this.#busy = false;
          continue;
        }
        this.#idle.notify();
        // Stopping in the middle of a rebalance: what is queued may no longer be ours; it stays on the bus.
        if (this.#closing) return;
        await this.#wake.wait();
        continue;
      }
      this.#busy = true;
      const round = this.#takeRound();
      const recording = (async () => {
        const ready = await Promise.all(round.map(async (entry) => ({ entry, prepared: await this.#prepared(entry) })));
        return { ready, live: await this.#record(ready) };
      })();
      this.#recordingBefore = recording;
      const { ready, live } = await recording;
      this.#recordingBefore = undefined;
      // Not recorded: lost to another loader (dropped), or held back by a rebalance (queued again,
      // first, for once the new assignment says whether they are still ours).
      const left = ready.filter((item) => !live.includes(item));
      this.#queue.unshift(...left.filter(({ entry }) => !this.#stale(entry)).map(({ entry }) => entry));
      this.#release(left.filter(({ entry }) => this.#stale(entry)).map(({ entry }) => entry));
      // The round's batches go to the engine together: it takes the next insert as soon as it is
      // done with one, without waiting for the JS thread (busy encoding the next batches) to ask.
      // Each batch frees its room in the queue as soon as it is stored.
      const sent = await Promise.allSettled(
        live.map(async ({ entry, prepared }) => {
          await this.#send(prepared);
          this.#release([entry]);
        }),
      );
      const failed = sent.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      this.#stored = live.map(({ prepared }) => prepared);
      this.#busy = false;
    }
  }

  /**
   * The next round: the oldest queued batch of each partition, MAX_ROUND at most. One per partition
   * keeps at most two of a partition between `before` and `after` at any instant (this round's,
   * and the previous round's until this round's offsets insert records its `after`), which is all
   * a restart has to look for.
   */
  #takeRound(): Entry[] {
    const round: Entry[] = [];
    const partitions = new Set<string>();
    for (let i = 0; i < this.#queue.length && round.length < MAX_ROUND; ) {
      const entry = this.#queue[i]!;
      const key = partitionKey(entry.batch.topic, entry.batch.partition);
      if (partitions.has(key)) {
        i++;
        continue;
      }
      partitions.add(key);
      round.push(entry);
      this.#queue.splice(i, 1);
    }
    return round;
  }

  #release(entries: readonly Entry[]): void {
    if (entries.length === 0) return;
    for (const entry of entries) this.#queuedRows -= entry.rows;
    this.#room.notify();
  }

  /** Whether the partition was lost since the entry's batch was cut. */
  #stale(entry: Entry): boolean {
    return (this.#losses.get(partitionKey(entry.batch.topic, entry.batch.partition)) ?? 0) !== entry.owned;
  }

  /**
   * One loader_offsets insert: `after` for what was stored since the last one, `before` for the
   * batches of `next` still ours; then the commits. Returns the batches recorded `before`. Every
   * attempt leaves out those lost meanwhile, and all of them once a rebalance began: a partition
   * handed to another loader (during an outage, say) gets no late `before` row from here.
   */
  async #record<T extends { entry: Entry; prepared: PreparedBatch }>(next: readonly T[]): Promise<T[]> {
    const { scope } = this.options;
    const stored = this.#stored;
    let live: T[] = [];
    const rowsNow = () => {
      const at = nowMicros();
      live = this.#held ? [] : next.filter(({ entry }) => !this.#stale(entry));
      return [...stored.flatMap((p) => offsetRows(p, 'after', scope, at)), ...live.flatMap(({ prepared }) => offsetRows(prepared, 'before', scope, at))];
    };
    if (rowsNow().length > 0) await this.#retry(() => this.options.context.warehouse.insertRows('loader_offsets', rowsNow()));
    this.#stored = [];
    if (stored.length > 0) {
      void this.options.commits.commit(stored.map(({ batch }) => ({ topic: batch.topic, partition: batch.partition, next: batch.range.last + 1n })));
    }
    return live;
  }

  async #send(prepared: PreparedBatch): Promise<void> {
    const started = performance.now();
    for (let i = 0; i < prepared.inserts.length; i++) {
      for (;;) {
        const insert = prepared.inserts[i]!;
        const refused = await this.#retry(async () => {
          try {
            await insert.prepared.send();
            return undefined;
          } catch (error) {
            const row = refusedRow(error);
            if (row === undefined || insert.table === 'dead_letters') throw error;
            return { row, error };
          }
        });
        if (!refused) break;
        await this.#deadLetterRefused(prepared, i, refused.row, refused.error);
      }
    }
    this.options.onStored(prepared, performance.now() - started);
  }

  /** The engine refused a row's value: its record leaves that table as a dead letter; the table and the dead letters are encoded again. */
  async #deadLetterRefused(prepared: PreparedBatch, index: number, row: number, error: unknown): Promise<void> {
    const { batch, inserts } = prepared;
    const table: TableName = inserts[index]!.table;
    const offset = inserts[index]!.rows[row]?._offset;
    if (typeof offset !== 'bigint') throw error;
    this.options.log.warn({ table, topic: batch.topic, partition: batch.partition, offset: String(offset), reason: errorSummary(error) }, 'warehouse refused a row: dead letter');
    dropRecord(batch, offset, table, 'rejected_by_warehouse', errorSummary(error), this.options.context, table);
    inserts[index] = await encodeTable(batch, table, this.options.context);
    inserts[inserts.length - 1] = await encodeTable(batch, 'dead_letters', this.options.context);
  }

  #retry<T>(operation: () => Promise<T>): Promise<T> {
    const hooks: RetryHooks = {
      giveUp: this.options.giveUp,
      onFailure: (error, attempt, waitMs) => {
        const reason = errorSummary(error);
        this.#failing = { sinceMs: this.#failing?.sinceMs ?? Date.now(), reason };
        this.options.log.warn({ attempt, waitMs, reason }, 'warehouse call failed; retrying');
        if (!this.#down) {
          this.#down = true;
          this.options.onWarehouseDown();
        }
      },
      onRecovered: () => {
        this.#failing = undefined;
        this.#down = false;
        this.options.onWarehouseUp();
      },
    };
    return retryForever(operation, hooks, { clock: this.options.clock, what: 'the warehouse' });
  }
}
