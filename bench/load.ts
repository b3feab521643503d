/**
 * The loaders' speed into chDB, end to end (embedded bus → decode → map → encode → insert, with
 * offsets recorded and commits), next to the engine's own rate for the same table in the same run
 * (`INSERT … SELECT FROM generateRandom` of book_changes' columns), and bytes on disk per book change.
 *
 * Workload: book changes as capture publishes them — records of consecutive book updates of one
 * market (1 to 11 updates, 6 on average: what capture makes of the simulator's stream, 12,738 book
 * frames in 2,129 records in `npm run bench -- capture`), each update 1 to 5 levels, no raw frame —
 * 40 tokens, published to the embedded bus before the clock starts; and the same with one update
 * per record, the most envelope per row. Engine and loader take turns, best of three each, the
 * loaders with their default batch bounds (the time bound shortened, so the last partial batches
 * do not wait at the end). Each stage of the loader is also timed alone on the same records, so
 * the report says where the time goes; the engine alone on the loaders' bytes is timed for both
 * insert formats (Native read from a file, the loaders' way on chDB; TabSeparated through chdb's
 * raw insert, the fallback), best of three. CPU time is reported by thread (Linux), since on two
 * cores the JS thread, the engine's inserts and its merges compete.
 *
 * Run: npm run bench -- load   (about 60 s on two busy cores)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedBus } from '../src/bus/embedded.ts';
import { decodeRecord, encodeRecord, type BusRecord } from '../src/bus/record.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { dedupToken } from '../src/load/batching/batch.ts';
import { DEFAULT_BATCH_LIMITS, startLoaders } from '../src/load/loader.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import type { Row } from '../src/load/mapping/types.ts';
import { createLogger } from '../src/util/log.ts';
import { sqlString } from '../src/warehouse/database.ts';
import { chdbTransport, readColumns, RowInserter, type PreparedInsert } from '../src/warehouse/insert/insert-rows.ts';
import { migrate } from '../src/warehouse/migrations.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { RecordGenerator } from '../test/load-fixtures.ts';
import { threadCpu, threadCpuSince, type ThreadCpu } from './thread-cpu.ts';

const BATCHED_RECORDS = 20_000;
const SINGLE_RECORDS = 100_000;
// The loaders' default bounds; the time bound short, so the last partial batch of each partition
// does not wait a second at the end of the run (in a steady stream it never matters).
const BATCH = { ...DEFAULT_BATCH_LIMITS, maxDelayMs: 100 };
const ROUNDS = 3;
const catalogue = createTopicCatalogue('bench');
const topic = catalogue.topicFor('book_change');

async function scalar(w: EmbeddedWarehouse, query: string): Promise<number> {
  const result = await w.client.query({ query, format: 'JSONEachRow' });
  const [row] = await result.json<Record<string, string>>();
  return Number(Object.values(row ?? {})[0]);
}

async function freshCopy(w: EmbeddedWarehouse, name: string): Promise<string> {
  await w.client.command({ query: `DROP TABLE IF EXISTS tapehouse.${name} SYNC` });
  await w.client.command({ query: `CREATE TABLE tapehouse.${name} AS tapehouse.book_changes` });
  return `tapehouse.${name}`;
}

const seconds = (ms: number) => ms / 1000;
/** CPU time of this process (every thread: JS and the engine's), in ms. */
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
const rate = (rows: number, ms: number) => Math.round(rows / seconds(ms));
const fmt = (n: number) => n.toLocaleString('en').padStart(10);

/** A workload as the bus carries it: only the wire text is kept (the bench's own objects would make the collector's work, not the loaders'). */
interface Workload {
  name: string;
  wire: string[];
  rows: number;
}

function workload(name: string, records: number, bookUpdates: number): Workload {
  const generated = new RecordGenerator(3, catalogue, { kinds: new Set(['book_change']), bookUpdates }).take(records);
  return { name, wire: generated.map((g) => encodeRecord(g.record)), rows: generated.reduce((n, g) => n + g.rows.length, 0) };
}

interface Best {
  ms: number;
  cpuMs: number;
  threads: string;
  stored: number;
}

/** One end-to-end run: everything on a fresh bus first, then the clock runs until all is committed. */
async function loadOnce(w: EmbeddedWarehouse, work: Workload, group: string): Promise<Best> {
  await w.client.command({ query: 'TRUNCATE TABLE tapehouse.book_changes' });
  const bus = new EmbeddedBus({ topics: catalogue.topics, capacity: { records: work.wire.length, bytes: 1 << 30 } });
  for (let i = 0; i < work.wire.length; i += 5_000) {
    const records = work.wire.slice(i, i + 5_000).map((text) => (decodeRecord(text) as { record: BusRecord }).record);
    await bus.publish(topic, records);
  }
  const threads: ThreadCpu = threadCpu();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const loaders = await startLoaders({ bus, warehouse: w, group, topics: [topic], batch: BATCH, log: createLogger('bench', 'warn') });
  for (;;) {
    const stats = await loaders.stats();
    if (stats.lag === 0 && stats.queuedRows === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const best = { ms: performance.now() - started, cpuMs: cpuMs(process.cpuUsage(cpu)), threads: threadCpuSince(threads), stored: 0 };
  await loaders.stop();
  best.stored = await scalar(w, 'SELECT count() FROM tapehouse.book_changes');
  return best;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tapehouse-bench-load-'));
  const w = await openEmbeddedWarehouse(dir);
  try {
    await migrate(w.client);
    const batched = workload('as capture batches them (6 updates a record)', BATCHED_RECORDS, 11);
    const single = workload('one update per record', SINGLE_RECORDS, 1);
    for (const work of [batched, single]) {
      const meanBytes = work.wire.reduce((n, text) => n + text.length, 0) / work.wire.length;
      console.log(
        `${work.name}: ${work.wire.length.toLocaleString('en')} book-change records, ${work.rows.toLocaleString('en')} rows ` +
          `(${(work.rows / work.wire.length).toFixed(2)} per record, ${meanBytes.toFixed(0)} bytes each on the bus)`,
      );
    }
    console.log(`loaders' batches: up to ${BATCH.maxRows.toLocaleString('en')} rows; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the start\n`);
    const rows = batched.rows;
    const wire = batched.wire;

    // 1. The engine alone: the same number of rows of the same columns, generated inside chDB.
    // 2. The loader, end to end, on each workload. They take turns, best of ROUNDS each, so a
    //    burst of load elsewhere on the machine hits all alike.
    const specs = await readColumns(w.client, 'tapehouse.book_changes');
    const columns = specs.filter((c) => c.defaultKind === '' || c.defaultKind === 'DEFAULT').map((c) => c.name);
    const structure = columns.map((c) => `${c} ${specs.find((s) => s.name === c)!.type}`).join(', ');
    let engine: Best = { ms: Infinity, cpuMs: Infinity, threads: '', stored: 0 };
    const loaded = new Map<Workload, Best>();
    for (let round = 1; round <= ROUNDS; round++) {
      const table = await freshCopy(w, 'bench_engine');
      const threads = threadCpu();
      const engineStarted = performance.now();
      const engineCpu = process.cpuUsage();
      await w.client.command({
        query: `INSERT INTO ${table} (${columns.join(', ')})
                SELECT * REPLACE (toDateTime64('2026-03-02 00:00:00', 3, 'UTC') + toIntervalMillisecond(rand() % 2000000000) AS changed_at, '' AS _raw)
                FROM generateRandom(${sqlString(structure)}, ${round}, 80, 4) LIMIT ${rows}`,
      });
      const ms = performance.now() - engineStarted;
      if (ms < engine.ms) engine = { ms, cpuMs: cpuMs(process.cpuUsage(engineCpu)), threads: threadCpuSince(threads), stored: rows };
      // The batched workload last: the bytes on disk below are of its rows.
      for (const work of [single, batched]) {
        const run = await loadOnce(w, work, `bench-${work.wire.length}-${round}`);
        if (run.ms < (loaded.get(work)?.ms ?? Infinity)) loaded.set(work, run);
      }
    }
    const engineRate = rate(rows, engine.ms);
    const engineCpuRate = rate(rows, engine.cpuMs);
    console.log(`engine: INSERT … SELECT FROM generateRandom       ${fmt(engineRate)} rows/s  ${fmt(engineCpuRate)} rows per CPU second`);
    console.log(`        CPU by thread: ${engine.threads}`);
    for (const work of [batched, single]) {
      const run = loaded.get(work)!;
      const loaderRate = rate(work.rows, run.ms);
      const loaderCpuRate = rate(work.rows, run.cpuMs);
      console.log(
        `loader: bus → chDB, end to end (exactly once)      ${fmt(loaderRate)} rows/s  ${fmt(loaderCpuRate)} rows per CPU second  ` +
          `ratio ${(loaderRate / engineRate).toFixed(2)} (by CPU ${(loaderCpuRate / engineCpuRate).toFixed(2)})  ${run.stored === work.rows ? 'every row stored once' : `STORED ${run.stored} OF ${work.rows}`}`,
      );
      console.log(`        ${work.name}; CPU by thread: ${run.threads}`);
    }

    // 3. Each stage alone, on the same records (one thread, one after the other); the inserts best
    //    of ROUNDS, each into a fresh copy of the table.
    const stage = (name: string, run: () => void | Promise<void>, fresh = false, before?: () => Promise<void>) => ({ name, run, fresh, before });
    const source = { topic, partition: 0, group: 'bench' };
    const tabSeparated = new RowInserter(w.client, { ...chdbTransport(w.connection), native: false });
    let deliveries: ReturnType<typeof decodeRecord>[] = [];
    let mapped: Row[] = [];
    let native: PreparedInsert[] = [];
    let text: PreparedInsert[] = [];
    // The encode stages keep no payload (a loader holds a few batches, not all of them: holding
    // every payload would time the garbage collector instead); the insert stages encode theirs
    // first, off the clock.
    const encode = async (prepare: EmbeddedWarehouse['prepareInsert'], keep: boolean) => {
      const payloads: PreparedInsert[] = [];
      for (let i = 0; i < mapped.length; i += BATCH.maxRows) {
        const range = { first: BigInt(i), last: BigInt(i + BATCH.maxRows - 1) };
        const prepared = await prepare('bench_stage', mapped.slice(i, i + BATCH.maxRows), { dedupToken: dedupToken('bench_stage', topic, 0, range, '') });
        if (keep) payloads.push(prepared);
      }
      return payloads;
    };
    const nativeInsert = (...args: Parameters<EmbeddedWarehouse['prepareInsert']>) => w.prepareInsert(...args);
    const textInsert = (...args: Parameters<EmbeddedWarehouse['prepareInsert']>) => tabSeparated.prepareInsert(...args);
    const stages = [
      stage('decode the bus messages (JSON.parse)', () => {
        deliveries = wire.map((text) => decodeRecord(text));
      }),
      stage('map to rows with provenance', () => {
        mapped = [];
        deliveries.forEach((d, i) => {
          if (d.ok) for (const { row } of mapDelivery({ offset: BigInt(i), ok: true, record: d.record }, source)) mapped.push(row);
        });
      }),
      stage('encode Native (the loaders, on chDB)', async () => {
        await encode(nativeInsert, false);
      }),
      stage('insert Native from a file (engine)', async () => {
        for (const payload of native) await payload.send();
      }, true, async () => {
        native = await encode(nativeInsert, true);
        if (native.some((p) => p.format !== 'Native')) console.log('WARNING: a batch went as TabSeparated');
      }),
      stage('encode TabSeparated (fallback, server)', async () => {
        await encode(textInsert, false);
      }),
      stage('insert TabSeparated, raw insert (engine)', async () => {
        for (const payload of text) await payload.send();
      }, true, async () => {
        text = await encode(textInsert, true);
        native = [];
      }),
    ];
    await freshCopy(w, 'bench_stage');
    w.forgetSchemas();
    const stageMs: number[] = [];
    for (const { run, fresh, before } of stages) {
      await before?.();
      let best = Infinity;
      for (let round = 0; round < (fresh ? ROUNDS : 1); round++) {
        if (fresh) await freshCopy(w, 'bench_stage');
        const at = performance.now();
        await run();
        best = Math.min(best, performance.now() - at);
      }
      stageMs.push(best);
    }

    console.log(`\neach stage alone, on one thread, ${batched.name} (inserts: the engine alone on the loaders' bytes):`);
    const loaderPath = [0, 1, 2, 3]; // decode, map, encode Native, insert Native
    const serial = loaderPath.reduce((sum, i) => sum + stageMs[i]!, 0);
    stages.forEach(({ name, fresh }, i) => {
      const share = loaderPath.includes(i) ? `  (${Math.round((stageMs[i]! / serial) * 100)}% of the loaders' serial sum)` : '';
      const ratio = fresh ? `  ÷ engine ${(rate(rows, stageMs[i]!) / engineRate).toFixed(2)}` : '';
      console.log(`  ${name.padEnd(42)} ${fmt(rate(rows, stageMs[i]!))} rows/s  ${((stageMs[i]! * 1000) / rows).toFixed(2).padStart(5)} µs/row${ratio}${share}`);
    });

    await w.client.command({ query: 'OPTIMIZE TABLE tapehouse.book_changes FINAL' });
    const bytes = await scalar(w, "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'tapehouse' AND table = 'book_changes'");
    const partRows = await scalar(w, "SELECT sum(rows) FROM system.parts WHERE active AND database = 'tapehouse' AND table = 'book_changes'");
    console.log(`\nbytes on disk per book change, ${batched.name} (after OPTIMIZE FINAL): ${(bytes / partRows).toFixed(2)} (${partRows.toLocaleString('en')} rows)`);
    const result = await w.client.query({
      query: "SELECT name, data_compressed_bytes AS compressed FROM system.columns WHERE database = 'tapehouse' AND table = 'book_changes' ORDER BY compressed DESC",
      format: 'JSONEachRow',
    });
    for (const column of await result.json<{ name: string; compressed: string }>()) {
      console.log(`  ${column.name.padEnd(20)} ${(Number(column.compressed) / partRows).toFixed(2).padStart(6)} B/row`);
    }
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
