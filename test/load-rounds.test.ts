import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { partitionFor } from '../src/bus/partitioner.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { roundToken, type Batch } from '../src/load/batching/batch.ts';
import { startLoaders } from '../src/load/index.ts';
import { addMissingRows } from '../src/load/inserting/landed-rows.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import type { Row } from '../src/load/mapping/types.ts';
import { createLogger } from '../src/util/log.ts';
import type { Warehouse } from '../src/warehouse/warehouse.ts';
import { watching } from './load-warehouses.ts';
import { compareTables, drained, expectedKeys, publishAll, RecordGenerator } from './load-fixtures.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/** Rounds: one INSERT per table for all partitions, a short lane for market data, and rows a shared round token left
 * out. */

const log = createLogger('load.test', 'silent');
let w: TestWarehouse;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
});

/** Loaders of `group` on every topic of `catalogue`, rounds cut every `maxDelayMs`. */
function loading(
  bus: EmbeddedBus,
  catalogue: ReturnType<typeof createTopicCatalogue>,
  warehouse: Warehouse,
  group: string,
  maxDelayMs: number,
) {
  return startLoaders({
    bus,
    warehouse,
    group,
    topics: catalogue.topics.map((s) => s.name),
    batch: { maxDelayMs },
    log,
  });
}

describe('loader rounds', () => {
  it('sends one INSERT per table for a round of all partitions, however many partitions hold records', async () => {
    const catalogue = createTopicCatalogue('one');
    const records = new RecordGenerator(21, catalogue, { kinds: new Set(['book_change', 'trade']) }).take(600);
    const bus = new EmbeddedBus({ topics: catalogue.topics });
    await publishAll(bus, records);
    const spec = (topic: string) => catalogue.spec(topic)!;
    const partitions = new Set(
      records.map((g) => `${g.topic}/${partitionFor(g.record.key, spec(g.topic).partitions)}`),
    );
    const bookPartitions = [...partitions].filter((p) => p.startsWith(catalogue.topicFor('book_change'))).length;
    const spy = watching(w.warehouse);
    // Everything is on the bus before the loader starts, and the time bound is long: one round per lane.
    const loaders = await loading(bus, catalogue, spy.warehouse, 'one', 500);
    await drained(loaders);
    await loaders.stop();
    expect(partitions.size).toBeGreaterThan(10);
    // Book changes and trades, each from several partitions, in one insert each — not one per partition.
    expect(spy.inserts.get('tapehouse.book_changes') ?? spy.inserts.get('book_changes')).toBe(1);
    expect(spy.inserts.get('tapehouse.trades') ?? spy.inserts.get('trades')).toBe(1);
    const checks = await compareTables(w.warehouse.client, expectedKeys(records), 'one.');
    expect(checks.filter((c) => c.stored !== c.expected || c.distinct !== c.stored)).toEqual([]);
    // Each partition's range is recorded on its own (exactly-once state per partition), with the round's token.
    const recorded = await rows<{ partitions: string; tokens: string }>(
      w.warehouse.client,
      "SELECT uniqExact(topic, partition) AS partitions, uniqExact(dedup_token) AS tokens FROM tapehouse.loader_offsets WHERE consumer_group = 'one' AND target_table = 'book_changes' AND state = 'before'",
    );
    expect(recorded).toEqual([{ partitions: String(bookPartitions), tokens: '1' }]);
  });

  it('stores trades and quotes while the bulk lane waits on a slow catalogue insert', async () => {
    const catalogue = createTopicCatalogue('lane');
    const bus = new EmbeddedBus({ topics: catalogue.topics });
    const spy = watching(w.warehouse, new Set(['tapehouse.markets', 'markets']));
    const loaders = await loading(bus, catalogue, spy.warehouse, 'lane', 100);
    const generator = new RecordGenerator(22, catalogue, { kinds: new Set(['market']) });
    await publishAll(bus, generator.take(20));
    // The markets insert is under way and does not come back…
    while (!spy.inserts.has('tapehouse.markets') && !spy.inserts.has('markets'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    // …while market data keeps arriving: it is stored all the same.
    const market = new RecordGenerator(23, catalogue, { kinds: new Set(['trade', 'quote']), firstIndex: 100_000 }).take(
      200,
    );
    await publishAll(bus, market);
    const want = market.length;
    for (let i = 0; i < 500; i++) {
      const [stored] = await rows<{ n: string }>(
        w.warehouse.client,
        "SELECT (SELECT count() FROM tapehouse.trades WHERE _topic = 'lane.market.trades') + (SELECT count() FROM tapehouse.quotes WHERE _topic = 'lane.market.quotes') AS n",
      );
      if (Number(stored!.n) >= want) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [stored] = await rows<{ n: string }>(
      w.warehouse.client,
      "SELECT (SELECT count() FROM tapehouse.trades WHERE _topic = 'lane.market.trades') + (SELECT count() FROM tapehouse.quotes WHERE _topic = 'lane.market.quotes') AS n",
    );
    expect(Number(stored!.n)).toBe(want);
    const [markets] = await rows<{ n: string }>(
      w.warehouse.client,
      "SELECT count() AS n FROM tapehouse.markets WHERE _topic = 'lane.sync.markets'",
    );
    expect(markets!.n).toBe('0');
    spy.release();
    await drained(loaders);
    await loaders.stop();
    const [after] = await rows<{ n: string }>(
      w.warehouse.client,
      "SELECT count() AS n FROM tapehouse.markets WHERE _topic = 'lane.sync.markets'",
    );
    expect(after!.n).toBe('20');
  });

  it('stores trades while the engine is busy with a long query on the session the bulk lane and the sync jobs use', async () => {
    // chDB runs one query at a time per session: a trade round on the same session as a bulk
    // insert or a sync job's read would wait for it. The short lane has a session of its own.
    const catalogue = createTopicCatalogue('busy');
    const bus = new EmbeddedBus({ topics: catalogue.topics });
    const loaders = await loading(bus, catalogue, w.warehouse, 'busy', 100);
    const watcher = await w.warehouse.ownSession();
    const countStored = async () =>
      Number(
        (
          await rows<{ n: string }>(
            watcher.client,
            "SELECT count() AS n FROM tapehouse.trades WHERE _topic = 'busy.market.trades'",
          )
        )[0]!.n,
      );
    try {
      // The loader running: where its partitions stand read, a first trade stored.
      const generator = new RecordGenerator(25, catalogue, { kinds: new Set(['trade']) });
      await publishAll(bus, generator.take(1));
      while ((await countStored()) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
      // About 8 s in the engine, one half-second block after another, on the loader's main session.
      let busy = true;
      const longQuery = rows(
        w.warehouse.client,
        'SELECT sum(sleepEachRow(0.5)) AS s FROM numbers(16) SETTINGS max_block_size = 1',
      ).finally(() => (busy = false));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const trades = generator.take(50);
      await publishAll(bus, trades);
      let stored = 0;
      while (busy && stored < 1 + trades.length) {
        stored = await countStored();
        if (stored < 1 + trades.length) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Every trade was queryable before the long query ended.
      expect({ stored, longQueryStillRunning: busy }).toEqual({
        stored: 1 + trades.length,
        longQueryStillRunning: true,
      });
      await longQuery;
    } finally {
      await loaders.stop();
      await watcher.close();
    }
  });

  it('adds, once, the rows of a round that another loader sent part of first with the same token', async () => {
    // Two batches of one round (partitions 0 and 1): loader X, which took over partition 0, sends
    // its rebuilt batch with the round's token first; the round as a whole comes second and its
    // partition-1 rows are dropped as the same block. Looking afterwards finds them and adds them.
    const catalogue = createTopicCatalogue('split');
    const topic = catalogue.topicFor('trade');
    const records = new RecordGenerator(24, catalogue, { kinds: new Set(['trade']) }).take(40);
    const batches = [0, 1].map((partition): Batch => {
      const tables = new Map<'trades', Row[]>([['trades', []]]);
      records.slice(partition * 20, partition * 20 + 20).forEach((g, i) => {
        for (const { row } of mapDelivery(
          { offset: BigInt(i), ok: true, record: g.record },
          { topic, partition, group: 'split' },
        ))
          tables.get('trades')!.push(row);
      });
      return {
        topic,
        partition,
        range: { first: 0n, last: 19n },
        tables,
        records: new Map(),
        rowCount: 20,
        maxReceivedUs: 0n,
      };
    });
    const token = roundToken('trades', 'r-1', '');
    const insert = async (rowList: Row[]) =>
      (await w.warehouse.prepareInsert('trades', rowList, { dedupToken: token })).send();
    const since = BigInt(Date.now()) * 1000n;
    await insert(batches[0]!.tables.get('trades')!);
    await insert([...batches[0]!.tables.get('trades')!, ...batches[1]!.tables.get('trades')!]);
    const count = async () =>
      (
        await rows<{ p: number; n: string }>(
          w.warehouse.client,
          `SELECT _partition AS p, count() AS n FROM tapehouse.trades WHERE _topic = '${topic}' GROUP BY p ORDER BY p`,
        )
      ).map((r) => [r.p, Number(r.n)]);
    expect(await count()).toEqual([[0, 20]]);
    expect(await addMissingRows(w.warehouse, 'trades', batches[1]!, batches[1]!.tables.get('trades')!, since, '')).toBe(
      20,
    );
    expect(await addMissingRows(w.warehouse, 'trades', batches[0]!, batches[0]!.tables.get('trades')!, since, '')).toBe(
      0,
    );
    // Looked at again (a loader killed after adding them, say): nothing more.
    expect(await addMissingRows(w.warehouse, 'trades', batches[1]!, batches[1]!.tables.get('trades')!, since, '')).toBe(
      0,
    );
    expect(await count()).toEqual([
      [0, 20],
      [1, 20],
    ]);
  });
  it("keeps an account's latest positions visible while a round of newer reads is being stored", async () => {
    // positions_latest takes the newest of an account's three newest reads whose positions rows are
    // all stored: a round of several reads whose snapshot rows landed before their positions left
    // it empty. The snapshot rows are sent once the positions are in.
    const catalogue = createTopicCatalogue('whole');
    const generator = new RecordGenerator(27, catalogue, { kinds: new Set(['position']) });
    const bus = new EmbeddedBus({ topics: catalogue.topics });
    const latest = async () =>
      Number(
        (
          await rows<{ n: string }>(
            w.warehouse.client,
            "SELECT count() AS n FROM tapehouse.positions_latest WHERE _topic = 'whole.sync.positions'",
          )
        )[0]!.n,
      );
    const first = await loading(bus, catalogue, w.warehouse, 'whole', 100);
    await publishAll(bus, generator.take(1));
    await drained(first);
    await first.stop();
    expect(await latest()).toBe(1);
    const spy = watching(w.warehouse, new Set(['tapehouse.position_observations', 'position_observations']));
    const loaders = await loading(bus, catalogue, spy.warehouse, 'whole', 100);
    await publishAll(bus, generator.take(5));
    while (!spy.inserts.has('tapehouse.position_observations') && !spy.inserts.has('position_observations'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The positions insert is held: the newer reads' snapshot rows wait for it, the first read stands.
    expect(spy.inserts.get('tapehouse.position_snapshots') ?? spy.inserts.get('position_snapshots')).toBeUndefined();
    expect(await latest()).toBe(1);
    spy.release();
    await drained(loaders);
    await loaders.stop();
    const [newest] = await rows<{ n: string; reads: string }>(
      w.warehouse.client,
      "SELECT (SELECT count() FROM tapehouse.positions_latest WHERE _topic = 'whole.sync.positions') AS n, (SELECT count() FROM tapehouse.position_snapshots WHERE _topic = 'whole.sync.positions') AS reads",
    );
    expect(newest).toEqual({ n: '1', reads: '6' });
  });
});
