import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../util/log.ts';
import {
  BusError,
  type CommitPosition,
  type Delivery,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionEnd,
  type TopicPartition,
} from '../bus.ts';
import { decodeRecord } from '../record.ts';

export interface ConsumerSettings {
  /** Fetch size per partition: at least the largest record a topic accepts. */
  maxBytesPerPartition: number;
  /** A member silent for this long is dropped from the group. */
  sessionTimeoutMs: number;
  /** How long the group waits for its members to rejoin a rebalance; one that does not is evicted. */
  rebalanceTimeoutMs: number;
  /** The oldest offset Kafka holds per partition of a topic (its log start). */
  logStarts(topic: string): Promise<ReadonlyMap<number, bigint>>;
  log: Logger;
}

/** Kafka's answers that mean "the group moved on without this member's view": stop, rejoin. */
const FENCED = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'NOT_COORDINATOR_FOR_GROUP',
  'FENCED_INSTANCE_ID',
]);

export function isFencedOut(error: unknown): boolean {
  return typeof error === 'object' && error !== null && FENCED.has(String((error as { type?: unknown }).type));
}

/**
 * One Kafka consumer reading for a group: `eachBatch` with nothing committed automatically
 * (`autoCommit: false`), commits only through `commit`. kafkajs has no revocation callback and
 * rejoins a rebalance only between batches, so:
 * - a rebalance is noticed as early as Kafka says it (the REBALANCING event, a heartbeat or a
 *   commit refused as fenced) and told to `onRevoke` at once; a batch in progress waits for it,
 *   within half the rebalance timeout, so the member rejoins in time;
 * - each assignment holds its partitions until `onAssignment` says where to read them, then
 *   seeks there (never below Kafka's log start);
 * - records a batch handler did not take are read again from where it stopped (a seek).
 */
export class KafkaSubscription implements Subscription {
  readonly stopped: Promise<SubscriptionEnd>;
  private endWith!: (end: SubscriptionEnd) => void;
  private ended = false;
  private closing = false;
  private failed = false;
  private pausedAll = false;
  /** Partitions of the current assignment waiting for their read positions. */
  private readonly held = new Map<string, TopicPartition>();
  private generation = 0;
  private revoking: Promise<void> | undefined;

  private constructor(
    private readonly consumer: Consumer,
    private readonly options: SubscribeOptions,
    private readonly settings: ConsumerSettings,
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
        settings.log.warn(
          { group: options.group, attempt, err: error },
          'joining the consumer group failed; trying again',
        );
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  static async #startOnce(
    kafka: Kafka,
    options: SubscribeOptions,
    settings: ConsumerSettings,
  ): Promise<KafkaSubscription> {
    const consumer = kafka.consumer({
      groupId: options.group,
      allowAutoTopicCreation: false,
      maxBytesPerPartition: settings.maxBytesPerPartition,
      sessionTimeout: settings.sessionTimeoutMs,
      rebalanceTimeout: settings.rebalanceTimeoutMs,
      heartbeatInterval: heartbeatIntervalMs(settings),
      // A stop waits for the fetch in progress; keep that short.
      maxWaitTimeInMs: 1_000,
    });
    const subscription = new KafkaSubscription(
      consumer,
      options,
      settings,
      settings.log.child({ group: options.group }),
    );
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
    if (this.closing || this.failed || this.ended)
      throw new BusError('closed', `subscription of group ${this.options.group} is closed`);
    for (const { topic, next } of positions) {
      if (!this.options.topics.includes(topic))
        throw new BusError('bad_commit', `group ${this.options.group} is not subscribed to ${topic} here`);
      if (next < 0n) throw new BusError('bad_commit', `commit position ${next} is negative`);
    }
    const generation = this.generation;
    try {
      await this.consumer.commitOffsets(
        positions.map(({ topic, partition, next }) => ({ topic, partition, offset: next.toString() })),
      );
    } catch (error) {
      // The group moved on (this member was fenced out, or a rebalance began): stop at once —
      // unless the answer is about a generation already left behind (a commit sent before the
      // last rebalance), which says nothing about the current one.
      if (isFencedOut(error)) this.revoke('commit refused', generation);
      throw error;
    }
  }

  pause(): void {
    this.pausedAll = true;
    this.applyPauses();
  }

  resume(): void {
    this.pausedAll = false;
    this.applyPauses();
  }

  /**
   * kafkajs keeps one pause state per topic and partition: all paused, or all but the held ones
   * resumed. Between a crash and its restart kafkajs has no consumer group to pause (it throws);
   * the state is kept here and applied again at the next join, whose fresh group starts unpaused.
   */
  private applyPauses(): void {
    try {
      if (this.pausedAll) {
        this.consumer.pause(this.options.topics.map((topic) => ({ topic })));
        return;
      }
      this.consumer.resume(this.options.topics.map((topic) => ({ topic })));
      const held = [...this.held.values()];
      if (held.length > 0)
        this.consumer.pause(held.map(({ topic, partition }) => ({ topic, partitions: [partition] })));
    } catch (error) {
      if (!isNotRunning(error)) throw error;
      this.log.debug(
        { pausedAll: this.pausedAll },
        'the consumer is restarting: its pauses are applied when it rejoins',
      );
    }
  }

  /**
   * Tells the subscriber a rebalance began (once per rebalance); a batch in progress waits for its
   * answer. `generation` is the assignment the refused request was made under: a refusal that
   * arrives after a newer assignment is stale and ignored (the subscriber would otherwise wait for
   * an assignment that never comes).
   */
  private revoke(why: string, generation = this.generation): void {
    if (generation !== this.generation || this.revoking || this.closing || this.failed) return;
    this.log.info({ why, generation }, 'rebalance: the partitions may go to another member');
    this.revoking = Promise.resolve(this.options.onRevoke?.()).catch((error: unknown) =>
      this.log.warn({ err: error }, 'revocation handler failed'),
    );
  }

  /** Holds the new assignment's partitions until the subscriber says where to read them, then seeks there. */
  private assign(assigned: TopicPartition[]): void {
    const generation = ++this.generation;
    this.log.debug({ generation, partitions: assigned.length }, 'joined the group');
    this.revoking = undefined;
    this.held.clear();
    const answer = this.options.onAssignment?.(assigned);
    if (answer) for (const tp of assigned) this.held.set(`${tp.topic}\u0000${tp.partition}`, tp);
    // Also without an answer: a join after a crash has a fresh, unpaused group.
    this.applyPauses();
    if (!answer) return;
    void answer
      .then(async (positions) => {
        if (generation !== this.generation || this.closing || this.failed) return;
        const starts = new Map<string, ReadonlyMap<number, bigint>>();
        for (const { topic, partition, next } of positions ?? []) {
          if (!starts.has(topic)) starts.set(topic, await this.settings.logStarts(topic));
          if (generation !== this.generation) return;
          const start = starts.get(topic)!.get(partition) ?? 0n;
          this.consumer.seek({ topic, partition, offset: String(next > start ? next : start) });
        }
        this.held.clear();
        this.applyPauses();
      })
      .catch((error: unknown) => {
        // An answer for an assignment since superseded (a read given up at the next rebalance) is no
        // failure, nor a seek refused by a consumer restarting after a crash (its rejoin asks again).
        if (isNotRunning(error))
          return void this.log.debug(
            'the consumer is restarting: the read positions are asked for again when it rejoins',
          );
        if (generation === this.generation && !this.closing)
          this.fail(error, 'assignment handler failed; stopping the subscription');
      });
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
          this.assign(assigned);
        } catch (error) {
          this.fail(error, 'assignment handler failed; stopping the subscription');
        }
        resolve();
      });
      // Emitted as kafkajs leaves its fetch loop to rejoin: before the new assignment.
      this.consumer.on(this.consumer.events.REBALANCING, () => this.revoke('the group is rebalancing'));
      this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
        this.log.warn(
          { err: payload.error, restart: payload.restart },
          payload.restart
            ? 'the Kafka consumer crashed; kafkajs restarts it and rejoins'
            : 'the Kafka consumer crashed',
        );
        reject(payload.error);
        if (!payload.restart) this.finish({ reason: 'failed', error: payload.error });
      });
    });
  }

  private async deliver({ batch, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    // After a failure the consumer is being stopped: whatever kafkajs still hands over is not
    // delivered and, never committed, goes to the group's next subscriber.
    if (this.failed || !isRunning() || isStale()) return;
    const generation = this.generation;
    const beat = () =>
      heartbeat().catch((error: unknown) => {
        if (isFencedOut(error)) this.revoke(`heartbeat: ${(error as { type?: string }).type}`, generation);
        else this.log.debug({ err: error }, 'heartbeat during a batch failed');
      });
    const pump = setInterval(() => void beat(), heartbeatIntervalMs(this.settings));
    try {
      const outcome = await this.options.onBatch({
        topic: batch.topic,
        partition: batch.partition,
        messages: batch.messages.map(toDelivery),
        highWatermark: BigInt(batch.highWatermark),
      });
      // Not taken from `next` on: read again from there (kafkajs resolves the whole batch).
      if (outcome && outcome.next <= BigInt(batch.lastOffset()))
        this.consumer.seek({ topic: batch.topic, partition: batch.partition, offset: String(outcome.next) });
      // A rebalance noticed during the batch: rejoin only once the subscriber has settled, within
      // half the rebalance timeout (a member later than that would be evicted).
      await beat();
      if (this.revoking) await withinMs(this.revoking, this.settings.rebalanceTimeoutMs / 2);
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
      .catch((disconnectError: unknown) =>
        this.log.warn({ err: disconnectError }, 'disconnecting the failed consumer failed'),
      )
      .then(() => this.finish({ reason: 'failed', error }));
  }

  private finish(end: SubscriptionEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.endWith(end);
  }
}

function withinMs(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() =>
    clearTimeout(timer),
  );
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

/**
 * kafkajs's refusal to pause, resume or seek when it has no consumer group: after `stop`, and
 * between a crash and the restart it schedules.
 */
function isNotRunning(error: unknown): boolean {
  return error instanceof Error && error.message.includes('consumer#run must be called first');
}

/** Joins tried before giving up on retriable errors (about 10 s with the backoff). */
const JOIN_ATTEMPTS = 8;

/**
 * A retriable answer, also when kafkajs's own retries of it ran out first (on a broker that has
 * just started, "This is not the correct coordinator for this group" outlasts them): the join is
 * then tried again as a whole.
 */
function isRetriable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { retriable, name, cause } = error as { retriable?: unknown; name?: unknown; cause?: unknown };
  return retriable === true || (name === 'KafkaJSNumberOfRetriesExceeded' && isRetriable(cause));
}
