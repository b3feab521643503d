import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { partitionFor } from '../src/bus/partitioner.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { startLoaders } from '../src/load/index.ts';
import { createLogger } from '../src/util/log.ts';
import {
  compareTables,
  expectedKeys,
  MARKET_KINDS,
  NATURAL_KEYS,
  RecordGenerator,
  type Generated,
  drained,
  publishAll,
} from './load-fixtures.ts';
import { mortal } from './load-warehouses.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';
import { nowMicros } from '../src/util/clock.ts';

/**
 * The embedded bus keeps records in memory: a process killed with records published but not yet
 * stored loses them. The next start must say so — a `capture_gaps` row per topic-partition, from
 * the last instant known stored to the restart — so that every record published is either stored
 * once or inside a recorded gap of its partition. A clean stop leaves no gap.
 */

const log = createLogger('load.test', 'silent');
let w: TestWarehouse;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
});

const catalogue = createTopicCatalogue('emb');
const topics = catalogue.topics.map((spec) => spec.name);
let lastUs = 0n;
/** Receive times from the wall clock, strictly increasing (as capture's are). */
const clock = () => (lastUs = nowMicros() > lastUs ? nowMicros() : lastUs + 1n);

interface BusGap {
  channel: string;
  subject: string;
  start: string;
  end: string;
}

async function busGaps(): Promise<BusGap[]> {
  return rows<BusGap>(
    w.warehouse.client,
    `SELECT channel, subject, toString(toUnixTimestamp64Micro(gap_start)) AS start, toString(toUnixTimestamp64Micro(gap_end)) AS end
     FROM tapehouse.capture_gaps WHERE stream = 'bus' AND reason = 'bus_undelivered' AND startsWith(channel, 'emb.')`,
  );
}

/** The natural keys stored per table, for the rows loaded from this test's topics. */
async function storedKeys(tables: Iterable<string>): Promise<Map<string, Set<string>>> {
  const keys = new Map<string, Set<string>>();
  for (const table of tables) {
    const found = await rows<{ k: string }>(
      w.warehouse.client,
      `SELECT ${NATURAL_KEYS[table]} AS k FROM tapehouse.${table} WHERE startsWith(_topic, 'emb.')`,
    );
    keys.set(table, new Set(found.map((row) => row.k)));
  }
  return keys;
}

describe('the embedded bus across a process restart', () => {
  it('records what a killed process had not stored as a gap of its partition, with exact bounds; a clean stop records none', async () => {
    const generator = new RecordGenerator(21, catalogue, { kinds: MARKET_KINDS, clock });
    // Run 1: stores a first lot, then is killed just after publishing a second one.
    const first = new EmbeddedBus({ topics: catalogue.topics });
    const death = mortal(w.warehouse, Number.POSITIVE_INFINITY, false);
    const run1 = await startLoaders({
      bus: first,
      warehouse: death.warehouse,
      group: 'main',
      topics,
      batch: { maxDelayMs: 50 },
      log,
    });
    const storedLot = generator.take(800);
    await publishAll(first, storedLot);
    await drained(run1);
    const lostLot = generator.take(400);
    await publishAll(first, lostLot);
    death.kill();

    // Run 2: a new process (a new bus), the same warehouse.
    const restartFrom = nowMicros();
    const second = new EmbeddedBus({ topics: catalogue.topics });
    const run2 = await startLoaders({
      bus: second,
      warehouse: w.warehouse,
      group: 'main',
      topics,
      batch: { maxDelayMs: 50 },
      log,
    });
    const restartTo = nowMicros();
    const laterLot = generator.take(300);
    await publishAll(second, laterLot);
    await drained(run2);
    expect((await run2.stats()).busGapsRecorded).toBe(catalogue.topics.reduce((n, spec) => n + spec.partitions, 0));
    await run2.stop();

    const gaps = await busGaps();
    const gapOf = (g: Generated) => {
      const spec = catalogue.spec(g.topic)!;
      return gaps.find(
        (gap) => gap.channel === g.topic && gap.subject === String(partitionFor(g.record.key, spec.partitions)),
      );
    };
    for (const gap of gaps) {
      expect(BigInt(gap.end)).toBeGreaterThanOrEqual(restartFrom);
      expect(BigInt(gap.end)).toBeLessThanOrEqual(restartTo);
    }
    // What was stored before the kill is there once, and no gap starts before it.
    const checks = await compareTables(w.warehouse.client, expectedKeys([...storedLot, ...laterLot]), 'emb.');
    expect(checks.filter((c) => c.stored !== c.expected || c.distinct !== c.stored || c.missing.length > 0)).toEqual(
      [],
    );
    for (const g of storedLot) expect(BigInt(gapOf(g)!.start)).toBeGreaterThanOrEqual(g.record.receivedAtUs);
    // Each record of the second lot is stored, or its receive time lies inside its partition's gap.
    const keys = await storedKeys(expectedKeys(lostLot).keys());
    let lost = 0;
    for (const g of lostLot) {
      if (g.rows.every(({ table, key }) => keys.get(table)!.has(key))) continue;
      lost += 1;
      const gap = gapOf(g)!;
      expect(g.record.receivedAtUs).toBeGreaterThanOrEqual(BigInt(gap.start));
      expect(g.record.receivedAtUs).toBeLessThanOrEqual(BigInt(gap.end));
    }
    expect(lost).toBeGreaterThan(0);

    // Run 2 stopped cleanly, with nothing left unstored: run 3 finds no gap to record.
    const third = new EmbeddedBus({ topics: catalogue.topics });
    const run3 = await startLoaders({
      bus: third,
      warehouse: w.warehouse,
      group: 'main',
      topics,
      batch: { maxDelayMs: 50 },
      log,
    });
    expect((await run3.stats()).busGapsRecorded).toBe(0);
    await run3.stop();
    expect(await busGaps()).toHaveLength(gaps.length);
  });
});
