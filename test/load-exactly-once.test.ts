import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from '../src/bus/bus.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { createTopicCatalogue, type TopicCatalogue } from '../src/bus/topics.ts';
import { startLoaders } from '../src/load/index.ts';
import { readPartitionStarts } from '../src/load/state/loader-offsets.ts';
import { Prng } from '../src/simulator/prng.ts';
import { createLogger } from '../src/util/log.ts';
import type { Warehouse } from '../src/warehouse/warehouse.ts';
import { busWithSubscribe } from './bus-contract.ts';
import { compareTables, expectedKeys, RecordGenerator, type Generated, drained } from './load-fixtures.ts';
import { flaky, mortal, mortalAfterInsert, mortalWithLateInsert } from './load-warehouses.ts';
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
    ownSession: async () => noting(await real.ownSession(), seen),
  };
}

type Commits = Map<string, Map<number, bigint>>;

/** A bus with the records published in order (so each gets the same offset every time) and the group's commits
 * restored. */
async function busWith(
  records: readonly Generated[],
  catalogue: TopicCatalogue,
  group: string,
  commits: Commits,
): Promise<EmbeddedBus> {
  const bus = new EmbeddedBus({ topics: catalogue.topics });
  for (const { topic, record } of records) await bus.publish(topic, [record]);
  const positions = [...commits].flatMap(([topic, partitions]) =>
    [...partitions].map(([partition, next]) => ({ topic, partition, next })),
  );
  const restorer = await bus.subscribe({
    group,
    topics: catalogue.topics.map((spec) => spec.name),
    onBatch: async () => undefined,
  });
  if (positions.length > 0) await restorer.commit(positions);
  await restorer.close();
  return bus;
}

/** The commits, as text to compare. */
function positions(commits: Commits): string {
  return JSON.stringify([...commits].map(([topic, partitions]) => [topic, [...partitions].map(String)]));
}

async function commitsOf(bus: EmbeddedBus, catalogue: TopicCatalogue, group: string): Promise<Commits> {
  const commits: Commits = new Map();
  for (const { name } of catalogue.topics) commits.set(name, new Map(await bus.committedOffsets(group, name)));
  return commits;
}

/** Trades in the candles the trades of `topic` fall in (their minutes, from the first to the last), and the trades. */
async function candleTrades(topic: string): Promise<{ trades: number; candles: number }> {
  const [result] = await rows<{ trades: string; candles: string }>(
    w.warehouse.client,
    `WITH (SELECT (min(executed_at), max(executed_at)) FROM tapehouse.trades WHERE _topic = '${topic}') AS span
     SELECT (SELECT count() FROM tapehouse.trades WHERE _topic = '${topic}') AS trades,
            (SELECT sum(trade_count) FROM tapehouse.candles_1m WHERE bucket >= toStartOfMinute(span.1) AND bucket <= span.2) AS candles`,
  );
  return { trades: Number(result!.trades), candles: Number(result!.candles) };
}

async function expectExactlyPublished(records: readonly Generated[], prefix: string, tables = 20): Promise<void> {
  const checks = await compareTables(w.warehouse.client, expectedKeys(records), `${prefix}.`);
  const wrong = checks.filter(
    (c) => c.stored !== c.expected || c.distinct !== c.stored || c.missing.length > 0 || c.unexpected.length > 0,
  );
  expect(wrong).toEqual([]);
  expect(checks.length).toBeGreaterThanOrEqual(tables);
}

describe('exactly once', () => {
  it('a loader killed at random warehouse calls, and restarted each time, stores every record once', async () => {
    const catalogue = createTopicCatalogue('eo');
    const generator = new RecordGenerator(11, catalogue);
    const records = generator.take(1500);
    const group = 'eo-loaders';
    const random = new Prng(5);
    const batch = { maxRows: 150, maxDelayMs: 30 };
    let commits: Commits = new Map();
    let kills = 0;
    const seen = new Set<string>();
    // A life dies at one of 31 calls at random. A round sent again whole after a kill takes as
    // many inserts as it had tables: after a life that stored nothing, the 31 calls start later,
    // so that every life moves the loader on. A life that stores everything before its death
    // finds more records published for the next one, until 20 lives were killed.
    let later = 0;
    while (kills < KILLS) {
      const bus = await busWith(records, catalogue, group, commits);
      const death = mortal(
        noting(w.warehouse, seen),
        later + 1 + random.int(0, 30),
        random.chance(0.5),
        random.int(0, 400),
      );
      const run = startLoaders({
        bus,
        warehouse: death.warehouse,
        group,
        topics: catalogue.topics.map((s) => s.name),
        batch,
        busEpoch: 'durable',
        log,
      });
      const outcome = await Promise.race([
        death.died.then(() => 'killed' as const),
        run.then(drained).then(() => 'drained' as const),
      ]);
      const before = positions(commits);
      commits = await commitsOf(bus, catalogue, group);
      if (outcome === 'drained') {
        await (await run).stop();
        records.push(...generator.take(1000));
        later = 0;
        continue;
      }
      kills += 1;
      later = positions(commits) === before ? later + 15 : 0;
    }
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
    expect(kills).toBeGreaterThanOrEqual(20);
    // The data went the fast way (a Native block read from a file), and dedup held on it.
    expect([...seen]).toEqual(
      expect.arrayContaining(['tapehouse.book_changes Native', 'tapehouse.trades Native', 'tapehouse.markets Native']),
    );
    await expectExactlyPublished(records, 'eo');
    // The candles (a materialized view of the trades) count each trade once too.
    const candles = await candleTrades(catalogue.topicFor('trade'));
    expect(candles.candles).toBe(candles.trades);
    // Some kills hit between a batch's `before` and its `after`: those ranges were inserted again, identically.
    const [rebuilt] = await rows<{ n: string }>(
      w.warehouse.client,
      `SELECT count() AS n FROM (SELECT 1 FROM tapehouse.loader_offsets WHERE consumer_group = '${group}' AND state = 'before'
       GROUP BY topic, partition, target_table, min_offset, max_offset HAVING count() > 1)`,
    );
    expect(Number(rebuilt!.n)).toBeGreaterThan(0);
  });

  it("a killed loader's `before` that lands after the next loader read where storing stood is not rebuilt over what that loader stored", async () => {
    // Life 1 dies with its first `before` on the wire; life 2 reads where storing stands (nothing
    // stored), cuts larger ranges, records them, sends the trades and dies; then life 1's request
    // lands. Life 3 sees two overlapping unfinished ranges: rebuilding life 1's (with tokens no
    // insert ever used) stored its rows a second time.
    const catalogue = createTopicCatalogue('late');
    const records = new RecordGenerator(15, catalogue, { kinds: new Set(['trade']), firstIndex: 4_000_000 }).take(600);
    const group = 'late-loaders';
    const topics = catalogue.topics.map((s) => s.name);
    const first = await busWith(records, catalogue, group, new Map());
    const zombie = mortalWithLateInsert(w.warehouse, 'loader_offsets');
    void startLoaders({
      bus: first,
      warehouse: zombie.warehouse,
      group,
      topics,
      batch: { maxRows: 20, maxDelayMs: 30 },
      busEpoch: 'durable',
      log,
    });
    await zombie.died;

    const second = await busWith(records, catalogue, group, await commitsOf(first, catalogue, group));
    const dying = mortalAfterInsert(w.warehouse, 'trades');
    void startLoaders({
      bus: second,
      warehouse: dying.warehouse,
      group,
      topics,
      batch: { maxRows: 500, maxDelayMs: 500 },
      busEpoch: 'durable',
      log,
    });
    await dying.died;
    await zombie.land();
    const [overlapping] = await rows<{ n: string }>(
      w.warehouse.client,
      `SELECT count() AS n FROM tapehouse.loader_offsets a INNER JOIN tapehouse.loader_offsets b
         ON a.topic = b.topic AND a.partition = b.partition AND a.target_table = b.target_table
       WHERE a.consumer_group = '${group}' AND b.consumer_group = '${group}' AND a.state = 'before' AND b.state = 'before'
         AND a.min_offset <= b.max_offset AND b.min_offset <= a.max_offset AND a.max_offset < b.max_offset`,
    );
    expect(Number(overlapping!.n)).toBeGreaterThan(0);

    const third = await busWith(records, catalogue, group, await commitsOf(second, catalogue, group));
    const loaders = await startLoaders({
      bus: third,
      warehouse: w.warehouse,
      group,
      topics,
      batch: { maxDelayMs: 30 },
      busEpoch: 'durable',
      log,
    });
    await drained(loaders);
    await loaders.stop();
    await expectExactlyPublished(records, 'late', 1);
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

  it('an insert pipeline ended by a fault of its own says so: `failed` settles and the figures name it, instead of a loader that silently stores nothing', async () => {
    // As kafkajs did between a consumer crash and its restart: pausing for the warehouse outage threw.
    const catalogue = createTopicCatalogue('pipefail');
    const records = new RecordGenerator(14, catalogue).take(200);
    let down = false;
    const bus = new EmbeddedBus({ topics: catalogue.topics });
    const refusing = busWithSubscribe(bus, async (options): Promise<Subscription> => {
      const subscription = await bus.subscribe(options);
      return {
        commit: (positions) => subscription.commit(positions),
        pause: () => {
          throw new Error('Consumer group was not initialized, consumer#run must be called first');
        },
        resume: () => subscription.resume(),
        close: () => subscription.close(),
        stopped: subscription.stopped,
      };
    });
    const loaders = await startLoaders({
      bus: refusing,
      warehouse: flaky(w.warehouse, () => down),
      group: 'pipefail-loaders',
      topics: catalogue.topics.map((s) => s.name),
      batch: { maxDelayMs: 20 },
      log,
    });
    // Assigned and storing first; then the warehouse goes down under the rest.
    const [first, ...rest] = records;
    await bus.publish(first!.topic, [first!.record]);
    while ((await loaders.stats()).batches === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    down = true;
    for (const { topic, record } of rest) await bus.publish(topic, [record]);
    const error = await loaders.failed;
    expect(error.message).toMatch(/consumer#run must be called first/);
    const { failing } = await loaders.stats();
    expect(failing?.reason).toMatch(/insert pipeline failed: .*consumer#run must be called first/);
    down = false;
    await expect(loaders.stop()).rejects.toThrow(/consumer#run must be called first/);
  });

  it('a round whose trades were stored but not yet its candles when the loader died is sent again whole: the candles count each trade once', async () => {
    // As a SIGKILL between the engine writing the trades and writing the candles view's part: the
    // view is detached while the round's trades insert lands, and the loader dies right after it.
    // The restarted loader rebuilds the round's ranges one partition at a time; sent again part
    // by part with the round's token, the first part decided the candles' block for all of them
    // (ClickHouse keeps one block id per token and table partition, the views' targets too) and
    // the candles lost the other partitions' trades. Sent whole, the trades' block is dropped and
    // the candles' stored.
    const catalogue = createTopicCatalogue('mvkill');
    const topic = catalogue.topicFor('trade');
    // Other minutes than the other tests' trades (the candles are shared by every test of this file).
    const records = new RecordGenerator(13, catalogue, { kinds: new Set(['trade']), firstIndex: 2_000_000 }).take(300);
    const group = 'mvkill-loaders';
    const topics = catalogue.topics.map((s) => s.name);
    const first = await busWith(records, catalogue, group, new Map());
    const dying = mortalAfterInsert(w.warehouse, 'trades');
    await w.warehouse.client.command({ query: 'DETACH TABLE tapehouse.candles_mv' });
    try {
      const run = startLoaders({
        bus: first,
        warehouse: dying.warehouse,
        group,
        topics,
        batch: { maxDelayMs: 500 },
        busEpoch: 'durable',
        log,
      });
      await dying.died;
      void run;
    } finally {
      await w.warehouse.client.command({ query: 'ATTACH TABLE tapehouse.candles_mv' });
    }
    expect(await candleTrades(topic)).toEqual({ trades: records.length, candles: 0 });
    const partitions = await rows<{ n: string }>(
      w.warehouse.client,
      `SELECT uniqExact(partition) AS n FROM tapehouse.loader_offsets WHERE consumer_group = '${group}' AND target_table = 'trades' AND state = 'before'`,
    );
    expect(Number(partitions[0]!.n)).toBeGreaterThan(1);

    const second = await busWith(records, catalogue, group, await commitsOf(first, catalogue, group));
    const loaders = await startLoaders({
      bus: second,
      warehouse: w.warehouse,
      group,
      topics,
      batch: { maxDelayMs: 30 },
      busEpoch: 'durable',
      log,
    });
    await drained(loaders);
    await loaders.stop();
    expect(await candleTrades(topic)).toEqual({ trades: records.length, candles: records.length });
    await expectExactlyPublished(records, 'mvkill', 1);
  });

  it('a round whose ranges another loader reads too goes range by range with its token, and what that token left out is added once', async () => {
    // The round held trades and quotes partitions; after the kill a loader that reads only the
    // trades topic (as a group member would) cannot send the round whole: it sends its ranges with
    // the round's token, looks what is stored and adds the rest — here half the trades: the kill
    // came after the round's trades insert, and the trades of some partitions were removed again
    // (as if their table partition had not been written).
    const catalogue = createTopicCatalogue('landed');
    const tradeTopic = catalogue.topicFor('trade');
    const records = new RecordGenerator(14, catalogue, {
      kinds: new Set(['trade', 'quote']),
      firstIndex: 3_000_000,
    }).take(300);
    const group = 'landed-loaders';
    const topics = catalogue.topics.map((s) => s.name);
    const first = await busWith(records, catalogue, group, new Map());
    const dying = mortalAfterInsert(w.warehouse, 'trades');
    const run = startLoaders({
      bus: first,
      warehouse: dying.warehouse,
      group,
      topics,
      batch: { maxDelayMs: 500 },
      busEpoch: 'durable',
      log,
    });
    await dying.died;
    void run;
    await w.warehouse.client.command({
      query: `DELETE FROM tapehouse.trades WHERE _topic = '${tradeTopic}' AND _partition % 2 = 0 SETTINGS mutations_sync = 2`,
    });
    const trades = records.filter((g) => g.topic === tradeTopic);
    const [left] = await rows<{ n: string }>(
      w.warehouse.client,
      `SELECT count() AS n FROM tapehouse.trades WHERE _topic = '${tradeTopic}'`,
    );
    expect(Number(left!.n)).toBeGreaterThan(0);
    expect(Number(left!.n)).toBeLessThan(trades.length);

    const second = await busWith(records, catalogue, group, await commitsOf(first, catalogue, group));
    const loaders = await startLoaders({
      bus: second,
      warehouse: w.warehouse,
      group,
      topics: [tradeTopic],
      batch: { maxDelayMs: 30 },
      busEpoch: 'durable',
      log,
    });
    await drained(loaders);
    await loaders.stop();
    const [stored] = await rows<{ n: string; distinct: string }>(
      w.warehouse.client,
      `SELECT count() AS n, uniqExact(trade_id) AS distinct FROM tapehouse.trades WHERE _topic = '${tradeTopic}'`,
    );
    expect(stored).toEqual({ n: String(trades.length), distinct: String(trades.length) });
  });
});

describe('where storing stands (loader_offsets)', () => {
  it("leaves out a killed loader's late ranges: one overlapping a newer range, one recorded again with other tokens, one at or below what is stored", async () => {
    const scope = { group: 'starts', epoch: '' };
    const row = (
      partition: number,
      first: number,
      last: number,
      state: 'before' | 'after',
      token: string,
      atUs: number,
    ) => ({
      consumer_group: scope.group,
      bus_epoch: '',
      topic: 'starts.trade',
      partition,
      min_offset: BigInt(first),
      max_offset: BigInt(last),
      max_received_at: 0n,
      state,
      loader_id: 'test',
      recorded_at: 1_700_000_000_000_000n + BigInt(atUs),
      target_table: 'trades',
      row_count: last - first + 1,
      dedup_token: token,
    });
    const stored = (partition: number) => [
      row(partition, 0, 9, 'before', `t${partition}-0`, 0),
      row(partition, 0, 9, 'after', `t${partition}-0`, 1),
    ];
    await w.warehouse.insertRows('loader_offsets', [
      // 0: the late [10,19] overlaps [10,29], recorded after it was cut: [10,29] is rebuilt.
      ...stored(0),
      row(0, 10, 29, 'before', 'new', 30),
      row(0, 10, 19, 'before', 'late', 20),
      // 1: the same range recorded twice with other tokens: the newest tokens are the ones sent.
      ...stored(1),
      row(1, 10, 19, 'before', 'late', 20),
      row(1, 10, 19, 'before', 'new', 30),
      // 2: a late range reaching below what was stored since.
      ...stored(2),
      row(2, 5, 30, 'before', 'late', 20),
      // 3: unfinished ranges one after the other, as a loader leaves them: both rebuilt.
      ...stored(3),
      row(3, 10, 19, 'before', 'a', 20),
      row(3, 20, 29, 'before', 'b', 30),
      // 4: [10,19] recorded, then the late [10,25], then [10,19] rebuilt (recorded again) by a loader that did not see
      // it.
      ...stored(4),
      row(4, 10, 19, 'before', 'kept', 20),
      row(4, 10, 25, 'before', 'late', 30),
      row(4, 10, 19, 'before', 'kept', 40),
    ]);
    const late: string[] = [];
    const starts = await readPartitionStarts(
      w.warehouse.client,
      { ...scope, loaderId: 'test' },
      ['starts.trade'],
      (range) => late.push(`${range.partition}:${range.first}-${range.last}`),
    );
    const summary = [...starts.values()].map((start) => ({
      stored: Number(start.stored),
      unfinished: start.unfinished.map((range) => `${range.first}-${range.last} ${range.tokens.get('trades')}`),
    }));
    expect(summary).toEqual([
      { stored: 9, unfinished: ['10-29 new'] },
      { stored: 9, unfinished: ['10-19 new'] },
      { stored: 9, unfinished: [] },
      { stored: 9, unfinished: ['10-19 a', '20-29 b'] },
      { stored: 9, unfinished: ['10-19 kept'] },
    ]);
    expect(late.sort()).toEqual(['0:10-19', '2:5-30', '4:10-25']);
  });
});
