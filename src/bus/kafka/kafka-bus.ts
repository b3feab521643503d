import { CompressionTypes, Kafka, logLevel, Partitioners, type Admin, type Producer } from 'kafkajs';
import { createLogger, type Logger } from '../../util/log.ts';
import {
  BusError,
  type Bus,
  type PartitionLag,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
} from '../bus.ts';
import { DEFAULT_REBALANCE_TIMEOUT_MS } from './defaults.ts';
import { kafkaLogCreator } from './kafkajs-log.ts';
import { KafkaSubscription } from './kafka-subscription.ts';
import { BATCH_OVERHEAD_BYTES, ensureTopics } from './create-topics.ts';
import { claim, type Claim } from './claims.ts';
import { prepareRecords, TopicIndex, type Outgoing } from '../outgoing.ts';
import type { ReceivedRecord } from '../record.ts';
import { SerialQueues } from '../serial.ts';
import { TOPICS, type TopicSpec } from '../topics.ts';

export interface KafkaBusOptions {
  brokers: readonly string[];
  clientId?: string;
  /** The catalogue's topics (default: the whole catalogue); created on open when missing. */
  topics?: readonly TopicSpec[];
  /**
   * Replicas per partition of the catalogue's topics (default: the broker's
   * `default.replication.factor`). Topics are created with it, and existing topics must have it:
   * a mismatch refuses to open (`acks=-1` would mean fewer copies than asked for).
   */
  replicationFactor?: number;
  /**
   * How long Kafka keeps records of the catalogue's topics (`retention.ms`, all of them; default:
   * each topic's own, 7 or 30 days). Set on topics created and on existing ones that differ.
   */
  retentionMs?: number;
  /** GZIP (the only codec built into kafkajs) trades CPU for bytes on the wire and on disk. */
  compression?: 'gzip' | 'none';
  /** A consumer silent this long leaves the group (default 30 s); batches may take longer. */
  sessionTimeoutMs?: number;
  /** How long a rebalance waits for every member to rejoin (default 60 s, kafkajs's); later ones are evicted. */
  rebalanceTimeoutMs?: number;
  /**
   * A publish not acknowledged within this long rejects (`publish_timeout`) and the producer is
   * replaced (default 60 s). kafkajs's idempotent producer would otherwise retry for ever.
   */
  publishTimeoutMs?: number;
  log?: Logger;
}

export const DEFAULT_PUBLISH_TIMEOUT_MS = 60_000;

const PRODUCER_OPTIONS = {
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: false,
  createPartitioner: Partitioners.DefaultPartitioner,
} as const;

// Per-message framing (offsets, lengths, timestamp) counted against a send's byte budget.
const MESSAGE_OVERHEAD_BYTES = 64;

/**
 * The bus on Kafka through kafkajs. Producer: idempotent, one request in flight, acks from all
 * in-sync replicas — a publish resolves only once the records are durable, and retries can
 * neither duplicate nor reorder them. Keys go through kafkajs's DefaultPartitioner, which is
 * Kafka's Java partitioner, the same as partitioner.ts. Consumers: see kafka-subscription.ts.
 */
export class KafkaBus implements Bus {
  readonly durable = true;
  private readonly index: TopicIndex;
  private readonly serial = new SerialQueues();
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly compression: CompressionTypes;
  private readonly sessionTimeoutMs: number;
  private readonly rebalanceTimeoutMs: number;
  private readonly publishTimeoutMs: number;
  private producer: Promise<Producer>;
  private closed = false;

  private constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    producer: Producer,
    topics: readonly TopicSpec[],
    options: KafkaBusOptions,
    private readonly log: Logger,
  ) {
    this.index = new TopicIndex(topics);
    this.compression = options.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? 30_000;
    this.rebalanceTimeoutMs = options.rebalanceTimeoutMs ?? DEFAULT_REBALANCE_TIMEOUT_MS;
    this.publishTimeoutMs = options.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS;
    this.producer = Promise.resolve(producer);
  }

  /**
   * Connects, creates missing topics and readies the producer. A Kafka that does not answer yet (a
   * restart, a short outage) is waited for, up to a minute, rather than failing the process.
   */
  static async open(options: KafkaBusOptions): Promise<KafkaBus> {
    const log = options.log ?? createLogger('bus.kafka');
    const deadline = Date.now() + OPEN_WAIT_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await KafkaBus.#openOnce(options);
      } catch (error) {
        if (!isUnreachable(error) || Date.now() > deadline) throw error;
        log.warn({ attempt, err: error }, 'Kafka does not answer yet; trying again');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 500 * attempt)));
      }
    }
  }

  static async #openOnce(options: KafkaBusOptions): Promise<KafkaBus> {
    const log = options.log ?? createLogger('bus.kafka');
    const topics = options.topics ?? TOPICS.topics;
    const kafka = new Kafka({
      clientId: options.clientId ?? 'tapehouse',
      brokers: [...options.brokers],
      logLevel: logLevel.WARN,
      logCreator: kafkaLogCreator(log),
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await ensureTopics(admin, topics, options.replicationFactor, log, options.retentionMs);
      const producer = kafka.producer(PRODUCER_OPTIONS);
      await producer.connect();
      return new KafkaBus(kafka, admin, producer, topics, options, log);
    } catch (error) {
      await admin.disconnect();
      throw error;
    }
  }

  /**
   * Publishes within the deadline (`publishTimeoutMs`) and the caller's signal. kafkajs's
   * idempotent producer retries a send for ever and cannot be told to stop, so a send past the
   * deadline is abandoned: the call rejects (`publish_timeout`, or `aborted`), and the producer,
   * whose sequence numbers that send may have used, is replaced by a new one (a new producer id)
   * for the calls that follow. The abandoned send may still land later: a rejected publish may
   * have stored part or all of its records (see README.md).
   */
  async publish(topic: string, records: readonly ReceivedRecord[], options: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    const spec = this.index.get(topic);
    const outgoing = prepareRecords(spec, records);
    const { signal } = options;
    signal?.throwIfAborted();
    await this.serial.run(topic, async () => {
      // One send is one record batch per partition, which the broker caps at max.message.bytes.
      for (const chunk of chunkByBytes(outgoing, spec.maxRecordBytes)) {
        signal?.throwIfAborted();
        const producer = await this.producer;
        const send = producer.send({
          topic,
          acks: -1,
          compression: this.compression,
          messages: chunk.map((record) => ({ key: record.key, value: record.value, timestamp: record.timestampMs })),
        });
        const ended = await settleWithin(send, this.publishTimeoutMs, signal);
        if (ended === 'done') continue;
        this.replaceProducer(producer, ended);
        throw ended === 'aborted'
          ? new BusError('aborted', `publishing to ${topic} was cancelled; the send under way may still land`)
          : new BusError(
              'publish_timeout',
              `Kafka did not acknowledge a publish to ${topic} within ${this.publishTimeoutMs} ms; the send under way may still land`,
            );
      }
    });
  }

  /** Leaves a producer whose send was abandoned, and readies a new one for the next calls. */
  private replaceProducer(stuck: Producer, why: string): void {
    this.log.warn({ why }, 'a Kafka send was abandoned: replacing the producer');
    void stuck.disconnect().catch(() => undefined);
    const next = this.producer.then(async (current) => {
      if (current !== stuck) return current;
      const producer = this.kafka.producer(PRODUCER_OPTIONS);
      // Connecting is retried by each send if Kafka is still away.
      await producer
        .connect()
        .catch((error: unknown) => this.log.warn({ err: error }, 'the new producer could not connect yet'));
      return producer;
    });
    this.producer = next;
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    const specs = options.topics.map((topic) => this.index.get(topic));
    const largest = Math.max(...specs.map((spec) => spec.maxRecordBytes));
    const subscription = await KafkaSubscription.start(this.kafka, options, {
      maxBytesPerPartition: largest + BATCH_OVERHEAD_BYTES,
      sessionTimeoutMs: this.sessionTimeoutMs,
      rebalanceTimeoutMs: this.rebalanceTimeoutMs,
      logStarts: (topic) => this.logStarts(topic),
      log: this.log,
    });
    this.subscriptions.add(subscription);
    void subscription.stopped.then(() => this.subscriptions.delete(subscription));
    return subscription;
  }

  async committedOffsets(group: string, topic: string): Promise<ReadonlyMap<number, bigint>> {
    this.index.get(topic);
    const [entry] = await this.admin.fetchOffsets({ groupId: group, topics: [topic] });
    const offsets = new Map<number, bigint>();
    for (const { partition, offset } of entry?.partitions ?? []) {
      if (offset !== '-1') offsets.set(partition, BigInt(offset));
    }
    return offsets;
  }

  async lag(group: string, topics: readonly string[]): Promise<PartitionLag[]> {
    const figures: PartitionLag[] = [];
    for (const topic of topics) {
      const committed = await this.committedOffsets(group, topic);
      for (const { partition, high, low } of await this.admin.fetchTopicOffsets(topic)) {
        const end = BigInt(high);
        const mark = committed.get(partition) ?? null;
        const from = mark !== null && mark > BigInt(low) ? mark : BigInt(low);
        figures.push({ topic, partition, committed: mark, end, lag: end - from });
      }
    }
    return figures.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }

  async logStarts(topic: string): Promise<ReadonlyMap<number, bigint>> {
    this.index.get(topic);
    return new Map((await this.admin.fetchTopicOffsets(topic)).map(({ partition, low }) => [partition, BigInt(low)]));
  }

  /**
   * Claims `key` with `value` in the cluster's first-claim-wins register (claims.ts) unless it is
   * claimed already; answers the claim that holds.
   */
  async claim(key: string, value: string): Promise<Claim> {
    this.assertOpen();
    return claim(this.kafka, this.admin, key, value);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await (await this.producer).disconnect();
    await this.admin.disconnect();
  }

  private assertOpen(): void {
    if (this.closed) throw new BusError('closed', 'the Kafka bus is closed');
  }
}

const OPEN_WAIT_MS = 60_000;

/** A connection refused or lost (kafkajs wraps it in a non-retriable error once its own retries are spent). */
function isUnreachable(error: unknown): boolean {
  for (
    let e = error as { name?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (/Connection|NumberOfRetriesExceeded|BrokerNotFound/.test(e.name ?? '')) return true;
  }
  return false;
}

/** How a send ended: acknowledged (a failure rejects), past the deadline, or cancelled. */
async function settleWithin(
  send: Promise<unknown>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<'done' | 'timeout' | 'aborted'> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'timeout' | 'aborted'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
    onAbort = () => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([send.then(() => 'done' as const), stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // An abandoned send that fails later has nobody to tell.
    send.catch(() => undefined);
  }
}

/** Consecutive runs of records whose total size stays within the budget (a larger record goes alone). */
function chunkByBytes(records: readonly Outgoing[], budget: number): Outgoing[][] {
  const chunks: Outgoing[][] = [];
  let chunk: Outgoing[] = [];
  let size = 0;
  for (const record of records) {
    const bytes = record.bytes + Buffer.byteLength(record.key) + MESSAGE_OVERHEAD_BYTES;
    if (chunk.length > 0 && size + bytes > budget) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(record);
    size += bytes;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
