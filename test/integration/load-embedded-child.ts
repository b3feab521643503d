/**
 * A main-job-like process for test/integration/load-embedded-kill.test.ts: the embedded bus, the
 * loaders into chDB on a data directory, and a producer streaming seeded market records with
 * wall-clock receive times. Each lot of records is appended to a file once the bus has it (so a
 * SIGKILL leaves the list of what was published), and "ready" is printed once loading.
 * On SIGTERM it stops producing, stops the loaders (stores and commits everything) and exits 0.
 *
 *   node --import tsx load-embedded-child.ts DATA_DIR PUBLISHED_FILE FIRST_INDEX TOPIC_PREFIX
 */
import { appendFileSync } from 'node:fs';
import { EmbeddedBus } from '../../src/bus/embedded/embedded-bus.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { startLoaders } from '../../src/load/index.ts';
import { publishAll } from '../../src/sync/publisher.ts';
import { createLogger } from '../../src/util/log.ts';
import { migrate } from '../../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse } from '../../src/warehouse/warehouse.ts';
import { MARKET_KINDS, RecordGenerator } from '../load-fixtures.ts';
import { nowMicros } from '../../src/util/clock.ts';

let producing = true;
process.on('SIGTERM', () => (producing = false));

const [dataDir, publishedFile, firstIndex, topicPrefix] = process.argv.slice(2);
const catalogue = createTopicCatalogue(topicPrefix);
const warehouse = await openEmbeddedWarehouse(dataDir!);
await migrate(warehouse.client);
const bus = new EmbeddedBus({ topics: catalogue.topics });
const loaders = await startLoaders({
  bus,
  warehouse,
  group: 'main',
  topics: catalogue.topics.map((spec) => spec.name),
  batch: { maxDelayMs: 200 },
  log: createLogger('child', 'warn'),
});
const stats = await loaders.stats();
process.stdout.write(`ready ${stats.busGapsRecorded}\n`);

let last = 0n;
const clock = () => (last = nowMicros() > last ? nowMicros() : last + 1n);
const generator = new RecordGenerator(Number(firstIndex), catalogue, {
  kinds: MARKET_KINDS,
  clock,
  firstIndex: Number(firstIndex),
});
while (producing) {
  const lot = generator.take(20);
  await publishAll(
    bus,
    catalogue,
    lot.map((g) => g.record),
  );
  appendFileSync(
    publishedFile!,
    lot
      .map(
        (g) =>
          `${JSON.stringify({ topic: g.topic, key: g.record.key, receivedAtUs: String(g.record.receivedAtUs), rows: g.rows })}\n`,
      )
      .join(''),
  );
  await new Promise((resolve) => setTimeout(resolve, 10));
}
await loaders.stop();
await bus.close();
await warehouse.close();
process.stdout.write('stopped\n');
