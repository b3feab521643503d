import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { Prng } from '../../src/simulator/prng.ts';
import { publishAll } from '../../src/sync/publisher.ts';
import { createLogger } from '../../src/util/log.ts';
import { openEmbeddedWarehouse } from '../../src/warehouse/warehouse.ts';
import { compareTables, expectedKeys, RecordGenerator, type Generated } from '../load-fixtures.ts';
import { rows } from '../warehouse-fixtures.ts';
import { sleep, spawnTapehouse } from './load-helpers.ts';
import { KAFKA_BROKERS, requireService } from './services.ts';

/**
 * The loader as users run it at scale (`tapehouse load`, Kafka → chDB), killed with SIGKILL at 20
 * random instants — during its start (migrations, joining the group) or while it loads — while a
 * producer streams seeded records of every kind. After the last restart every table holds exactly
 * the records published: compared by natural key and by count, none missing, none twice. The
 * views are read through the embedded endpoint with @clickhouse/client while it loads.
 */

const KILLS = 20;
const log = createLogger('load.kill.test', 'silent');
const prefix = `loadkill-${randomUUID().slice(0, 8)}`;
const catalogue = createTopicCatalogue(prefix);
const topics = catalogue.topics.map((spec) => spec.name);
const group = `${prefix}-loaders`;
let dataDir: string;

beforeAll(async () => {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
  dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-load-kill-'));
});

afterAll(async () => {
  const admin = new Kafka({
    clientId: 'load-kill-cleanup',
    brokers: KAFKA_BROKERS,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.deleteGroups([group]).catch(() => undefined);
  await admin.disconnect();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const VIEWS = [
  'candles_1m',
  'candles_1h',
  'top_of_book_1m',
  'volume_daily_by_market',
  'volume_daily_by_category',
  'market_lifecycle',
  'fills',
  'activities',
  'orders_latest',
  'positions_latest',
];

describe('tapehouse load on Kafka, killed with SIGKILL', () => {
  it('after 20 kills at random instants every table holds exactly the records published; the views answer while it loads', async () => {
    const producerBus = await KafkaBus.open({ brokers: KAFKA_BROKERS, topics: catalogue.topics, log });
    const generator = new RecordGenerator(31, catalogue);
    const published: Generated[] = [];
    let producing = true;
    const producer = (async () => {
      while (producing) {
        const lot = generator.take(25);
        await publishAll(
          producerBus,
          catalogue,
          lot.map((g) => g.record),
        );
        published.push(...lot);
        await sleep(50);
      }
    })();

    const args = [
      'load',
      '--topic-prefix',
      prefix,
      '--data-dir',
      dataDir,
      '--group',
      group,
      '--batch-ms',
      '300',
      '--session-timeout',
      '6s',
      '--stats-every',
      '0s',
    ];
    const random = new Prng(7);
    for (let kill = 0; kill < KILLS; kill++) {
      const child = spawnTapehouse(args);
      if (random.chance(0.2)) {
        // Somewhere in its start: opening chDB, migrating, joining the group.
        await Promise.race([sleep(random.int(300, 5000)), child.ready]);
      } else {
        await child.ready;
        await sleep(random.int(50, 3000));
      }
      child.process.kill('SIGKILL');
      await child.exited;
    }
    producing = false;
    await producer;

    // The last run: catch up, with the views read through the endpoint meanwhile, then stop cleanly.
    const last = spawnTapehouse(args);
    const url = /reads at (\S+)/.exec(await last.ready)?.[1];
    expect(url).toBeDefined();
    const reader = createClient({ url: url! });
    let reads = 0;
    for (;;) {
      for (const view of VIEWS) {
        const result = await reader.query({
          query: `SELECT count() AS n FROM tapehouse.${view}`,
          format: 'JSONEachRow',
        });
        expect((await result.json<{ n: string }>())[0]).toBeDefined();
        reads += 1;
      }
      const lag = (await producerBus.lag(group, topics)).reduce((sum, entry) => sum + entry.lag, 0n);
      if (lag === 0n) break;
      await sleep(250);
    }
    const [candles] = await (
      await reader.query({ query: 'SELECT sum(trade_count) AS n FROM tapehouse.candles_1m', format: 'JSONEachRow' })
    ).json<{ n: string }>();
    expect(Number(candles!.n)).toBeGreaterThan(0);
    await reader.close();
    last.process.kill('SIGTERM');
    expect(await last.exited).toBe(0);
    await producerBus.close();
    expect(reads).toBeGreaterThan(0);

    const warehouse = await openEmbeddedWarehouse(dataDir);
    try {
      const checks = await compareTables(warehouse.client, expectedKeys(published), `${prefix}.`);
      const wrong = checks.filter(
        (c) => c.stored !== c.expected || c.distinct !== c.stored || c.missing.length > 0 || c.unexpected.length > 0,
      );
      expect(wrong).toEqual([]);
      expect(checks.length).toBeGreaterThanOrEqual(20);
      expect(published.length).toBeGreaterThan(1000);
      // The rollups saw each trade once too (a re-inserted batch adds nothing to them), and fills shows each fill once.
      const [totals] = await rows<{ trades: string; candle_trades: string; fills: string; fill_ids: string }>(
        warehouse.client,
        `SELECT (SELECT count() FROM tapehouse.trades) AS trades, (SELECT sum(trade_count) FROM tapehouse.candles_1m) AS candle_trades,
                (SELECT count() FROM tapehouse.fills_latest) AS fills, (SELECT uniqExact(account, fill_id) FROM tapehouse.fill_observations) AS fill_ids`,
      );
      expect(totals!.candle_trades).toBe(totals!.trades);
      expect(totals!.fills).toBe(totals!.fill_ids);
    } finally {
      await warehouse.close();
    }
  }, 900_000);
});
