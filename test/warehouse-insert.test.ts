import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRowEncoder, type ColumnSpec, type InsertRow } from '../src/warehouse/insert/row-encoder.ts';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chdbTransport, insertSettings, insertStatementSql, RowInserter } from '../src/warehouse/insert/insert-rows.ts';
import { InsertValueError, isoFromEpochMicros } from '../src/warehouse/insert/tsv-encoders.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { rows, temporaryDataDir } from './warehouse-fixtures.ts';

const NASTY = [
  'tab\there',
  'line\nbreak',
  'carriage\rreturn',
  'back\\slash',
  'quote \' and "double"',
  '\\N',
  '',
  'ünïcødé 🚀',
  '\\t literal',
];

describe("the loaders' insert path (TabSeparated)", () => {
  const dir = temporaryDataDir();
  let warehouse: EmbeddedWarehouse;

  beforeAll(async () => {
    warehouse = await openEmbeddedWarehouse(dir.dataDir);
    await warehouse.client.command({ query: 'CREATE DATABASE t' });
    await warehouse.client.command({
      query: `CREATE TABLE t.every_type (
        id UInt32, text String, kind LowCardinality(String), amount_micro Int64, big Int128, ratio Float64,
        flag Bool, at DateTime64(6, 'UTC'), day Date, maybe_micro Nullable(Int64), maybe_at Nullable(DateTime64(3, 'UTC')),
        tags Array(String), amounts_micro Array(Int64), uid UUID,
        defaulted String DEFAULT 'the default', doubled Int64 MATERIALIZED id * 2
      ) ENGINE = MergeTree ORDER BY id`,
    });
  });
  afterAll(async () => {
    await warehouse.close();
    dir.remove();
  });

  it('stores every value exactly as given: awkward text, 64- and 128-bit integers, times to the microsecond, arrays, NULLs', async () => {
    const input = NASTY.map((text, i) => ({
      id: i,
      text,
      kind: i % 2 ? 'NEW_KIND_NOBODY_KNEW' : 'BUY',
      amount_micro: i === 0 ? -9_223_372_036_854_775_808n : 9_223_372_036_854_775_807n - BigInt(i),
      big: 170_141_183_460_469_231_731_687_303_715_884_105_727n,
      ratio: i / 3,
      flag: i % 2 === 0,
      at:
        i === 0
          ? 1_714_521_600_123_456n
          : i === 1
            ? new Date(Date.UTC(2024, 4, 1, 12, 30, 0, 5))
            : '2024-05-01T10:20:30.654321Z',
      day: '2024-05-01',
      maybe_micro: i % 3 === 0 ? null : BigInt(i),
      maybe_at: i % 3 === 0 ? undefined : '2024-05-01T00:00:00.001+02:00',
      tags: [text, 'plain', "it's"],
      amounts_micro: [1n, -2n, 9_007_199_254_740_993n],
      uid: '123e4567-e89b-12d3-a456-426614174000',
    }));
    const summary = await warehouse.insertRows('t.every_type', input);
    expect(summary).toMatchObject({ table: 't.every_type', rows: NASTY.length });

    const back = await rows(
      warehouse.client,
      `SELECT text, kind, amount_micro, toString(big) AS big, ratio, flag, toString(at) AS at, toString(day) AS day,
              maybe_micro, toString(maybe_at) AS maybe_at, tags, amounts_micro, defaulted, doubled
       FROM t.every_type ORDER BY id`,
    );
    expect(back).toEqual(
      input.map((row, i) => ({
        text: row.text,
        kind: row.kind,
        amount_micro: String(row.amount_micro),
        big: String(row.big),
        ratio: row.ratio,
        flag: row.flag,
        at:
          i === 0
            ? '2024-05-01 00:00:00.123456'
            : i === 1
              ? '2024-05-01 12:30:00.005000'
              : '2024-05-01 10:20:30.654321',
        day: '2024-05-01',
        maybe_micro: row.maybe_micro === null ? null : String(row.maybe_micro),
        maybe_at: row.maybe_at === undefined ? null : '2024-04-30 22:00:00.001',
        tags: row.tags,
        amounts_micro: ['1', '-2', '9007199254740993'],
        defaulted: 'the default',
        doubled: String(i * 2),
      })),
    );
  });

  it('names the table, column and row of a value it cannot store exactly, before anything is sent', async () => {
    const good = {
      id: 100,
      text: 'x',
      kind: 'BUY',
      amount_micro: 1n,
      big: 1n,
      ratio: 0,
      flag: true,
      at: '2024-05-01T00:00:00Z',
      day: '2024-05-01',
      tags: [],
      amounts_micro: [],
      uid: '123e4567-e89b-12d3-a456-426614174000',
    };
    const attempts: Array<[Record<string, unknown>, RegExp]> = [
      [{ amount_micro: 0.1 }, /row 1, column amount_micro: number 0.1 is not an exact Int64/],
      [{ amount_micro: 2 ** 60 }, /column amount_micro: .*not an exact Int64/], // a double past 2^53 has already lost digits
      [{ amount_micro: 9_223_372_036_854_775_808n }, /not an exact Int64/],
      [{ amount_micro: '12.5' }, /not an exact Int64/],
      [{ at: 'yesterday' }, /column at: "yesterday" is not a date-time/],
      [{ amount_micro: undefined }, /column amount_micro: missing/],
      [{ amounts_micro: [1n, 'x'] }, /column amounts_micro/],
      [{ no_such_column: 1 }, /no_such_column: not an insertable column/],
    ];
    for (const [change, message] of attempts) {
      const bad = { ...good, id: 101, ...change };
      const rowsToInsert = 'no_such_column' in change ? [bad] : [good, bad];
      const failure = warehouse.insertRows('t.every_type', rowsToInsert);
      await expect(failure).rejects.toBeInstanceOf(InsertValueError);
      await expect(failure).rejects.toThrow(message);
    }
    expect(await rows(warehouse.client, 'SELECT count() AS n FROM t.every_type WHERE id >= 100')).toEqual([{ n: '0' }]);
  });

  it('refuses to insert into MATERIALIZED columns or unknown tables', async () => {
    await expect(warehouse.insertRows('t.every_type', [{ id: 1 }], { columns: ['id', 'doubled'] })).rejects.toThrow(
      /MATERIALIZED/,
    );
    await expect(warehouse.insertRows('t.nope', [{ id: 1 }])).rejects.toThrow(/t\.nope does not exist/);
    await expect(warehouse.insertRows('t.every_type; DROP TABLE x', [{ id: 1 }])).rejects.toThrow(/not a table name/);
  });

  it("writes its settings into the statement's SETTINGS clause (async inserts off, whatever the server profile says), the dedup token escaped", () => {
    const sql = insertStatementSql({
      table: 'tapehouse.trades',
      columns: ['a', 'b'],
      settings: insertSettings("tok'en\\x"),
      format: 'TabSeparated',
    });
    expect(sql).toBe(
      'INSERT INTO tapehouse.trades (a, b) SETTINGS async_insert = 0, insert_deduplicate = 1, deduplicate_blocks_in_dependent_materialized_views = 1, ' +
        "date_time_input_format = 'best_effort', input_format_null_as_default = 1, insert_deduplication_token = 'tok\\'en\\\\x' FORMAT TabSeparated",
    );
  });

  it('encodes rows as TabSeparated lines in column order', () => {
    const specs: ColumnSpec[] = [
      { name: 'a', type: 'String', defaultKind: '' },
      { name: 'b', type: 'Nullable(Int64)', defaultKind: '' },
      { name: 'c', type: 'Array(LowCardinality(String))', defaultKind: '' },
    ];
    const encoder = compileRowEncoder('t.x', specs);
    expect(encoder.encode([{ a: 'x\ty', b: null, c: ["a'b", 'c\\d'] }]).toString()).toBe(
      "x\\ty\t\\N\t['a\\'b','c\\\\d']\n",
    );
    expect(isoFromEpochMicros(-1n)).toBe('1969-12-31T23:59:59.999999Z');
  });
});

describe("the loaders' insert path on chDB (Native, read from a file on tmpfs)", () => {
  const dir = temporaryDataDir();
  let warehouse: EmbeddedWarehouse;
  /** The same inserter forced onto the TabSeparated raw insert: the reference the Native path must match. */
  let tabSeparated: RowInserter;

  const COLUMNS = `id UInt32, text String, kind LowCardinality(String), tiny Int8, small UInt16, medium Int32, wide UInt32,
    amount_micro Int64, count UInt64, ratio Float64, flag Bool, at_ms DateTime64(3, 'UTC'), at_us DateTime64(6, 'UTC'), day Date,
    maybe_micro Nullable(Int64), maybe_at Nullable(DateTime64(3, 'UTC')), maybe_text LowCardinality(Nullable(String)),
    tags Array(String), amounts_micro Array(Int64), labels Array(LowCardinality(String)),
    defaulted String DEFAULT 'the default', fee_micro Int64 DEFAULT 42, derived UInt64 DEFAULT id * 10,
    status LowCardinality(String) DEFAULT 'open', seen_at DateTime64(6, 'UTC') DEFAULT toDateTime64('2024-01-02 03:04:05.000006', 6, 'UTC')`;

  beforeAll(async () => {
    warehouse = await openEmbeddedWarehouse(dir.dataDir);
    await warehouse.client.command({ query: 'CREATE DATABASE t' });
    for (const table of ['native', 'tsv']) {
      await warehouse.client.command({
        query: `CREATE TABLE t.${table} (${COLUMNS}) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`,
      });
    }
    await warehouse.client.command({
      query:
        'CREATE TABLE t.per_kind (kind String, n UInt64) ENGINE = MergeTree ORDER BY kind SETTINGS non_replicated_deduplication_window = 100',
    });
    await warehouse.client.command({
      query:
        'CREATE MATERIALIZED VIEW t.per_kind_mv TO t.per_kind AS SELECT kind, count() AS n FROM t.native GROUP BY kind',
    });
    tabSeparated = new RowInserter(warehouse.client, { ...chdbTransport(warehouse.connection), native: false });
  });
  afterAll(async () => {
    await warehouse.close();
    dir.remove();
  });

  const LONG = 'ü'.repeat(100); // 200 bytes of UTF-8: a two-byte length
  const at = Date.UTC(2026, 2, 2, 12, 30, 15, 123);

  /** Every type the Native path writes, with the awkward values of each; every third row leaves its DEFAULT columns
   * out. */
  function sample(count: number, from = 0): InsertRow[] {
    return Array.from({ length: count }, (_, k) => {
      const i = from + k;
      const row: InsertRow = {
        id: i,
        text: [...NASTY, LONG, '0x' + 'ab'.repeat(32)][i % (NASTY.length + 2)],
        kind: i % 2 ? 'BID' : 'ASK',
        tiny: [-128, 127, '-5', 0][i % 4],
        small: [0, 65_535, '7', 1n][i % 4],
        medium: [-2_147_483_648, 2_147_483_647, '-12', 12n][i % 4],
        wide: [0, 4_294_967_295, '4294967295', 3n][i % 4],
        amount_micro: [
          -9_223_372_036_854_775_808n,
          9_223_372_036_854_775_807n,
          '-9223372036854775808',
          '123456789012345',
          -1,
          '-7',
        ][i % 6],
        count: [18_446_744_073_709_551_615n, '18446744073709551615', 9_007_199_254_740_993n, 0][i % 4],
        ratio: [1 / 3, -0, 1e300, -2.5e-300, Number.POSITIVE_INFINITY, 2n ** 60n + 1n][i % 6],
        flag: [true, false, 1, 0][i % 4],
        at_ms: i % 2 ? at + i : new Date(at - i),
        at_us: i % 2 ? BigInt(at) * 1000n + BigInt(i) : at + i,
        day: i % 2 ? at : new Date(at),
        maybe_micro: i % 3 === 0 ? null : i % 3 === 1 ? undefined : BigInt(-i),
        maybe_at: i % 2 ? null : at,
        maybe_text: i % 2 ? undefined : `maybe ${i}`,
        tags: i % 4 === 0 ? [] : [NASTY[i % NASTY.length], "it's", LONG],
        amounts_micro: i % 4 === 0 ? [] : [1n, '-2', 9_007_199_254_740_993n],
        labels: ['a', i % 2 ? 'b' : 'c'],
      };
      return i % 3 === 0
        ? row
        : { ...row, defaulted: `given ${i}`, fee_micro: -i, derived: i, status: 'closed', seen_at: at };
    });
  }

  const dump = async (table: string) =>
    await (
      await warehouse.client.query({ query: `SELECT * FROM ${table} ORDER BY id`, format: 'TabSeparated' })
    ).text();

  it('stores exactly what the TabSeparated path stores, byte for byte, for every type, edge value and DEFAULT', async () => {
    const input = sample(60);
    const native = await warehouse.insertRows('t.native', input);
    const reference = await tabSeparated.insertRows('t.tsv', input);
    expect(native).toMatchObject({ rows: 60, format: 'Native' });
    expect(reference).toMatchObject({ rows: 60, format: 'TabSeparated' });
    const stored = await dump('t.native');
    expect(stored.split('\n').filter(Boolean)).toHaveLength(60);
    expect(stored).toBe(await dump('t.tsv'));
    // The DEFAULT expressions were evaluated for the rows that left them out, not zeros.
    expect(
      await rows(
        warehouse.client,
        'SELECT id, defaulted, fee_micro, derived, status, toString(seen_at) AS seen_at FROM t.native WHERE id IN (3, 4) ORDER BY id',
      ),
    ).toEqual([
      {
        id: 3,
        defaulted: 'the default',
        fee_micro: '42',
        derived: '30',
        status: 'open',
        seen_at: '2024-01-02 03:04:05.000006',
      },
      {
        id: 4,
        defaulted: 'given 4',
        fee_micro: '-4',
        derived: '4',
        status: 'closed',
        seen_at: '2026-03-02 12:30:15.123000',
      },
    ]);
  });

  it('leaves a batch it cannot write exactly to TabSeparated: times as text, a bad value named as before', async () => {
    const [row] = sample(1, 1000);
    const asText = { ...row!, at_ms: '2024-05-01T10:20:30.654+02:00' };
    const viaText = await warehouse.insertRows('t.native', [asText]);
    await tabSeparated.insertRows('t.tsv', [asText]);
    expect(viaText.format).toBe('TabSeparated');
    expect(await dump('t.native')).toBe(await dump('t.tsv'));

    const bad = { ...row!, id: 1001, wide: '-1' };
    const failure = warehouse.insertRows('t.native', [row!, bad]);
    await expect(failure).rejects.toBeInstanceOf(InsertValueError);
    await expect(failure).rejects.toThrow(/t\.native: row 1, column wide: "-1" is not an exact UInt32/);
  });

  it('drops a repeated insert with the same deduplication token, in the table and in its materialized view', async () => {
    const count = async () =>
      rows(
        warehouse.client,
        'SELECT (SELECT count() FROM t.native WHERE id >= 2000) AS rows, (SELECT sum(n) FROM t.per_kind) AS viewed',
      );
    const before = await count();
    const batch = sample(20, 2000);
    const first = await warehouse.insertRows('t.native', batch, { dedupToken: 't.native:topic:0:2000-2019' });
    expect(first.format).toBe('Native');
    const once = await count();
    expect(once[0]!.rows).toBe('20');
    await warehouse.insertRows('t.native', batch, { dedupToken: 't.native:topic:0:2000-2019' });
    await warehouse.insertRows('t.native', batch.slice(0, 5), { dedupToken: 't.native:topic:0:2000-2019' }); // same token, other bytes
    expect(await count()).toEqual(once);
    expect(Number(once[0]!.viewed) - Number(before[0]!.viewed)).toBe(20);
    await warehouse.insertRows('t.native', batch, { dedupToken: 't.native:topic:0:2000-2019@2' });
    expect((await count())[0]!.rows).toBe('40');
  });

  it('leaves no file behind once its inserts have settled', async () => {
    await Promise.all([0, 1, 2].map((k) => warehouse.insertRows('t.native', sample(10, 3000 + k * 10))));
    const base = existsSync('/dev/shm') ? '/dev/shm' : join(dir.dataDir, 'insert-files'); // tmpfs, else next to the data
    const mine = readdirSync(base).filter((name) => name.startsWith(`tapehouse-insert-${process.pid}-`));
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.flatMap((name) => readdirSync(join(base, name)))).toEqual([]);
  });
});
