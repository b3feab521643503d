import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// kafkajs appears here only to look at the broker from outside the bus and to write bytes the
// bus itself never would.
import { ConfigResourceTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { positionAfter, type CommitPosition } from '../../src/bus/bus.ts';
import { KafkaBus, type KafkaBusOptions } from '../../src/bus/kafka/kafka-bus.ts';
import { encodeRecord } from '../../src/bus/record.ts';
import { createTopicCatalogue, type TopicSpec } from '../../src/bus/topics.ts';
import { createLogger } from '../../src/util/log.ts';
import { busContract, collect, tradeFeed, tradeRecord } from '../bus-contract.ts';
import { KAFKA_BROKERS, requireService } from './services.ts';

const log = createLogger('bus.kafka.test', 'error');
const createdTopics = new Set<string>();
let admin: Admin;

function open(topics: readonly TopicSpec[], options: Partial<KafkaBusOptions> = {}): Promise<KafkaBus> {
  for (const spec of topics) createdTopics.add(spec.name);
  return KafkaBus.open({ brokers: KAFKA_BROKERS, topics, log, ...options });
}

function testTopics() {
  const catalogue = createTopicCatalogue(`test-${randomUUID().slice(0, 8)}`);
  return { catalogue, trades: catalogue.spec(catalogue.topicFor('trade'))! };
}

beforeAll(async () => {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
  admin = new Kafka({ clientId: 'bus-test', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

afterAll(async () => {
  await admin?.deleteTopics({ topics: [...createdTopics] }).catch(() => undefined);
  await admin?.disconnect();
});

busContract('kafka', { open: (topics) => open(topics) });

describe('Kafka bus', () => {
  it('keeps the copies asked for: topics get the broker default when nothing is set, and a process asking for other copies than the topics have refuses to open', async () => {
    const { trades } = testTopics();
    const bus = await open([trades]);
    await bus.close();
    const { topics } = await admin.fetchTopicMetadata({ topics: [trades.name] });
    // A single broker: its default.replication.factor is 1.
    expect(topics[0]!.partitions.every((p) => p.replicas.length === 1)).toBe(true);
    await expect(open([trades], { replicationFactor: 2 })).rejects.toThrow(
      /--replication-factor \(TAPEHOUSE_REPLICATION_FACTOR\) 2: .*\(1\)/,
    );
    // Asked for what the topics have: it opens.
    await expect(open([trades], { replicationFactor: 1 }).then((b) => b.close())).resolves.toBeUndefined();
  });

  it('creates the catalogue topics with their partitions and retention, and opening again changes nothing', async () => {
    const { catalogue } = testTopics();
    const first = await open(catalogue.topics);
    await first.close();
    const again = await open(catalogue.topics);
    await again.close();

    const { topics } = await admin.fetchTopicMetadata({ topics: catalogue.topics.map((spec) => spec.name) });
    for (const spec of catalogue.topics) {
      expect(topics.find((topic) => topic.name === spec.name)?.partitions).toHaveLength(spec.partitions);
    }
    const trades = catalogue.spec(catalogue.topicFor('trade'))!;
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: trades.name,
          configNames: ['retention.ms', 'cleanup.policy', 'message.timestamp.type'],
        },
      ],
    });
    const entries = Object.fromEntries(
      described.resources[0]!.configEntries.map((entry) => [entry.configName, entry.configValue]),
    );
    expect(entries).toEqual({
      'retention.ms': String(trades.retentionMs),
      'cleanup.policy': 'delete',
      'message.timestamp.type': 'LogAppendTime',
    });
  });

  it('keeps a record received long ago for the retention from its publishing, not from its receive time', async () => {
    const { trades } = testTopics();
    const bus = await open([trades]);
    // Received 300 days ago (a replay), on a topic that keeps records 7 days: stamped with the
    // time Kafka took it, the retention check does not delete it before a loader reads it.
    const old = { ...tradeRecord('0xc1', 'yes', 1), receivedAtUs: BigInt(Date.now() - 300 * 86_400_000) * 1000n };
    const before = Date.now();
    await bus.publish(trades.name, [old]);
    await bus.close();
    const consumer = new Kafka({
      clientId: 'bus-test-ts',
      brokers: KAFKA_BROKERS,
      logLevel: logLevel.NOTHING,
    }).consumer({ groupId: `ts-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topics: [trades.name], fromBeginning: true });
    const stamped = await new Promise<number>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(Number(message.timestamp)) });
    });
    await consumer.disconnect();
    expect(stamped).toBeGreaterThanOrEqual(before - 1_000);
    expect(stamped).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it('hands over bytes that are not a record with the reason, so a loader can dead-letter them', async () => {
    const { trades } = testTopics();
    const bus = await open([trades]);
    const producer = new Kafka({ clientId: 'bus-test', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const garbage = Buffer.from('{"v":1,"kind":"trade"', 'utf8');
    const good = tradeRecord('0xsame-key', 'yes', 1);
    await producer.send({
      topic: trades.name,
      acks: -1,
      messages: [
        { key: '0xsame-key', value: garbage },
        { key: '0xsame-key', value: encodeRecord(good) },
      ],
    });
    await producer.disconnect();

    const deliveries: unknown[] = [];
    const done = new Promise<void>((resolve) => {
      void bus.subscribe({
        group: 'dead-letter-check',
        topics: [trades.name],
        onBatch: async (batch) => {
          deliveries.push(...batch.messages);
          if (deliveries.length >= 2) resolve();
        },
      });
    });
    await done;
    expect(deliveries).toEqual([
      { offset: 0n, ok: false, reason: expect.stringMatching(/^not JSON/), bytes: garbage },
      { offset: 1n, ok: true, record: good },
    ]);
    await bus.close();
  });

  it('resumes at the group commit in a new process: a new bus delivers only the uncommitted records', async () => {
    const { trades } = testTopics();
    const feed = tradeFeed(5, 4);
    const before = await open([trades]);
    await before.publish(trades.name, feed);
    const first = await collect(before, 'loader', [trades.name]);
    await first.waitFor(feed.length);
    const positions: CommitPosition[] = [];
    const remaining = new Set<string>();
    for (let partition = 0; partition < trades.partitions; partition++) {
      const inPartition = first.received.filter((r) => r.partition === partition);
      if (inPartition.length === 0) continue;
      positions.push({ topic: trades.name, partition, next: BigInt(inPartition.length - 1) });
      remaining.add(`${partition}@${inPartition.length - 1}`);
    }
    await first.subscription.commit(positions);
    await before.close();

    const after = await open([trades]);
    const second = await collect(after, 'loader', [trades.name]);
    await second.waitFor(remaining.size);
    expect(new Set(second.received.map((r) => `${r.partition}@${r.offset}`))).toEqual(remaining);
    expect(await after.committedOffsets('loader', trades.name)).toEqual(
      new Map(positions.map((p) => [p.partition, p.next])),
    );
    await after.close();
  });

  it('splits a group between two subscribers, each told its share, and gives all back when one leaves', async () => {
    const { trades } = testTopics();
    const bus = await open([trades]);
    const shares = { first: [] as string[], second: [] as string[] };
    const watch = (name: keyof typeof shares) => ({
      group: 'shared-loader',
      topics: [trades.name],
      onBatch: async () => {},
      onAssignment: (partitions: readonly { topic: string; partition: number }[]) => {
        shares[name] = partitions.map((p) => `${p.topic}[${p.partition}]`).sort();
      },
    });
    const every = Array.from({ length: trades.partitions }, (_, partition) => `${trades.name}[${partition}]`).sort();
    const first = await bus.subscribe(watch('first'));
    expect(shares.first).toEqual(every);

    const second = await bus.subscribe(watch('second'));
    await expect.poll(() => shares.first.length + shares.second.length, { timeout: 60_000 }).toBe(trades.partitions);
    expect(shares.second.length).toBeGreaterThan(0);
    expect([...shares.first, ...shares.second].sort()).toEqual(every);

    await second.close();
    await expect.poll(() => shares.first, { timeout: 60_000 }).toEqual(every);
    await first.close();
    await bus.close();
  });

  it('keeps its place in the group through a batch that takes longer than the session timeout', async () => {
    const { trades } = testTopics();
    const sessionTimeoutMs = 6_000; // the broker's smallest allowed session
    const bus = await open([trades], { sessionTimeoutMs });
    const feed = tradeFeed(1, 2); // one key: one partition, one batch
    await bus.publish(trades.name, feed);
    const seen: bigint[] = [];
    let batchDone!: (position: CommitPosition) => void;
    const firstBatch = new Promise<CommitPosition>((resolve) => (batchDone = resolve));
    const subscription = await bus.subscribe({
      group: 'slow-loader',
      topics: [trades.name],
      onBatch: async (batch) => {
        seen.push(...batch.messages.map((m) => m.offset));
        // A warehouse insert stuck for well over a session.
        await new Promise((wait) => setTimeout(wait, sessionTimeoutMs * 2.5));
        batchDone(positionAfter(batch));
      },
    });
    const position = await firstBatch;
    await subscription.commit([position]);
    expect(await bus.committedOffsets('slow-loader', trades.name)).toEqual(
      new Map([[position.partition, BigInt(feed.length)]]),
    );
    expect(seen).toEqual(feed.map((_, i) => BigInt(i)));
    await bus.close();
  });

  it('publishes GZIP-compressed batches that read back unchanged', async () => {
    const { trades } = testTopics();
    const bus = await open([trades], { compression: 'gzip' });
    const feed = tradeFeed(3, 20).map((record) => ({ ...record, raw: JSON.stringify(record.payload).repeat(20) }));
    await bus.publish(trades.name, feed);
    const consumer = await collect(bus, 'loader', [trades.name]);
    await consumer.waitFor(feed.length);
    expect(
      new Set(
        consumer.received.map((r) =>
          JSON.stringify(r.record, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
        ),
      ),
    ).toEqual(
      new Set(feed.map((record) => JSON.stringify(record, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)))),
    );
    await bus.close();
  });
});
