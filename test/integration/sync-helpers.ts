import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { positionAfter } from '../../src/bus/bus.ts';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { type ReceivedRecord, type RecordKind } from '../../src/bus/record.ts';
import { createTopicCatalogue, type TopicCatalogue } from '../../src/bus/topics.ts';
import { createLogger } from '../../src/util/log.ts';
import { KAFKA_BROKERS, TEMPORAL_ADDRESS, requireService } from './services.ts';
import { nowMicros } from '../../src/util/clock.ts';

/** Shared set-up of the Temporal + Kafka sync suites: services, a topic prefix of their own, clean-up. */
export interface SyncServices {
  prefix: string;
  topics: TopicCatalogue;
  bus: KafkaBus;
  client: Client;
  workerConnection: NativeConnection;
  close(): Promise<void>;
}

export async function syncServices(): Promise<SyncServices> {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
  await requireService('Temporal', TEMPORAL_ADDRESS);
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Installed already by an earlier suite in this process.
  }
  const prefix = `it-sync-${randomUUID().slice(0, 8)}`;
  const topics = createTopicCatalogue(prefix);
  const bus = await KafkaBus.open({ brokers: KAFKA_BROKERS, topics: topics.topics, log: createLogger('bus', 'error') });
  const connection = await Connection.connect({ address: TEMPORAL_ADDRESS });
  const workerConnection = await NativeConnection.connect({ address: TEMPORAL_ADDRESS });
  return {
    prefix,
    topics,
    bus,
    client: new Client({ connection }),
    workerConnection,
    async close() {
      await bus.close();
      await workerConnection.close();
      await connection.close();
      const admin = new Kafka({ clientId: 'sync-test', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      await admin.deleteTopics({ topics: topics.topics.map((t) => t.name) }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}

/**
 * Reads a kind's topic back, as a loader would, for as long as the test runs: the records made
 * from now on (earlier tests of the suite share the topics).
 */
export async function readBack(
  services: SyncServices,
  kind: RecordKind,
): Promise<{ records: ReceivedRecord[]; stop(): Promise<void> }> {
  const records: ReceivedRecord[] = [];
  const since = nowMicros();
  const subscription = await services.bus.subscribe({
    group: `reader-${randomUUID().slice(0, 8)}`,
    topics: [services.topics.topicFor(kind)],
    onBatch: async (batch) => {
      for (const message of batch.messages)
        if (message.ok && message.record.receivedAtUs >= since) records.push(message.record);
      await subscription.commit([positionAfter(batch)]);
    },
  });
  return { records, stop: () => subscription.close() };
}

/** Polls until the condition holds (the suite's timeout bounds it). */
export async function eventually(condition: () => boolean | Promise<boolean>, everyMs = 100): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, everyMs));
}

export function taskQueue(services: SyncServices, name: string): string {
  return `${services.prefix}-${name}`;
}
