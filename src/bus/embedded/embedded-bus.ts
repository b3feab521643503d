import {
  BusError,
  type Bus,
  type CommitPosition,
  type PartitionLag,
  type SubscribeOptions,
  type Subscription,
  type PublishOptions,
} from '../bus.ts';
import { GroupRegistry } from './consumer-groups.ts';
import { PartitionLog, type Capacity, type LogEntry } from './partition-log.ts';
import { keptEntries } from './kept-records.ts';
import { EmbeddedSubscription } from './embedded-subscription.ts';
import { TopicIndex } from '../outgoing.ts';
import { partitionFor } from '../partitioner.ts';
import type { ReceivedRecord } from '../record.ts';
import { SerialQueues } from '../serial.ts';
import { TOPICS, type TopicSpec } from '../topics.ts';

export interface EmbeddedBusOptions {
  /** The catalogue's topics (default: the whole catalogue). */
  topics?: readonly TopicSpec[];
  /** Per topic-partition; publishers wait when it is full. */
  capacity?: Partial<Capacity>;
  /** Most records in one delivered batch. */
  maxBatchRecords?: number;
}

export const DEFAULT_CAPACITY: Capacity = { records: 20_000, bytes: 8 * 1024 * 1024 };
const DEFAULT_MAX_BATCH_RECORDS = 5_000;

/**
 * The in-process bus: the same contract as Kafka, inside one process. Records are partitioned by
 * key with Kafka's own partitioner and kept as objects, without a JSON round trip, handed over as
 * Kafka would hand them (embedded-records.ts).
 *
 * Back-pressure: each topic-partition holds at most `capacity` records (and bytes) that some
 * group has not committed yet; `publish` waits for room, so a slow loader slows capture and
 * memory stays bounded.
 *
 * Not durable: everything lives in memory and is gone when the process stops. What had not been
 * delivered and stored by then was never covered — the main job records that span as a capture
 * gap when it starts again.
 */
export class EmbeddedBus implements Bus {
  readonly durable = false;
  private readonly index: TopicIndex;
  private readonly logs = new Map<string, PartitionLog[]>();
  private readonly groups: GroupRegistry;
  private readonly subscriptions = new Set<EmbeddedSubscription>();
  private readonly serial = new SerialQueues();
  private readonly maxBatchRecords: number;
  private closed = false;

  constructor(options: EmbeddedBusOptions = {}) {
    const capacity = { ...DEFAULT_CAPACITY, ...options.capacity };
    this.index = new TopicIndex(options.topics ?? TOPICS.topics);
    for (const spec of this.index.topics) {
      this.logs.set(
        spec.name,
        Array.from({ length: spec.partitions }, () => new PartitionLog(capacity)),
      );
    }
    this.groups = new GroupRegistry(this.logs);
    this.maxBatchRecords = options.maxBatchRecords ?? DEFAULT_MAX_BATCH_RECORDS;
  }

  async publish(topic: string, records: readonly ReceivedRecord[], options: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    options.signal?.throwIfAborted();
    const entries = keptEntries(this.index.get(topic), records);
    await this.serial.run(topic, () => this.append(topic, entries));
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    for (const topic of options.topics) this.index.get(topic);
    const host = {
      commit: (group: string, positions: readonly CommitPosition[]) => this.groups.commit(group, positions),
      leave: (subscription: EmbeddedSubscription) => {
        this.subscriptions.delete(subscription);
        this.groups.leave(subscription.group, subscription);
      },
    };
    const subscription = this.groups.join(
      options.group,
      options.topics,
      (starts) => new EmbeddedSubscription(host, options, this.logs, starts, this.maxBatchRecords),
    );
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  async committedOffsets(group: string, topic: string): Promise<ReadonlyMap<number, bigint>> {
    this.index.get(topic);
    return this.groups.committedOffsets(group, topic);
  }

  async lag(group: string, topics: readonly string[]): Promise<PartitionLag[]> {
    return topics.flatMap((topic) => this.groups.lag(group, topic));
  }

  async logStarts(topic: string): Promise<ReadonlyMap<number, bigint>> {
    this.index.get(topic);
    return new Map(this.logs.get(topic)!.map((log, partition) => [partition, BigInt(log.earliest)]));
  }

  readerPositions(topic: string): ReadonlyArray<{ end: number; uncommitted: number }> {
    this.index.get(topic);
    // A partition's head is dropped once every group reading it has committed past it.
    return this.logs.get(topic)!.map((log) => ({ end: log.end, uncommitted: log.earliest }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const logs of this.logs.values()) for (const log of logs) log.releaseWaiters();
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
  }

  private async append(topic: string, entries: readonly LogEntry[]): Promise<void> {
    const logs = this.logs.get(topic)!;
    for (const record of entries) {
      const log = logs[partitionFor(record.key, logs.length)]!;
      while (!log.hasRoomFor(record.bytes)) {
        this.assertOpen();
        // Consumers must see what is already there, or nobody would ever commit and make room.
        this.notifyReaders(topic);
        await log.waitForRoom();
      }
      log.append(record);
    }
    this.notifyReaders(topic);
  }

  private notifyReaders(topic: string): void {
    for (const subscription of this.subscriptions) if (subscription.reads(topic)) subscription.notify();
  }

  private assertOpen(): void {
    if (this.closed) throw new BusError('closed', 'the embedded bus is closed');
  }
}
