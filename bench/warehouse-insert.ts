/**
 * Loader-path insert speed into chDB, next to the engine's own rate, and bytes on disk per book change.
 *
 * 1. Engine rate: INSERT INTO book_changes SELECT … FROM generateRandom() of the same columns
 *    (times kept inside one month so the insert does not span hundreds of partitions).
 * 2. Loader path: the same number of realistic book changes (rows of JS values: bigints, ISO
 *    times, one raw payload per bus record) encoded and inserted in batches, once per input format
 *    tried, each batch encoded while the previous one is inserted. Every format writes its own copy
 *    of the table; the copies are compared by a checksum of every column, so a faster format that
 *    lost a digit would show. RowBinary and Native are not among the raw inserts: chdb 3.4's raw
 *    insert takes text formats only, and its @clickhouse/client connection decodes an insert body
 *    as UTF-8. The loaders' own path (Warehouse.prepareInsert) sends a Native block through a file
 *    when every value has an exact Native form; these rows carry ISO text times, so it sends them
 *    as TabSeparated here (bench/load.ts measures the Native path on capture's rows).
 * 3. Bytes on disk per book change after OPTIMIZE FINAL (system.parts), per column (system.columns).
 *
 * Printed: rows/s per format and its ratio to the engine rate (aim ≥ 0.5 for the one the loaders
 * use), the share of time spent encoding in JS, and the bytes.
 *
 * Run: npx tsx bench/warehouse-insert.ts   (about 50 s on two busy cores)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { drainStream } from '@clickhouse/client';
import { sqlString } from '../src/warehouse/database.ts';
import { compileRowEncoder, type InsertRow, type RowEncoder } from '../src/warehouse/insert/row-encoder.ts';
import { insertSettings, insertStatementSql, readColumns } from '../src/warehouse/insert/insert-rows.ts';
import { migrate } from '../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';

const ROWS = 150_000;
const BATCH = 20_000;
const ROUNDS = 3; // best of; the formats take turns within a round, so a burst of load elsewhere hits them alike

interface Format {
  name: string;
  /** The loaders' own path: Warehouse.prepareInsert / send, as a loader calls it. */
  loaders?: boolean;
  /** Serialise one batch (JS work); `tsv` is the loaders' own encoder. */
  encode(rows: readonly InsertRow[], columns: readonly string[], tsv: RowEncoder): Buffer;
  /** Send it (engine work). */
  send(w: EmbeddedWarehouse, table: string, columns: readonly string[], payload: Buffer): Promise<void>;
}

// ---- realistic book changes -------------------------------------------------------------------

function bookChanges(count: number): InsertRow[] {
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const tokens = Array.from({ length: 50 }, (_, i) => ({
    token_id: (BigInt(i + 1) * 7_919_000_000_000_000_000_000_001n).toString().padEnd(77, '3'),
    condition_id: `0x${(i + 1).toString(16).padStart(64, 'a')}`,
    mid: 100_000 + Math.floor(next() * 800_000),
    sequence: 0,
  }));
  const rows: InsertRow[] = [];
  let at = Date.UTC(2024, 4, 1);
  let offset = 0;
  while (rows.length < count) {
    const token = tokens[Math.floor(next() * tokens.length)]!;
    at += Math.floor(next() * 20);
    token.sequence++;
    offset++;
    const changes = 1 + Math.floor(next() * 3);
    const receivedMicros = BigInt(at) * 1000n + BigInt(Math.floor(next() * 900) + 50) * 1000n;
    const levels = Array.from({ length: changes }, () => {
      const side = next() < 0.5 ? 'BID' : 'ASK';
      const distance = 1000 * (1 + Math.floor(next() * 20));
      const price = side === 'BID' ? token.mid - distance : token.mid + distance;
      return {
        side,
        price: BigInt(price),
        size: next() < 0.15 ? 0n : BigInt(Math.floor(next() * 50_000)) * 1_000_000n,
      };
    });
    const raw = JSON.stringify({
      channel: 'orderbook',
      token_id: token.token_id,
      sequence: token.sequence,
      timestamp: new Date(at).toISOString(),
      changes: levels.map((l) => ({ side: l.side, price_micro: String(l.price), size_micro: String(l.size) })),
    });
    levels.forEach((level, index) => {
      rows.push({
        token_id: token.token_id,
        condition_id: token.condition_id,
        side: level.side,
        price_micro: level.price,
        size_micro: level.size,
        previous_size_micro: level.size === 0n ? 1_000_000n : 0n,
        changed_at: new Date(at).toISOString(),
        sequence: token.sequence,
        update_kind: 'snapshot',
        _topic: 'market.book_changes',
        _partition: tokens.indexOf(token) % 12,
        _offset: offset,
        _index: index,
        _received_at: receivedMicros,
        _raw: index === 0 ? raw : '',
      });
    });
  }
  return rows.slice(0, count);
}

// ---- the formats tried ------------------------------------------------------------------------

const jsonSafe = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

function timeText(value: unknown): unknown {
  // JSON and CSV carry µs bigints as ISO text too, like the TSV encoder does.
  if (typeof value !== 'bigint') return value;
  const millis = Number(value / 1000n);
  return `${new Date(millis).toISOString().slice(0, 23)}${(value % 1000n).toString().padStart(3, '0')}Z`;
}

function jsonRow(row: InsertRow, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column] = column === '_received_at' ? timeText(row[column]) : row[column];
  return out;
}

const rawInsert =
  (format: 'JSONEachRow' | 'JSONCompactEachRow' | 'CSV' | 'TabSeparated') =>
  async (w: EmbeddedWarehouse, table: string, columns: readonly string[], payload: Buffer) => {
    await w.connection.chdb.rawInsert({
      table,
      columns,
      format,
      settings: { ...insertSettings(undefined) },
      values: payload,
    });
  };

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'bigint' || typeof value === 'number' ? String(value) : String(timeText(value));
  return /[",\n\r]/.test(text) || text === '' ? `"${text.replace(/"/g, '""')}"` : text;
}

const FORMATS: Format[] = [
  {
    // What client.insert({ format: 'JSONEachRow' }) does on chDB: JSON.stringify per row, then the
    // connection joins the body into the SQL text.
    name: 'JSONEachRow via the client connection',
    encode: (rows, columns) =>
      Buffer.from(rows.map((row) => `${JSON.stringify(jsonRow(row, columns), jsonSafe)}\n`).join('')),
    async send(w, table, columns, payload) {
      const query = `INSERT INTO ${table} (${columns.join(', ')}) SETTINGS date_time_input_format = 'best_effort' FORMAT JSONEachRow`;
      await w.connection.insert({ query, values: Readable.from([payload]) } as Parameters<
        typeof w.connection.insert
      >[0]);
    },
  },
  {
    name: 'JSONEachRow, raw buffer',
    encode: (rows, columns) =>
      Buffer.from(rows.map((row) => JSON.stringify(jsonRow(row, columns), jsonSafe)).join('\n')),
    send: rawInsert('JSONEachRow'),
  },
  {
    name: 'JSONCompactEachRow, raw buffer',
    encode: (rows, columns) =>
      Buffer.from(
        rows
          .map((row) =>
            JSON.stringify(
              columns.map((c) => (c === '_received_at' ? timeText(row[c]) : row[c])),
              jsonSafe,
            ),
          )
          .join('\n'),
      ),
    send: rawInsert('JSONCompactEachRow'),
  },
  {
    name: 'CSV (hand-escaped), raw buffer',
    encode: (rows, columns) =>
      Buffer.from(`${rows.map((row) => columns.map((c) => csvField(row[c])).join(',')).join('\n')}\n`),
    send: rawInsert('CSV'),
  },
  {
    name: 'TabSeparated via client.exec (string body)',
    encode: (rows, _columns, tsv) => tsv.encode(rows),
    async send(w, table, columns, payload) {
      const query = insertStatementSql({ table, columns, settings: insertSettings(undefined), format: 'TabSeparated' });
      const result = await w.client.exec({ query, values: Readable.from([payload]) });
      await drainStream(result.stream);
    },
  },
  {
    name: 'Warehouse.prepareInsert (the loaders)',
    loaders: true,
    encode: (rows, _columns, tsv) => tsv.encode(rows),
    send: rawInsert('TabSeparated'),
  },
];

// ---- measuring ----------------------------------------------------------------------------------

async function scalar(w: EmbeddedWarehouse, query: string): Promise<string> {
  const result = await w.client.query({ query, format: 'JSONEachRow' });
  const [row] = await result.json<Record<string, string>>();
  return String(Object.values(row ?? {})[0]);
}

async function freshTable(w: EmbeddedWarehouse, name: string): Promise<string> {
  const table = `tapehouse.${name}`;
  await w.client.command({ query: `DROP TABLE IF EXISTS ${table} SYNC` });
  await w.client.command({ query: `CREATE TABLE ${table} AS tapehouse.book_changes` });
  return table;
}

/** Average length of the string values of the rows, so generateRandom makes strings of the same size. */
function averageStringLength(rows: InsertRow[]): number {
  let total = 0;
  let count = 0;
  for (const row of rows.slice(0, 10_000)) {
    for (const value of Object.values(row)) {
      if (typeof value === 'string') {
        total += value.length;
        count++;
      }
    }
  }
  return total / count;
}

interface Run {
  total: number;
  encoding: number;
}

/** Something measured: each round runs every contender once, in turn, and the best run counts. */
interface Contender {
  name: string;
  table: string;
  run(): Promise<Run>;
}

function engineContender(
  w: EmbeddedWarehouse,
  columns: readonly string[],
  structure: string,
  stringLength: number,
): Contender {
  let seed = 0;
  return {
    name: 'engine: INSERT … SELECT FROM generateRandom',
    table: 'tapehouse.bench_engine',
    async run() {
      await freshTable(w, 'bench_engine');
      const started = performance.now();
      await w.client.command({
        // generateRandom's strings are 0..max long: twice the average gives the same average.
        query: `INSERT INTO tapehouse.bench_engine (${columns.join(', ')})
                SELECT * REPLACE (toDateTime64('2024-05-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(rand() % 2000000000) AS changed_at)
                FROM generateRandom(${sqlString(structure)}, ${++seed}, ${Math.round(2 * stringLength)}, 4) LIMIT ${ROWS}`,
      });
      return { total: performance.now() - started, encoding: 0 };
    },
  };
}

/** The engine alone on the loaders' payloads: TabSeparated batches encoded beforehand, then inserted. */
function payloadContender(w: EmbeddedWarehouse, columns: readonly string[], payloads: Buffer[]): Contender {
  return {
    name: "engine alone on the loaders' TabSeparated bytes",
    table: 'tapehouse.bench_payloads',
    async run() {
      await freshTable(w, 'bench_payloads');
      const started = performance.now();
      for (const payload of payloads) await rawInsert('TabSeparated')(w, 'tapehouse.bench_payloads', columns, payload);
      return { total: performance.now() - started, encoding: 0 };
    },
  };
}

/**
 * Batches go in one after another, as a loader sends a partition's batches, but the next batch is
 * encoded while the previous one is being inserted (the engine works off the JS thread).
 */
function formatContender(
  w: EmbeddedWarehouse,
  format: Format,
  index: number,
  rows: InsertRow[],
  columns: readonly string[],
  tsv: RowEncoder,
): Contender {
  const table = `tapehouse.bench_format_${index}`;
  return {
    name: format.name,
    table,
    async run() {
      await freshTable(w, table.split('.')[1]!);
      let encoding = 0;
      let inFlight: Promise<unknown> = Promise.resolve();
      const started = performance.now();
      for (let i = 0; i < rows.length; i += BATCH) {
        const batch = rows.slice(i, i + BATCH);
        const encodeStarted = performance.now();
        let send: () => Promise<unknown>;
        if (format.loaders) {
          const prepared = await w.prepareInsert(table, batch, { columns, dedupToken: `bench/${i}` });
          send = () => prepared.send();
        } else {
          const payload = format.encode(batch, columns, tsv);
          send = () => format.send(w, table, columns, payload);
        }
        encoding += performance.now() - encodeStarted;
        await inFlight;
        inFlight = send();
      }
      await inFlight;
      return { total: performance.now() - started, encoding };
    },
  };
}

async function measure(contenders: Contender[]): Promise<Run[]> {
  const best: Run[] = contenders.map(() => ({ total: Infinity, encoding: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, contender] of contenders.entries()) {
      const run = await contender.run();
      if (run.total < best[i]!.total) best[i] = run;
    }
  }
  return best;
}

async function bytesPerRow(w: EmbeddedWarehouse, table: string): Promise<void> {
  await w.client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
  const [name] = table.split('.').slice(1);
  const total = Number(
    await scalar(
      w,
      `SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'tapehouse' AND table = '${name}'`,
    ),
  );
  const rows = Number(
    await scalar(w, `SELECT sum(rows) FROM system.parts WHERE active AND database = 'tapehouse' AND table = '${name}'`),
  );
  console.log(
    `\nbytes on disk per book change (after OPTIMIZE FINAL): ${(total / rows).toFixed(2)} (${rows} rows, ${(total / 1e6).toFixed(2)} MB)`,
  );
  const result = await w.client.query({
    query: `SELECT name, data_compressed_bytes AS compressed, data_uncompressed_bytes AS raw FROM system.columns
            WHERE database = 'tapehouse' AND table = '${name}' ORDER BY compressed DESC`,
    format: 'JSONEachRow',
  });
  for (const column of await result.json<{ name: string; compressed: string; raw: string }>()) {
    const compressed = Number(column.compressed);
    console.log(
      `  ${column.name.padEnd(20)} ${(compressed / rows).toFixed(2).padStart(6)} B/row  (×${(Number(column.raw) / Math.max(compressed, 1)).toFixed(1)} compression)`,
    );
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tapehouse-bench-'));
  const w = await openEmbeddedWarehouse(dir);
  try {
    await migrate(w.client);
    const specs = await readColumns(w.client, 'tapehouse.book_changes');
    const columns = specs.filter((c) => c.defaultKind === '' || c.defaultKind === 'DEFAULT').map((c) => c.name);
    const structure = columns.map((c) => `${c} ${specs.find((s) => s.name === c)!.type}`).join(', ');
    const rows = bookChanges(ROWS);
    const tsv = compileRowEncoder('tapehouse.book_changes', specs, columns);
    const payloads: Buffer[] = [];
    for (let i = 0; i < rows.length; i += BATCH) payloads.push(tsv.encode(rows.slice(i, i + BATCH)));
    const stringLength = averageStringLength(rows);
    console.log(
      `book_changes: ${ROWS} rows in batches of ${BATCH}, best of ${ROUNDS}, strings ${stringLength.toFixed(0)} characters on average; ` +
        `${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the start\n`,
    );

    const contenders = [
      engineContender(w, columns, structure, stringLength),
      payloadContender(w, columns, payloads),
      ...FORMATS.map((format, index) => formatContender(w, format, index, rows, columns, tsv)),
    ];
    const runs = await measure(contenders);
    const engine = ROWS / (runs[0]!.total / 1000);
    const checksums = new Map<string, string[]>();
    for (const [i, contender] of contenders.entries()) {
      const { total, encoding } = runs[i]!;
      const rate = ROWS / (total / 1000);
      const share = i >= 2 ? `  (JS encoding ${Math.round((encoding / total) * 100)}% of the time)` : '';
      console.log(
        `${contender.name.padEnd(52)} ${Math.round(rate).toLocaleString('en').padStart(10)} rows/s  ratio ${(rate / engine).toFixed(2)}${share}`,
      );
      if (i === 1) console.log('');
      if (i >= 1) {
        const checksum = await scalar(
          w,
          `SELECT concat(toString(count()), '/', toString(groupBitXor(cityHash64(${columns.join(', ')})))) FROM ${contender.table}`,
        );
        checksums.set(checksum, [...(checksums.get(checksum) ?? []), contender.name]);
      }
    }
    console.log(
      checksums.size === 1
        ? '\nevery format stored identical data'
        : `\nFORMATS DISAGREE: ${JSON.stringify([...checksums])}`,
    );
    await bytesPerRow(w, 'tapehouse.bench_payloads');
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
