import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// kafkajs appears here only to look at the broker's topic configuration from outside the bus.
import { ConfigResourceTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { createLogger } from '../../src/util/log.ts';
import { KAFKA_BROKERS, requireService } from './services.ts';

/**
 * `--bus-retention` (TAPEHOUSE_BUS_RETENTION, docker-compose.yml's way to size Kafka's hold on
 * tapehouse's records): topics are created with it, and an existing topic whose retention.ms
 * differs gets it at the next start, the rest of its configuration kept.
 */
const log = createLogger('bus.kafka.retention.test', 'error');
const catalogue = createTopicCatalogue(`retention-${randomUUID().slice(0, 8)}`);
const topics = catalogue.topics.filter(
  (spec) => spec.name.endsWith('.market.trades') || spec.name.endsWith('.account.events'),
);
let admin: Admin;

async function configOf(name: string): Promise<Record<string, string>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name }],
  });
  return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
}

beforeAll(async () => {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
  admin = new Kafka({ clientId: 'retention-test', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

afterAll(async () => {
  await admin?.deleteTopics({ topics: topics.map((spec) => spec.name) }).catch(() => undefined);
  await admin?.disconnect();
});

describe('the bus retention setting, on real Kafka', () => {
  it('creates topics with it and sets it on existing ones, keeping their other settings', async () => {
    expect(topics).toHaveLength(2);
    const first = await KafkaBus.open({ brokers: KAFKA_BROKERS, topics, log, retentionMs: 3_600_000 });
    await first.close();
    for (const spec of topics) {
      const config = await configOf(spec.name);
      expect(config['retention.ms'], spec.name).toBe('3600000');
      expect(config['message.timestamp.type'], spec.name).toBe('LogAppendTime');
    }
    // Without the setting, an existing topic is left as it is.
    await (await KafkaBus.open({ brokers: KAFKA_BROKERS, topics, log })).close();
    expect((await configOf(topics[0]!.name))['retention.ms']).toBe('3600000');

    await (await KafkaBus.open({ brokers: KAFKA_BROKERS, topics, log, retentionMs: 2 * 86_400_000 })).close();
    for (const spec of topics) {
      const config = await configOf(spec.name);
      expect(config['retention.ms'], spec.name).toBe(String(2 * 86_400_000));
      expect(config['message.timestamp.type'], spec.name).toBe('LogAppendTime');
      expect(config['max.message.bytes'], spec.name).toBe(String(spec.maxRecordBytes + 64 * 1024));
      expect(config['cleanup.policy'], spec.name).toBe('delete');
    }
  }, 60_000);
});
