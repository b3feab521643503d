import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRowEncoder, type ColumnSpec } from '../src/warehouse/insert/row-encoder.ts';
import { insertSettings, insertStatementSql } from '../src/warehouse/insert/insert-rows.ts';
import { InsertValueError, isoFromEpochMicros } from '../src/warehouse/insert/tsv-encoders.ts';
import type { EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { rows, temporaryDataDir } from './warehouse-fixtures.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';

const NASTY = ['tab\there', 'line\nbreak', 'carriage\rreturn', 'back\\slash', "quote ' and \"double\"", '\\N', '', 'ünïcødé 🚀', '\\t literal'];

describe('the loaders\' insert path (TabSeparated)', () => {
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
      at: i === 0 ? 1_714_521_600_123_456n : i === 1 ? new Date(Date.UTC(2024, 4, 1, 12, 30, 0, 5)) : '2024-05-01T10:20:30.654321Z',
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
        at: i === 0 ? '2024-05-01 00:00:00.123456' : i === 1 ? '2024-05-01 12:30:00.005000' : '2024-05-01 10:20:30.654321',
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
    const good = { id: 100, text: 'x', kind: 'BUY', amount_micro: 1n, big: 1n, ratio: 0, flag: true, at: '2024-05-01T00:00:00Z', day: '2024-05-01', tags: [], amounts_micro: [], uid: '123e4567-e89b-12d3-a456-426614174000' };
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
    await expect(warehouse.insertRows('t.every_type', [{ id: 1 }], { columns: ['id', 'doubled'] })).rejects.toThrow(/MATERIALIZED/);
    await expect(warehouse.insertRows('t.nope', [{ id: 1 }])).rejects.toThrow(/t\.nope does not exist/);
    await expect(warehouse.insertRows('t.every_type; DROP TABLE x', [{ id: 1 }])).rejects.toThrow(/not a table name/);
  });

  it('writes its settings into the statement\'s SETTINGS clause, the dedup token escaped', () => {
    const sql = insertStatementSql({ table: 'tapehouse.trades', columns: ['a', 'b'], settings: insertSettings("tok'en\\x") });
    expect(sql).toBe(
      'INSERT INTO tapehouse.trades (a, b) SETTINGS insert_deduplicate = 1, deduplicate_blocks_in_dependent_materialized_views = 1, ' +
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
    expect(encoder.encode([{ a: 'x\ty', b: null, c: ["a'b", 'c\\d'] }]).toString()).toBe("x\\ty\t\\N\t['a\\'b','c\\\\d']\n");
    expect(isoFromEpochMicros(-1n)).toBe('1969-12-31T23:59:59.999999Z');
  });
});
