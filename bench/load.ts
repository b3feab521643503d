/**
 * The loaders against the engine inserting the loaders' OWN bytes: every insert a loader run sends
 * (its rounds' data, its loader_offsets rows) is recorded as it goes to chDB — statement and
 * payload —, then the same inserts are sent again straight to the engine, with nothing else to do
 * (fresh deduplication tokens, the same tables and materialized views). That replay is the
 * yardstick: the loaders do all of it plus decoding, mapping, encoding and their bookkeeping, so
 * it is a true upper bound of their speed. The replay runs one insert at a time and two at a time
 * (the loaders send a round's tables together); the faster of the two is the yardstick.
 *
 * Two workloads:
 * - live-shaped: a mix like the venue's (book changes of 1 to 11 updates, quotes, trades, status,
 *   account and catalogue records) published at a steady pace across every topic and partition, the
 *   loaders with their default bounds (the short lane's rounds every 200 ms, the bulk lane's every
 *   second): many small rounds. The pace is fixed, so the ratio is by CPU time (all threads of the
 *   process: JS, the engine's inserts and merges): rows per CPU second, loader ÷ replay.
 *   The bench makes the records as it publishes them (a live feed's do not all live at once); the
 *   CPU that takes, measured alone, is also printed taken off.
 * - backlog: book-change records as capture publishes them (6 updates a record on average), all on
 *   the bus before the loaders start: rounds as large as they come (the time bound shortened to
 *   100 ms, so the last partial batches do not wait out a second at the end). Ratio by wall clock
 *   and by CPU.
 *
 * Engine, loader and replay take turns, best of three each, so a burst of load elsewhere on the
 * machine hits all alike. The load average at the start is printed: on a busy machine the figures
 * are the contended ones.
 *
 * The clock stops once every row is stored (the last round's `after` row and commit may follow).
 *
 * Run: npm run bench -- load [--live-seconds 15] [--live-rate 1500]   (about 3 minutes)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { startLoaders, type Loaders } from '../src/load/loader.ts';
import type { BatchLimits } from '../src/load/batching/partition-batcher.ts';
import { createLogger } from '../src/util/log.ts';
import {
  chdbTransport,
  RowInserter,
  type InsertStatement,
  type InsertTransport,
} from '../src/warehouse/insert/insert-rows.ts';
import { openChdbSession } from '../src/warehouse/embedded/chdb-client.ts';
import { migrate } from '../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse, type Warehouse } from '../src/warehouse/warehouse.ts';
import { drained, RecordGenerator, type Generated } from '../test/load-fixtures.ts';
import { threadCpu, threadCpuSince } from './thread-cpu.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const LIVE_SECONDS = Number(option('live-seconds', '15'));
const LIVE_RATE = Number(option('live-rate', '1500'));
const BACKLOG_RECORDS = 20_000;
const ROUNDS = 3;
const catalogue = createTopicCatalogue('bench');
const log = createLogger('bench', 'warn');

/** One insert as the loaders sent it. */
interface Sent {
  statement: InsertStatement;
  payload: Buffer;
}

interface Run {
  ms: number;
  cpuMs: number;
  threads: string;
  rows: number;
  inserts: number;
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
const perSecond = (rows: number, ms: number) => Math.round(rows / (ms / 1000));
const fmt = (n: number) => n.toLocaleString('en').padStart(10);

/**
 * The warehouse as the loaders get it, recording every insert on its way to chDB — the short
 * lane's too, which inserts through a session of its own (`ownSession`): left out, the replay
 * would be credited with rows it never inserted (its many small inserts are the dearest per row).
 */
function recording(w: EmbeddedWarehouse, sent: Sent[]): Warehouse {
  const recorder = (client: Warehouse['client'], connection: EmbeddedWarehouse['connection']) => {
    const real = chdbTransport(connection);
    const transport: InsertTransport = {
      native: real.native,
      send: (statement, payload) => {
        sent.push({ statement, payload });
        return real.send(statement, payload);
      },
    };
    return new RowInserter(client, transport);
  };
  const inserter = recorder(w.client, w.connection);
  return {
    ...w,
    insertRows: (t, r, o) => inserter.insertRows(t, r, o),
    prepareInsert: (t, r, o) => inserter.prepareInsert(t, r, o),
    async ownSession() {
      const session = await openChdbSession(w.target.dataDir);
      const own = recorder(session.client, session.connection);
      const close = () => session.client.close();
      return {
        ...w,
        client: session.client,
        insertRows: (t, r, o) => own.insertRows(t, r, o),
        prepareInsert: (t, r, o) => own.prepareInsert(t, r, o),
        close,
      };
    },
  };
}

/** Every table of the warehouse emptied (rollups and latest stores too), so each run starts alike. */
async function emptyTables(w: EmbeddedWarehouse): Promise<void> {
  const result = await w.client.query({
    query:
      "SELECT name FROM system.tables WHERE database = 'tapehouse' AND engine LIKE '%MergeTree' AND name NOT IN ('schema_migrations')",
    format: 'JSONEachRow',
  });
  for (const { name } of await result.json<{ name: string }>())
    await w.client.command({ query: `TRUNCATE TABLE tapehouse.${name}` });
}

/** The loaders over `publish`'s records, from start to everything committed, recording their inserts. */
async function loadOnce(
  w: EmbeddedWarehouse,
  group: string,
  rows: number,
  batch: Partial<BatchLimits>,
  publish: (bus: EmbeddedBus) => Promise<void>,
  before: (bus: EmbeddedBus) => Promise<void>,
): Promise<{ run: Run; sent: Sent[] }> {
  await emptyTables(w);
  const bus = new EmbeddedBus({ topics: catalogue.topics, capacity: { records: 1_000_000, bytes: 1 << 30 } });
  await before(bus);
  const sent: Sent[] = [];
  const threads = threadCpu();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const loaders = await startLoaders({
    bus,
    warehouse: recording(w, sent),
    group,
    topics: catalogue.topics.map((s) => s.name),
    batch,
    log,
  });
  await publish(bus);
  await stored(loaders, rows);
  const run = {
    ms: performance.now() - started,
    cpuMs: cpuMs(process.cpuUsage(cpu)),
    threads: threadCpuSince(threads),
    rows: 0,
    inserts: sent.length,
  };
  run.rows = Object.values((await loaders.stats()).rows).reduce((a, b) => a + b, 0);
  await drained(loaders);
  await loaders.stop();
  await bus.close();
  return { run, sent };
}

/** The engine inserting the recorded bytes again, `parallel` at a time, in order, with fresh tokens. */
async function replay(w: EmbeddedWarehouse, sent: readonly Sent[], parallel: number, round: number): Promise<Run> {
  await emptyTables(w);
  const transport = chdbTransport(w.connection);
  const threads = threadCpu();
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < sent.length; i += parallel) {
    await Promise.all(
      sent.slice(i, i + parallel).map(({ statement, payload }, k) => {
        const token = statement.settings.insert_deduplication_token;
        const settings =
          token === undefined
            ? statement.settings
            : { ...statement.settings, insert_deduplication_token: `${String(token)}:replay-${round}-${i + k}` };
        return transport.send({ ...statement, settings }, payload);
      }),
    );
  }
  return {
    ms: performance.now() - started,
    cpuMs: cpuMs(process.cpuUsage(cpu)),
    threads: threadCpuSince(threads),
    rows: 0,
    inserts: sent.length,
  };
}

interface Workload {
  name: string;
  /** CPU the bench spends making the live records as it publishes them (not the loaders'), ms. */
  makingCpuMs?: number;
  /** The records, made afresh for each run (a live feed's records do not all live at once). */
  records(): RecordGenerator;
  count: number;
  rows: number;
  paced: boolean;
}

/** The records at LIVE_RATE, made as they are published (the bench's own objects stay out of the heap). */
async function publishPaced(bus: EmbeddedBus, work: Workload): Promise<void> {
  const tickMs = 50;
  const perTick = Math.max(1, Math.round((LIVE_RATE * tickMs) / 1000));
  const generator = work.records();
  const started = performance.now();
  for (let done = 0, tick = 0; done < work.count; done += perTick, tick++) {
    const wait = started + tick * tickMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (const { topic, record } of generator.take(Math.min(perTick, work.count - done)))
      await bus.publish(topic, [record]);
  }
}

/** Resolves once every row of the workload is stored (not waiting for the last round's `after` and commit). */
async function stored(loaders: Loaders, rows: number): Promise<void> {
  for (;;) {
    const stats = await loaders.stats();
    if (stats.queuedRows === 0 && (stats.lag === 0 || Object.values(stats.rows).reduce((a, b) => a + b, 0) >= rows))
      return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function publishAll(bus: EmbeddedBus, records: readonly Generated[]): Promise<void> {
  for (let i = 0; i < records.length; i += 1_000) {
    const slice = records.slice(i, i + 1_000);
    const byTopic = new Map<string, Generated['record'][]>();
    for (const { topic, record } of slice) byTopic.set(topic, [...(byTopic.get(topic) ?? []), record]);
    for (const [topic, list] of byTopic) await bus.publish(topic, list);
  }
}

function workload(name: string, paced: boolean, count: number, records: () => RecordGenerator): Workload {
  const sample = records().take(count);
  return { name, paced, count, records, rows: sample.reduce((n, g) => n + g.rows.length, 0) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tapehouse-bench-load-'));
  const w = await openEmbeddedWarehouse(dir);
  try {
    await migrate(w.client);
    const live = workload(
      'live-shaped',
      true,
      LIVE_SECONDS * LIVE_RATE,
      () => new RecordGenerator(7, catalogue, { bookUpdates: 11 }),
    );
    const making = process.cpuUsage();
    live.records().take(live.count);
    live.makingCpuMs = cpuMs(process.cpuUsage(making));
    const backlog = workload(
      'backlog',
      false,
      BACKLOG_RECORDS,
      () => new RecordGenerator(3, catalogue, { kinds: new Set(['book_change']), bookUpdates: 11 }),
    );
    console.log(
      `live-shaped: ${live.count.toLocaleString('en')} records (the whole mix), ${live.rows.toLocaleString('en')} rows, published at ${LIVE_RATE} records/s for ${LIVE_SECONDS} s across every topic and partition`,
    );
    console.log(
      `backlog: ${backlog.count.toLocaleString('en')} book-change records, ${backlog.rows.toLocaleString('en')} rows, all on the bus before the loaders start`,
    );
    console.log(`${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the start\n`);

    for (const work of [live, backlog]) {
      let loader: Run | undefined;
      let engine: Run | undefined;
      let engineHow = '';
      for (let round = 1; round <= ROUNDS; round++) {
        const group = `bench-${work.name}-${round}`;
        const { run, sent } = await loadOnce(
          w,
          group,
          work.rows,
          // A backlog's last partial batches would wait out the 1 s bound at the end: shortened.
          work.paced ? {} : { maxDelayMs: 100 },
          (bus) => (work.paced ? publishPaced(bus, work) : Promise.resolve()),
          (bus) => (work.paced ? Promise.resolve() : publishAll(bus, work.records().take(work.count))),
        );
        const better = (a: Run | undefined, b: Run) =>
          a === undefined || (work.paced ? b.cpuMs < a.cpuMs : b.ms < a.ms) ? b : a;
        loader = better(loader, run);
        for (const parallel of [1, 2]) {
          const yard = await replay(w, sent, parallel, round);
          yard.rows = run.rows;
          if (better(engine, yard) === yard) {
            engine = yard;
            engineHow = parallel === 1 ? 'one insert at a time' : 'two at a time';
          }
        }
      }
      report(work, loader!, engine!, engineHow);
    }
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(work: Workload, loader: Run, engine: Run, how: string): void {
  const rows = loader.rows;
  console.log(
    `${work.name} (best of ${ROUNDS}; ${rows.toLocaleString('en')} rows stored, ${loader.inserts} inserts, loader_offsets included):`,
  );
  console.log(
    `  loader, bus → chDB, exactly once   ${fmt(perSecond(rows, loader.ms))} rows/s  ${fmt(perSecond(rows, loader.cpuMs))} rows per CPU second  (${loader.threads})`,
  );
  console.log(
    `  engine alone on the loader's bytes ${fmt(perSecond(rows, engine.ms))} rows/s  ${fmt(perSecond(rows, engine.cpuMs))} rows per CPU second  (${how}; ${engine.threads})`,
  );
  const byCpu = engine.cpuMs / loader.cpuMs;
  if (work.paced) {
    const own = loader.cpuMs - (work.makingCpuMs ?? 0);
    console.log(
      `  loader ÷ engine on its own bytes, by CPU: ${byCpu.toFixed(2)}; ${(engine.cpuMs / own).toFixed(2)} without the ${Math.round(work.makingCpuMs ?? 0)} ms the bench spends making the records it publishes`,
    );
    console.log(`  (the pace is fixed: wall-clock rates are the pace, not the speed)\n`);
  } else {
    console.log(
      `  loader ÷ engine on its own bytes: ${(engine.ms / loader.ms).toFixed(2)} by wall clock, ${byCpu.toFixed(2)} by CPU\n`,
    );
  }
}

await main();
