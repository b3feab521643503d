import type { ReceivedRecord } from './record.ts';

/**
 * The bus: producers publish keyed records to topics; consumer groups read them back in batches
 * per topic-partition and commit explicitly. Two implementations: embedded.ts (in-process, the
 * default) and kafka.ts. Delivery is at-least-once; the loaders build exactly-once on top (see
 * README.md in this folder).
 */
export interface Bus {
  /**
   * Whether records and offsets outlive this process: Kafka's do; the embedded bus starts again
   * empty, at offset 0, in every process (the loaders then keep its offsets apart per run, and
   * record what a killed run left unstored as gaps).
   */
  readonly durable: boolean;

  /**
   * Appends the records, in order, to the topic's partitions by key. Resolves once they are
   * durable (Kafka: acknowledged by all in-sync replicas) — or, on the embedded bus, stored in
   * memory; it waits while a slow consumer leaves no room. Records with one key keep the order
   * of the calls and of the array. Rejects, publishing none of the call, when the topic is not in
   * the catalogue or a record is larger than the topic allows.
   */
  publish(topic: string, records: readonly ReceivedRecord[], options?: PublishOptions): Promise<void>;

  /**
   * Starts delivering the topics to `onBatch`, for the group, from the group's last commit (from
   * the earliest record still kept when the group has never committed). Resolves once consuming
   * has started.
   */
  subscribe(options: SubscribeOptions): Promise<Subscription>;

  /** The group's committed positions on a topic: partition → next offset to read. */
  committedOffsets(group: string, topic: string): Promise<ReadonlyMap<number, bigint>>;

  /** How far the group is behind, per partition of each topic. */
  lag(group: string, topics: readonly string[]): Promise<PartitionLag[]>;

  /** The oldest offset the bus still holds, per partition of a topic (Kafka: the log start, past retention). */
  logStarts(topic: string): Promise<ReadonlyMap<number, bigint>>;

  /**
   * A bus that is not durable only: per partition of the topic, the offset its next record gets
   * (`end`) and the earliest offset some group reading the topic has not committed past
   * (`uncommitted`): everything below it is stored by every reader. Capture's coverage marks wait
   * on it for gap records, which a process killed with them in memory would lose. Kafka's bus
   * leaves it out: a publish it acknowledged is durable.
   */
  readerPositions?(topic: string): ReadonlyArray<{ end: number; uncommitted: number }>;

  /** Stops every subscription (after its current batch) and producer; publishes still waiting reject. */
  close(): Promise<void>;
}

export interface PublishOptions {
  /**
   * Cancels the call (a stopping job): it rejects with `aborted`. On Kafka a send already under
   * way may still land (see README.md: a rejected publish may have stored records).
   */
  signal?: AbortSignal;
}

export interface SubscribeOptions {
  group: string;
  topics: readonly string[];
  /**
   * Called with one topic-partition's next records; never twice at once for one subscription,
   * and the next batch waits until it resolves. Nothing is committed by delivering: call
   * `Subscription.commit`. Resolving to `{ next }` says the records from `next` on were not
   * taken (no room, a rebalance under way): they are delivered again, from `next`, once the
   * subscriber resumes. Handlers return rather than wait for long (on Kafka a member blocked in
   * a batch cannot rejoin a rebalance, and is evicted). If it rejects, the subscription stops
   * (see `Subscription.stopped`) and everything after the last commit is delivered again to the
   * next subscriber of the group.
   */
  onBatch(batch: Batch): Promise<BatchOutcome | void>;
  /**
   * Called with the partitions this subscriber reads, before their first batch and again after
   * every rebalance (Kafka: a member joined or left). It may resolve to where to read
   * partitions from: those are held (nothing delivered) until it resolves, then read from the
   * later of the position given and the oldest offset the bus still holds; the others go on
   * from the group's commit. A loader reads its own stored positions from the warehouse here,
   * and drops what it holds, unstored, for partitions it lost.
   */
  onAssignment?(partitions: readonly TopicPartition[]): Promise<readonly CommitPosition[] | void> | void;
  /**
   * Kafka: a rebalance began (another member joined or left, or this one was fenced out). The
   * partitions may go to another member: start no more work on any of them until the next
   * `onAssignment`, and resolve once what is under way may be left (the subscription waits for
   * it, within the rebalance timeout, before rejoining).
   */
  onRevoke?(): Promise<void> | void;
}

/** What `onBatch` did not take: deliver again from `next`. */
export interface BatchOutcome {
  next: bigint;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface Batch {
  topic: string;
  partition: number;
  /** In offset order, contiguous except where Kafka compaction or transactions left holes. */
  messages: readonly Delivery[];
  /** The partition's end (next offset to be written) when the batch was read. */
  highWatermark: bigint;
}

/** One message: its record, or — when the bytes are not a record — why, with the bytes. */
export type Delivery =
  | { offset: bigint; ok: true; record: ReceivedRecord }
  | { offset: bigint; ok: false; reason: string; bytes: Uint8Array };

/** "The group has consumed the partition up to, not including, `next`" (Kafka's convention). */
export interface CommitPosition {
  topic: string;
  partition: number;
  next: bigint;
}

export interface Subscription {
  /**
   * Records the group's positions. Positions only move forward: the embedded bus refuses an
   * earlier one. Refused (`closed`) once `close()` was called or the subscription stopped, so
   * commit before closing. On Kafka it can fail after a rebalance gave the partition to another
   * member; that member then receives those records again (the loader's deduplication makes it
   * safe).
   */
  commit(positions: readonly CommitPosition[]): Promise<void>;
  /** Stops fetching without leaving the group (e.g. while the warehouse is down or the loader has no room). */
  pause(): void;
  resume(): void;
  /** Stops after the batch in progress; uncommitted records go to the group's next subscriber. */
  close(): Promise<void>;
  /** Settles when the subscription stops, saying why; never rejects. */
  readonly stopped: Promise<SubscriptionEnd>;
}

export type SubscriptionEnd = { reason: 'closed' } | { reason: 'failed'; error: unknown };

export interface PartitionLag {
  topic: string;
  partition: number;
  /** Next offset the group will read after a restart; null when it has never committed. */
  committed: bigint | null;
  /** Next offset to be written. */
  end: bigint;
  /** Records kept on the bus that the group has not committed. */
  lag: bigint;
}

export type BusErrorCode =
  'unknown_topic' | 'record_too_large' | 'closed' | 'bad_commit' | 'group_busy' | 'publish_timeout' | 'aborted';

export class BusError extends Error {
  constructor(
    readonly code: BusErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BusError';
  }
}

/** The position that commits everything in the batch. */
export function positionAfter(batch: Batch): CommitPosition {
  const last = batch.messages[batch.messages.length - 1];
  if (last === undefined) throw new BusError('bad_commit', `empty batch of ${batch.topic}[${batch.partition}]`);
  return { topic: batch.topic, partition: batch.partition, next: last.offset + 1n };
}
