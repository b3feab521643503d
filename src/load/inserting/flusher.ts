import { nowMicros } from '../../bus/record.ts';
import { Signal } from '../../bus/signal.ts';
import type { Logger } from '../../util/log.ts';
import type { Batch } from '../batching/batch.ts';
import type { BusCommits } from '../bus-commits.ts';
import type { TableName } from '../mapping/types.ts';
import { offsetRows, partitionKey, type OffsetsScope } from '../state/loader-offsets.ts';
import { retryForever, type RetryHooks } from './backoff.ts';
import { dropRecord, encodeTable, prepareBatch, type BatchContext, type PreparedBatch } from './prepare.ts';
import { errorSummary, refusedRow } from './warehouse-errors.ts';

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
  /** Called after each batch is stored (all its tables acknowledged). */
  onStored(prepared: PreparedBatch): void;
}

interface Entry {
  batch: Batch;
  prepared: Promise<PreparedBatch>;
  /** Rows it counts for in `queuedRows` (dead-lettering may change the batch's own count). */
  rows: number;
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
  readonly #lost = new Set<string>();
  readonly #idle = new Signal();
  #queuedRows = 0;
  #busy = false;
  #stored: PreparedBatch[] = [];
  #closing = false;
  #releasing = false;
  #down = false;
  #failing: { sinceMs: number; reason: string } | undefined;
  readonly done: Promise<void>;

  constructor(private readonly options: FlusherOptions) {
    this.done = this.#run();
  }

  /** Queues a batch; its encoding starts now. */
  enqueue(batch: Batch): void {
    this.#lost.delete(partitionKey(batch.topic, batch.partition));
    const prepared = prepareBatch(batch, this.options.context);
    prepared.catch(() => undefined); // surfaced by the round that awaits it
    this.#queue.push({ batch, prepared, rows: batch.rowCount });
    this.#queuedRows += batch.rowCount;
    this.#wake.notify();
  }

  /** Resolves once fewer than `maxQueuedRows` rows wait: deliveries hold back meanwhile. */
  async room(): Promise<void> {
    while (this.#queuedRows >= this.options.maxQueuedRows && !this.#closing && !this.#releasing) await this.#room.wait();
  }

  /** A partition went to another loader: its batches not yet recorded `before` are dropped. */
  forget(topic: string, partition: number): void {
    const key = partitionKey(topic, partition);
    this.#lost.add(key);
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
      if (this.#queue.length === 0) {
        if (this.#stored.length > 0) {
          this.#busy = true;
          await this.#record([]);
          this.#busy = false;
          continue;
        }
        this.#idle.notify();
        if (this.#closing) return;
        await this.#wake.wait();
        continue;
      }
      this.#busy = true;
      const round = this.#takeRound();
      const ready = await Promise.all(round.map(async (entry) => ({ entry, prepared: await this.#prepared(entry) })));
      const live = ready.filter(({ entry }) => !this.#lost.has(partitionKey(entry.batch.topic, entry.batch.partition)));
      this.#release(ready.filter((item) => !live.includes(item)).map(({ entry }) => entry));
      await this.#record(live.map(({ prepared }) => prepared));
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

  /** One loader_offsets insert: `after` for what was stored since the last one, `before` for `next`; then the commits. */
  async #record(next: readonly PreparedBatch[]): Promise<void> {
    const { scope } = this.options;
    const at = nowMicros();
    const stored = this.#stored;
    const rows = [...stored.flatMap((p) => offsetRows(p, 'after', scope, at)), ...next.flatMap((p) => offsetRows(p, 'before', scope, at))];
    if (rows.length > 0) await this.#retry(() => this.options.context.warehouse.insertRows('loader_offsets', rows));
    this.#stored = [];
    if (stored.length > 0) {
      void this.options.commits.commit(stored.map(({ batch }) => ({ topic: batch.topic, partition: batch.partition, next: batch.range.last + 1n })));
    }
  }

  async #send(prepared: PreparedBatch): Promise<void> {
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
    this.options.onStored(prepared);
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
    return retryForever(operation, hooks);
  }
}
