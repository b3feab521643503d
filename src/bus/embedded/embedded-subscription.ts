import {
  BusError,
  type Batch,
  type CommitPosition,
  type Delivery,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionEnd,
} from '../bus.ts';
import type { LogEntry, PartitionLog } from './partition-log.ts';
import { Signal } from '../signal.ts';

/** What a subscription needs from the bus that owns it. */
export interface SubscriptionHost {
  commit(group: string, positions: readonly CommitPosition[]): void;
  leave(subscription: EmbeddedSubscription): void;
}

/** Where the subscription is in one topic-partition. */
interface Cursor {
  topic: string;
  partition: number;
  log: PartitionLog;
  position: number;
}

/**
 * One subscriber of the embedded bus: delivers each partition's records from the group's last
 * commit, one batch at a time, visiting partitions in turn so a busy one does not starve the rest.
 */
export class EmbeddedSubscription implements Subscription {
  readonly stopped: Promise<SubscriptionEnd>;
  private endWith!: (end: SubscriptionEnd) => void;
  private readonly wake = new Signal();
  private readonly cursors: Cursor[];
  private turn = 0;
  private paused = false;
  private closing = false;
  private ended = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly host: SubscriptionHost,
    private readonly options: SubscribeOptions,
    logs: ReadonlyMap<string, readonly PartitionLog[]>,
    starts: ReadonlyMap<string, readonly number[]>,
    private readonly maxBatchRecords: number,
  ) {
    this.stopped = new Promise((resolve) => (this.endWith = resolve));
    this.cursors = options.topics.flatMap((topic) =>
      logs.get(topic)!.map((log, partition) => ({ topic, partition, log, position: starts.get(topic)![partition]! })),
    );
  }

  get group(): string {
    return this.options.group;
  }

  reads(topic: string): boolean {
    return this.options.topics.includes(topic);
  }

  /** Starts delivering on a later turn, once whoever subscribed holds the subscription. */
  start(): void {
    this.loop = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.run());
  }

  /** Called by the bus when records were appended to one of the topics. */
  notify(): void {
    this.wake.notify();
  }

  async commit(positions: readonly CommitPosition[]): Promise<void> {
    if (this.closing || this.ended) throw new BusError('closed', `subscription of group ${this.group} is closed`);
    for (const { topic } of positions) {
      if (!this.reads(topic))
        throw new BusError('bad_commit', `group ${this.group} is not subscribed to ${topic} here`);
    }
    this.host.commit(this.group, positions);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake.notify();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.wake.notify();
    await this.loop;
  }

  private async run(): Promise<void> {
    try {
      // The only member of its group: it reads every partition, for as long as it runs, from the
      // group's commit (the loader commits only what it stored, so that is where it stands).
      await this.options.onAssignment?.(this.cursors.map(({ topic, partition }) => ({ topic, partition })));
      while (!this.closing) {
        const next = this.paused ? undefined : this.nextBatch();
        if (next === undefined) {
          await this.wake.wait();
          continue;
        }
        const outcome = await this.options.onBatch(next.batch);
        // Records not taken are delivered again from where the subscriber stopped.
        next.cursor.position =
          outcome && outcome.next < BigInt(next.after)
            ? Math.max(Number(outcome.next), next.cursor.position)
            : next.after;
        // Let I/O in between batches: a consumer that always has records would otherwise starve
        // the completions it waits for (its inserts' answers come back as I/O callbacks).
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.finish({ reason: 'closed' });
    } catch (error) {
      this.finish({ reason: 'failed', error });
    }
  }

  private nextBatch(): { batch: Batch; cursor: Cursor; after: number } | undefined {
    for (let i = 0; i < this.cursors.length; i++) {
      const cursor = this.cursors[(this.turn + i) % this.cursors.length]!;
      const { first, entries } = cursor.log.read(cursor.position, this.maxBatchRecords);
      if (entries.length === 0) continue;
      this.turn = (this.turn + i + 1) % this.cursors.length;
      const batch: Batch = {
        topic: cursor.topic,
        partition: cursor.partition,
        messages: entries.map((entry, i) => toDelivery(first + i, entry)),
        highWatermark: BigInt(cursor.log.end),
      };
      return { batch, cursor, after: first + entries.length };
    }
    return undefined;
  }

  private finish(end: SubscriptionEnd): void {
    this.ended = true;
    this.host.leave(this);
    this.endWith(end);
  }
}

function toDelivery(offset: number, entry: LogEntry): Delivery {
  return { offset: BigInt(offset), ...entry.delivery };
}
