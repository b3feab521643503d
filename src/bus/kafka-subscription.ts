import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '../util/log.ts';
import { BusError, type CommitPosition, type Delivery, type SubscribeOptions, type Subscription, type SubscriptionEnd } from './bus.ts';
import { decodeRecord } from './record.ts';

export interface ConsumerSettings {
  /** Fetch size per partition: at least the largest record a topic accepts. */
  maxBytesPerPartition: number;
  /** A member silent for this long is dropped from the group. */
  sessionTimeoutMs: number;
  log: Logger;
}

/**
 * One Kafka consumer reading for a group: `eachBatch` with nothing committed automatically
 * (`autoCommit: false`), commits only through `commit`. While `onBatch` runs — for as long as the
 * warehouse takes — it keeps heartbeating, so a slow batch does not cost the group membership.
 */
export class KafkaSubscription implements Subscription {
  readonly stopped: Promise<SubscriptionEnd>;
  private endWith!: (end: SubscriptionEnd) => void;
  private ended = false;
  private closing = false;
  private failed = false;

  private constructor(
    private readonly consumer: Consumer,
    private readonly options: SubscribeOptions,
    private readonly heartbeatEveryMs: number,
    private readonly log: Logger,
  ) {
    this.stopped = new Promise((resolve) => (this.endWith = resolve));
  }

  /**
   * Connects, joins the group and starts delivering; resolves once the group is joined. A broker
   * that has just started (or moved the group's coordinator) answers the join with retriable
   * errors such as COORDINATOR_LOAD_IN_PROGRESS for a few seconds: those are tried again.
   */
  static async start(kafka: Kafka, options: SubscribeOptions, settings: ConsumerSettings): Promise<KafkaSubscription> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await KafkaSubscription.#startOnce(kafka, options, settings);
      } catch (error) {
        if (!isRetriable(error) || attempt >= JOIN_ATTEMPTS) throw error;
        settings.log.warn({ group: options.group, attempt, err: error }, 'joining the consumer group failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  static async #startOnce(kafka: Kafka, options: SubscribeOptions, settings: ConsumerSettings): Promise<KafkaSubscription> {
    const consumer = kafka.consumer({
      groupId: options.group,
      allowAutoTopicCreation: false,
      maxBytesPerPartition: settings.maxBytesPerPartition,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: heartbeatIntervalMs(settings),
      // A stop waits for the fetch in progress; keep that short.
      maxWaitTimeInMs: 1_000,
    });
    const subscription = new KafkaSubscription(consumer, options, heartbeatIntervalMs(settings), settings.log.child({ group: options.group }));
    const joined = subscription.joined();
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [...options.topics], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: 1,
        eachBatch: (payload) => subscription.deliver(payload),
      });
      await joined;
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    return subscription;
  }

  async commit(positions: readonly CommitPosition[]): Promise<void> {
    // kafkajs silently drops commits of a stopped consumer: say so instead.
    if (this.closing || this.failed || this.ended) throw new BusError('closed', `subscription of group ${this.options.group} is closed`);
    for (const { topic, next } of positions) {
      if (!this.options.topics.includes(topic)) throw new BusError('bad_commit', `group ${this.options.group} is not subscribed to ${topic} here`);
      if (next < 0n) throw new BusError('bad_commit', `commit position ${next} is negative`);
    }
    await this.consumer.commitOffsets(positions.map(({ topic, partition, next }) => ({ topic, partition, offset: next.toString() })));
  }

  pause(): void {
    this.consumer.pause(this.options.topics.map((topic) => ({ topic })));
  }

  resume(): void {
    this.consumer.resume(this.options.topics.map((topic) => ({ topic })));
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.consumer.disconnect();
    this.finish({ reason: 'closed' });
  }

  private joined(): Promise<void> {
    return new Promise((resolve, reject) => {
      // Each join (the first and every rebalance) comes before the batches of its assignment.
      this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
        const assigned = Object.entries(payload.memberAssignment).flatMap(([topic, partitions]) =>
          partitions.map((partition) => ({ topic, partition })),
        );
        try {
          this.options.onAssignment?.(assigned);
        } catch (error) {
          this.fail(error, 'assignment handler failed; stopping the subscription');
        }
        resolve();
      });
      this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
        reject(payload.error);
        if (!payload.restart) this.finish({ reason: 'failed', error: payload.error });
      });
    });
  }

  private async deliver({ batch, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    // After a failure the consumer is being stopped: whatever kafkajs still hands over is not
    // delivered and, never committed, goes to the group's next subscriber.
    if (this.failed || !isRunning() || isStale()) return;
    const pump = setInterval(() => {
      heartbeat().catch((error: unknown) => this.log.debug({ err: error }, 'heartbeat during a long batch failed'));
    }, this.heartbeatEveryMs);
    try {
      await this.options.onBatch({
        topic: batch.topic,
        partition: batch.partition,
        messages: batch.messages.map(toDelivery),
        highWatermark: BigInt(batch.highWatermark),
      });
    } catch (error) {
      this.fail(error, `batch handler failed on ${batch.topic}[${batch.partition}]; stopping the subscription`);
    } finally {
      clearInterval(pump);
    }
  }

  private fail(error: unknown, message: string): void {
    this.failed = true;
    this.log.warn({ err: error }, message);
    // Not awaited: disconnecting waits for the batch in progress, which may be the caller.
    void this.consumer
      .disconnect()
      .catch((disconnectError: unknown) => this.log.warn({ err: disconnectError }, 'disconnecting the failed consumer failed'))
      .then(() => this.finish({ reason: 'failed', error }));
  }

  private finish(end: SubscriptionEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.endWith(end);
  }
}

/** A tenth of the session, as kafkajs's defaults (3 s of 30 s): several beats before the cut-off. */
function heartbeatIntervalMs(settings: ConsumerSettings): number {
  return Math.max(100, Math.floor(settings.sessionTimeoutMs / 10));
}

function toDelivery(message: KafkaMessage): Delivery {
  const offset = BigInt(message.offset);
  if (message.value === null) return { offset, ok: false, reason: 'message has no value', bytes: new Uint8Array() };
  const decoded = decodeRecord(message.value);
  if (decoded.ok) return { offset, ok: true, record: decoded.record };
  return { offset, ok: false, reason: decoded.reason, bytes: message.value };
}

/** Joins tried before giving up on retriable errors (about 10 s with the backoff). */
const JOIN_ATTEMPTS = 8;

function isRetriable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
}
