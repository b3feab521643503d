import { CompressionTypes, Kafka, logLevel, Partitioners, type Admin, type Producer } from 'kafkajs';
import { createLogger, type Logger } from '../util/log.ts';
import { BusError, type Bus, type PartitionLag, type SubscribeOptions, type Subscription } from './bus.ts';
import { kafkaLogCreator } from './kafka-log.ts';
import { KafkaSubscription } from './kafka-subscription.ts';
import { BATCH_OVERHEAD_BYTES, ensureTopics } from './kafka-topics.ts';
import { prepareRecords, TopicIndex, type Outgoing } from './outgoing.ts';
import type { BusRecord } from './record.ts';
import { SerialQueues } from './serial.ts';
import { TOPICS, type TopicSpec } from './topics.ts';

export interface KafkaBusOptions {
  brokers: readonly string[];
  clientId?: string;
  /** The catalogue's topics (default: the whole catalogue); created on open when missing. */
  topics?: readonly TopicSpec[];
  /** Replicas per partition for topics created here: 1 on a single broker, 3 in production. */
  replicationFactor?: number;
  /** GZIP (the only codec built into kafkajs) trades CPU for bytes on the wire and on disk. */
  compression?: 'gzip' | 'none';
  /** A consumer silent this long leaves the group (default 30 s); batches may take longer. */
  sessionTimeoutMs?: number;
  log?: Logger;
}

// Per-message framing (offsets, lengths, timestamp) counted against a send's byte budget.
const MESSAGE_OVERHEAD_BYTES = 64;

/**
 * The bus on Kafka through kafkajs. Producer: idempotent, one request in flight, acks from all
 * in-sync replicas — a publish resolves only once the records are durable, and retries can
 * neither duplicate nor reorder them. Keys go through kafkajs's DefaultPartitioner, which is
 * Kafka's Java partitioner, the same as partitioner.ts. Consumers: see kafka-subscription.ts.
 */
export class KafkaBus implements Bus {
  private readonly index: TopicIndex;
  private readonly serial = new SerialQueues();
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly compression: CompressionTypes;
  private readonly sessionTimeoutMs: number;
  private closed = false;

  private constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly producer: Producer,
    topics: readonly TopicSpec[],
    options: KafkaBusOptions,
    private readonly log: Logger,
  ) {
    this.index = new TopicIndex(topics);
    this.compression = options.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? 30_000;
  }

  /** Connects, creates missing topics and readies the producer. */
  static async open(options: KafkaBusOptions): Promise<KafkaBus> {
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
      await ensureTopics(admin, topics, options.replicationFactor ?? 1, log);
      const producer = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      return new KafkaBus(kafka, admin, producer, topics, options, log);
    } catch (error) {
      await admin.disconnect();
      throw error;
    }
  }

  async publish(topic: string, records: readonly BusRecord[]): Promise<void> {
    this.assertOpen();
    const spec = this.index.get(topic);
    const outgoing = prepareRecords(spec, records);
    await this.serial.run(topic, async () => {
      // One send is one record batch per partition, which the broker caps at max.message.bytes.
      for (const chunk of chunkByBytes(outgoing, spec.maxRecordBytes)) {
        await this.producer.send({
          topic,
          acks: -1,
          compression: this.compression,
          messages: chunk.map((record) => ({ key: record.key, value: record.value, timestamp: record.timestampMs })),
        });
      }
    });
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    const specs = options.topics.map((topic) => this.index.get(topic));
    const largest = Math.max(...specs.map((spec) => spec.maxRecordBytes));
    const subscription = await KafkaSubscription.start(this.kafka, options, {
      maxBytesPerPartition: largest + BATCH_OVERHEAD_BYTES,
      sessionTimeoutMs: this.sessionTimeoutMs,
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.producer.disconnect();
    await this.admin.disconnect();
  }

  private assertOpen(): void {
    if (this.closed) throw new BusError('closed', 'the Kafka bus is closed');
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
