import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { startLoaders, type Loaders } from '../../src/load/index.ts';
import { createLogger } from '../../src/util/log.ts';
import { migrate } from '../../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../../src/warehouse/warehouse.ts';
import { RecordGenerator } from '../load-fixtures.ts';
import { rows } from '../warehouse-fixtures.ts';
import { KAFKA_BROKERS, requireService } from './services.ts';

// Records Kafka deleted (retention ran out) before the loaders stored them: the loaders cannot
// bring them back, but they must say so — a recorded gap — and store everything after them once.

const prefix = `expired-${randomUUID().slice(0, 8)}`;
const catalogue = createTopicCatalogue(prefix);
const trades = catalogue.spec(catalogue.topicFor('trade'))!;
const log = createLogger('load.expired.test', 'silent');
let admin: Admin;
let dataDir: string;

beforeAll(async () => {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
  admin = new Kafka({ clientId: 'expired-test', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-load-expired-'));
});

afterAll(async () => {
  await admin?.deleteTopics({ topics: [trades.name] }).catch(() => undefined);
  await admin?.disconnect();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function loadAll(bus: KafkaBus, warehouse: EmbeddedWarehouse, group: string): Promise<void> {
  const loaders: Loaders = await startLoaders({
    bus,
    warehouse,
    group,
    topics: [trades.name],
    batch: { maxDelayMs: 100 },
    log,
  });
  for (;;) {
    const stats = await loaders.stats();
    if (stats.lag === 0 && stats.queuedRows === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await loaders.stop();
}

describe('loading from Kafka after retention deleted records', () => {
  it('records the deleted offsets of each partition as a bus gap and stores the rest once; a restart records nothing again', async () => {
    const bus = await KafkaBus.open({ brokers: KAFKA_BROKERS, topics: [trades], log });
    const warehouse = await openEmbeddedWarehouse(dataDir);
    try {
      await migrate(warehouse.client);
      const group = `${prefix}-loaders`;
      // Received a millisecond apart, in publishing order.
      let receivedUs = BigInt(Date.now()) * 1000n;
      const generated = new RecordGenerator(5, catalogue, {
        kinds: new Set(['trade']),
        clock: () => (receivedUs += 1000n),
      }).take(40);
      await bus.publish(
        trades.name,
        generated.slice(0, 20).map((g) => g.record),
      );
      // The group stores the first half, then is away while retention deletes what follows it.
      await loadAll(bus, warehouse, group);
      const stored = await admin.fetchTopicOffsets(trades.name);
      await bus.publish(
        trades.name,
        generated.slice(20).map((g) => g.record),
      );
      const ends = await admin.fetchTopicOffsets(trades.name);
      const cuts = ends.map(({ partition, high }) => {
        const from = BigInt(stored.find((p) => p.partition === partition)!.high);
        // Deletes every record but the last of those published while the group was away.
        return { partition, from, to: BigInt(high) > from ? BigInt(high) - 1n : from };
      });
      await admin.deleteTopicRecords({
        topic: trades.name,
        partitions: cuts.map(({ partition, to }) => ({ partition, offset: String(to) })),
      });

      await loadAll(bus, warehouse, group);
      const lost = cuts.filter(({ from, to }) => to > from).sort((a, b) => a.partition - b.partition);
      expect(lost.length).toBeGreaterThan(0);
      const kept = 40 - lost.reduce((n, { from, to }) => n + Number(to - from), 0);
      expect(
        await rows(warehouse.client, `SELECT count() AS n, uniqExact(trade_id) AS d FROM tapehouse.trades`),
      ).toEqual([{ n: String(kept), d: String(kept) }]);
      const gapsQuery = `SELECT subject, reason, recovery, JSONExtractString(detail, 'first_missing_offset') AS first, JSONExtractString(detail, 'last_missing_offset') AS last,
                                gap_start < gap_end AS ordered
                         FROM tapehouse.capture_gaps WHERE stream = 'bus' AND channel = '${trades.name}' ORDER BY toUInt32(subject)`;
      const expected = lost.map(({ partition, from, to }) => ({
        subject: String(partition),
        reason: 'bus_expired',
        recovery: 'none',
        first: String(from),
        last: String(to - 1n),
        ordered: 1,
      }));
      expect(await rows(warehouse.client, gapsQuery)).toEqual(expected);

      // Again, from where the group stands: nothing more is lost, nothing is recorded twice.
      await loadAll(bus, warehouse, group);
      expect(await rows(warehouse.client, gapsQuery)).toEqual(expected);
    } finally {
      await warehouse.close();
      await bus.close();
    }
  });
});
