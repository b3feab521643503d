import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded.ts';
import { createTopicCatalogue, type TopicCatalogue } from '../src/bus/topics.ts';
import { startLoaders } from '../src/load/index.ts';
import { Prng } from '../src/simulator/prng.ts';
import { createLogger } from '../src/util/log.ts';
import type { Warehouse } from '../src/warehouse/warehouse.ts';
import { compareTables, expectedKeys, RecordGenerator, type Generated, drained } from './load-fixtures.ts';
import { flaky, mortal } from './load-warehouses.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * Exactly once against chDB, in one process: a "kill" is a warehouse that stops answering at a
 * chosen call (before the call reaches the engine, or after it did), as a SIGKILL would leave it.
 * Each life of the loader gets a new bus holding the same records at the same offsets, and the
 * commits the previous life made — what Kafka keeps across a loader's restart.
 */

const log = createLogger('load.test', 'silent');
const KILLS = 20;
let w: TestWarehouse;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
});

/** The real warehouse, noting how each table's inserts travelled ("<table> <format>"). */
function noting(real: Warehouse, seen: Set<string>): Warehouse {
  return {
    ...real,
    async prepareInsert(table, rows, options) {
      const prepared = await real.prepareInsert(table, rows, options);
      seen.add(`${prepared.table} ${prepared.format}`);
      return prepared;
    },
  };
}

type Commits = Map<string, Map<number, bigint>>;

/** A bus with the records published in order (so each gets the same offset every time) and the group's commits restored. */
async function busWith(records: readonly Generated[], catalogue: TopicCatalogue, group: string, commits: Commits): Promise<EmbeddedBus> {
  const bus = new EmbeddedBus({ topics: catalogue.topics });
  for (const { topic, record } of records) await bus.publish(topic, [record]);
  const positions = [...commits].flatMap(([topic, partitions]) => [...partitions].map(([partition, next]) => ({ topic, partition, next })));
  const restorer = await bus.subscribe({ group, topics: catalogue.topics.map((spec) => spec.name), onBatch: async () => undefined });
  if (positions.length > 0) await restorer.commit(positions);
  await restorer.close();
  return bus;
}

async function commitsOf(bus: EmbeddedBus, catalogue: TopicCatalogue, group: string): Promise<Commits> {
  const commits: Commits = new Map();
  for (const { name } of catalogue.topics) commits.set(name, new Map(await bus.committedOffsets(group, name)));
  return commits;
}

async function expectExactlyPublished(records: readonly Generated[], prefix: string): Promise<void> {
  const checks = await compareTables(w.warehouse.client, expectedKeys(records), `${prefix}.`);
  const wrong = checks.filter((c) => c.stored !== c.expected || c.distinct !== c.stored || c.missing.length > 0 || c.unexpected.length > 0);
  expect(wrong).toEqual([]);
  expect(checks.length).toBeGreaterThanOrEqual(20);
}

describe('exactly once', () => {
  it('a loader killed at random warehouse calls, and restarted each time, stores every record once', async () => {
    const catalogue = createTopicCatalogue('eo');
    const records = new RecordGenerator(11, catalogue).take(1500);
    const group = 'eo-loaders';
    const random = new Prng(5);
    const batch = { maxRows: 150, maxDelayMs: 30 };
    let commits: Commits = new Map();
    let kills = 0;
    const seen = new Set<string>();
    for (let life = 0; kills < KILLS; life++) {
      const bus = await busWith(records, catalogue, group, commits);
      const death = mortal(noting(w.warehouse, seen), 1 + random.int(0, 30), random.chance(0.5));
      const run = startLoaders({ bus, warehouse: death.warehouse, group, topics: catalogue.topics.map((s) => s.name), batch, busEpoch: 'durable', log });
      const outcome = await Promise.race([death.died.then(() => 'killed' as const), run.then(drained).then(() => 'drained' as const)]);
      commits = await commitsOf(bus, catalogue, group);
      if (outcome === 'drained') {
        await (await run).stop();
        break;
      }
      kills += 1;
    }
    if (kills >= KILLS) {
      // The last life runs to the end.
      const bus = await busWith(records, catalogue, group, commits);
      const loaders = await startLoaders({
        bus,
        warehouse: noting(w.warehouse, seen),
        group,
        topics: catalogue.topics.map((s) => s.name),
        batch,
        busEpoch: 'durable',
        log,
      });
      await drained(loaders);
      await loaders.stop();
    }
    expect(kills).toBeGreaterThanOrEqual(20);
    // The data went the fast way (a Native block read from a file), and dedup held on it.
    expect([...seen]).toEqual(expect.arrayContaining(['tapehouse.book_changes Native', 'tapehouse.trades Native', 'tapehouse.markets Native']));
    await expectExactlyPublished(records, 'eo');
    // Some kills hit between a batch's `before` and its `after`: those ranges were inserted again, identically.
    const [rebuilt] = await rows<{ n: string }>(
      w.warehouse.client,
      `SELECT count() AS n FROM (SELECT 1 FROM tapehouse.loader_offsets WHERE consumer_group = '${group}' AND state = 'before'
       GROUP BY topic, partition, target_table, min_offset, max_offset HAVING count() > 1)`,
    );
    expect(Number(rebuilt!.n)).toBeGreaterThan(0);
  });

  it('while the warehouse is down nothing is committed or dropped; once it answers, everything is stored once', async () => {
    const catalogue = createTopicCatalogue('down');
    const records = new RecordGenerator(12, catalogue).take(1500);
    let down = false;
    const bus = new EmbeddedBus({ topics: catalogue.topics });
    const loaders = await startLoaders({
      bus,
      warehouse: flaky(w.warehouse, () => down),
      group: 'down-loaders',
      topics: catalogue.topics.map((s) => s.name),
      batch: { maxDelayMs: 20 },
      log,
    });
    down = true;
    for (const { topic, record } of records) await bus.publish(topic, [record]);
    let stats = await loaders.stats();
    while (!stats.warehouseDown) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stats = await loaders.stats();
    }
    expect(stats.lag).toBe(records.length);
    expect(stats.rows).toEqual({});
    down = false;
    await drained(loaders);
    expect((await loaders.stats()).warehouseDown).toBe(false);
    await loaders.stop();
    await expectExactlyPublished(records, 'down');
  });
});
