import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';
import { KAFKA_BROKERS, requireService } from './services.ts';

describe('real Kafka broker (smoke)', () => {
  const kafka = new Kafka({ clientId: 'tapehouse-smoke', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING });
  const topic = `smoke-${randomUUID()}`;
  let admin: Admin;
  let producer: Producer;
  let consumer: Consumer;

  beforeAll(async () => {
    await requireService('Kafka', KAFKA_BROKERS[0]!);
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    consumer = kafka.consumer({ groupId: `smoke-${randomUUID()}` });
    await consumer.connect();
  });

  afterAll(async () => {
    await consumer?.disconnect();
    await producer?.disconnect();
    await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin?.disconnect();
  });

  it('produces a keyed message with acks=-1 and consumes it back on the key’s partition', async () => {
    const key = 'condition-0xabc';
    const value = JSON.stringify({ price_micro: '9223372036854775807' });
    const [ack] = await producer.send({ topic, acks: -1, messages: [{ key, value }] });
    expect(ack?.errorCode).toBe(0);

    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise<{ key: string; value: string; partition: number }>((resolve) => {
      void consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch, resolveOffset }) => {
          for (const m of batch.messages) {
            resolveOffset(m.offset);
            resolve({ key: m.key!.toString(), value: m.value!.toString(), partition: batch.partition });
          }
        },
      });
    });
    expect(received).toEqual({ key, value, partition: ack!.partition });
    expect(JSON.parse(received.value).price_micro).toBe('9223372036854775807');
  });
});
