import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runMigrationStatement } from '../src/warehouse/schema/migration-statement.ts';
import { loadMigrations, migrate, migrateWarehouse, MigrationError } from '../src/warehouse/schema/migrations.ts';
import {
  GROUP_DEDUPLICATION_WINDOW,
  ONE_LOADER_DEDUPLICATION_WINDOW,
} from '../src/warehouse/schema/storage-settings.ts';
import { splitStatements } from '../src/warehouse/sql-lexer.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { rows, temporaryDataDir } from './warehouse-fixtures.ts';

const ONE = 'CREATE TABLE IF NOT EXISTS tapehouse.m_one (a UInt8) ENGINE = MergeTree ORDER BY a;\n';
const TWO = `-- a comment with a ; inside
CREATE TABLE IF NOT EXISTS tapehouse.m_two (a UInt8, s String) ENGINE = MergeTree ORDER BY a;
INSERT INTO tapehouse.m_two VALUES (1, 'semi;colon');
`;

describe('numbered migrations', () => {
  const dir = temporaryDataDir();
  let sqlDir: string;
  let warehouse: EmbeddedWarehouse;

  const write = (files: Record<string, string>) => {
    rmSync(sqlDir, { recursive: true, force: true });
    sqlDir = mkdtempSync(join(tmpdir(), 'tapehouse-sql-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(sqlDir, name), text);
    return loadMigrations(sqlDir);
  };

  beforeAll(async () => {
    sqlDir = mkdtempSync(join(tmpdir(), 'tapehouse-sql-'));
    warehouse = await openEmbeddedWarehouse(dir.dataDir);
  });
  beforeEach(async () => {
    await warehouse.client.command({ query: 'DROP DATABASE IF EXISTS tapehouse SYNC' });
  });
  afterAll(async () => {
    await warehouse.close();
    rmSync(sqlDir, { recursive: true, force: true });
    dir.remove();
  });

  it('applies files in order and records each with the sha256 of its text', async () => {
    const result = await migrate(warehouse.client, write({ '0002_two.sql': TWO, '0001_one.sql': ONE }));
    expect(result.applied.map((m) => m.file)).toEqual(['0001_one.sql', '0002_two.sql']);
    const recorded = await rows(
      warehouse.client,
      'SELECT version, name, checksum FROM tapehouse.schema_migrations ORDER BY version',
    );
    expect(recorded).toEqual([
      { version: 1, name: 'one', checksum: createHash('sha256').update(ONE).digest('hex') },
      { version: 2, name: 'two', checksum: createHash('sha256').update(TWO).digest('hex') },
    ]);
    expect(await rows(warehouse.client, 'SELECT a, s FROM tapehouse.m_two')).toEqual([{ a: 1, s: 'semi;colon' }]);
  });

  it('does nothing when applied twice', async () => {
    const migrations = write({ '0001_one.sql': ONE, '0002_two.sql': TWO });
    await migrate(warehouse.client, migrations);
    const again = await migrate(warehouse.client, migrations);
    expect(again).toMatchObject({ applied: [], alreadyApplied: 2 });
    expect(await rows(warehouse.client, 'SELECT count() AS n FROM tapehouse.m_two')).toEqual([{ n: '1' }]); // the INSERT ran once
  });

  it('refuses a file changed after it was applied', async () => {
    await migrate(warehouse.client, write({ '0001_one.sql': ONE }));
    const edited = write({ '0001_one.sql': ONE.replace('UInt8', 'UInt16'), '0002_two.sql': TWO });
    await expect(migrate(warehouse.client, edited)).rejects.toThrow(/0001_one\.sql changed after it was applied/);
    expect(
      await rows(
        warehouse.client,
        "SELECT count() AS n FROM system.tables WHERE database = 'tapehouse' AND name = 'm_two'",
      ),
    ).toEqual([{ n: '0' }]);
  });

  it('refuses an applied migration whose file is gone, and a new file numbered below an applied one', async () => {
    await migrate(warehouse.client, write({ '0001_one.sql': ONE, '0003_three.sql': 'SELECT 1' }));
    await expect(migrate(warehouse.client, write({ '0003_three.sql': 'SELECT 1' }))).rejects.toThrow(
      /0001_one is applied but its file is missing/,
    );
    await expect(
      migrate(warehouse.client, write({ '0001_one.sql': ONE, '0002_two.sql': TWO, '0003_three.sql': 'SELECT 1' })),
    ).rejects.toThrow(/0002_two\.sql is numbered below 0003/);
  });

  it('names the file and statement that failed, records nothing for it, and completes on the next run', async () => {
    const broken = write({ '0001_one.sql': `${ONE}CREATE TABLE tapehouse.bad (a NoSuchType) ENGINE = Memory;` });
    const failure = migrate(warehouse.client, broken);
    await expect(failure).rejects.toBeInstanceOf(MigrationError);
    await expect(failure).rejects.toThrow(/0001_one\.sql: .*NoSuchType/s);
    expect(await rows(warehouse.client, 'SELECT count() AS n FROM tapehouse.schema_migrations')).toEqual([{ n: '0' }]);
    const fixed = write({ '0001_one.sql': ONE });
    expect((await migrate(warehouse.client, fixed)).applied).toHaveLength(1);
  });

  it('creates again, empty, what the migrations define and is missing; its materialised view feeds on', async () => {
    const migrations = write({
      '0001_src.sql': `CREATE TABLE IF NOT EXISTS tapehouse.src (a UInt8) ENGINE = MergeTree ORDER BY a;
CREATE TABLE IF NOT EXISTS tapehouse.total (n UInt64) ENGINE = SummingMergeTree ORDER BY tuple();
CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.total_mv TO tapehouse.total AS SELECT count() AS n FROM tapehouse.src;
CREATE VIEW IF NOT EXISTS tapehouse.src_view AS SELECT a FROM tapehouse.src;
CREATE TABLE IF NOT EXISTS tapehouse.gone (a UInt8) ENGINE = Memory;
CREATE TABLE IF NOT EXISTS tapehouse.old_name (a UInt8) ENGINE = Memory;`,
      '0002_later.sql': `ALTER TABLE tapehouse.src ADD COLUMN IF NOT EXISTS b String DEFAULT 'x';
DROP TABLE IF EXISTS tapehouse.gone;
RENAME TABLE tapehouse.old_name TO tapehouse.new_name;`,
    });
    expect((await migrate(warehouse.client, migrations)).recreated).toEqual([]);
    await warehouse.client.command({ query: 'INSERT INTO tapehouse.src (a) VALUES (1)' });
    for (const name of ['src', 'src_view', 'new_name'])
      await warehouse.client.command({ query: `DROP TABLE tapehouse.${name}` });

    const repaired = await migrate(warehouse.client, migrations);
    expect(repaired.applied).toEqual([]);
    expect(repaired.recreated.sort()).toEqual(['new_name', 'src', 'src_view']);
    // As the migrations leave it now (the later column included), and empty; the view reads it again.
    expect(
      await rows(
        warehouse.client,
        "SELECT name FROM system.columns WHERE database = 'tapehouse' AND table = 'src' ORDER BY position",
      ),
    ).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(await rows(warehouse.client, 'SELECT count() AS n FROM tapehouse.src')).toEqual([{ n: '0' }]);
    await warehouse.client.command({ query: 'INSERT INTO tapehouse.src (a) VALUES (2), (3)' });
    expect(await rows(warehouse.client, 'SELECT a FROM tapehouse.src_view ORDER BY a')).toEqual([{ a: 2 }, { a: 3 }]);
    expect(await rows(warehouse.client, 'SELECT sum(n) AS n FROM tapehouse.total')).toEqual([{ n: '3' }]); // 1 before, 2 after
    expect((await migrate(warehouse.client, migrations)).recreated).toEqual([]);
    expect(
      await rows(warehouse.client, "SELECT count() AS n FROM system.databases WHERE name LIKE 'tapehouse_%'"),
    ).toEqual([{ n: '0' }]);
  });

  it('0101 moves the rows of a monthly table into a daily one the materialised views follow, and converges when run again after stopping anywhere', async () => {
    const all = loadMigrations();
    await migrate(
      warehouse.client,
      all.filter((m) => m.version < 101),
    );
    const trade = (id: number, at: string) => ({
      token_id: 'tok',
      trade_id: `t${id}`,
      side: 'BUY',
      price_micro: 500_000,
      shares_micro: 2_000_000,
      executed_at: at,
      _topic: 'tapehouse.market.trades',
      _partition: 0,
      _offset: id,
      _received_at: `${at}001`,
    });
    await warehouse.insertRows('trades', [trade(1, '2026-10-30T10:00:00.000'), trade(2, '2026-11-02T10:00:00.000')]);
    // Interrupted right after the swap: the old table waits under the temporary name.
    const statements = splitStatements(all.find((m) => m.version === 101)!.sql);
    for (const statement of statements.slice(
      0,
      statements.findIndex((s) => s.includes('EXCHANGE TABLES tapehouse.trades')) + 1,
    )) {
      await runMigrationStatement(warehouse.client, statement);
    }
    const result = await migrate(warehouse.client, all);
    expect(result.applied.map((m) => m.version)).toEqual(all.filter((m) => m.version >= 101).map((m) => m.version));
    expect(
      await rows(
        warehouse.client,
        "SELECT name, partition_key FROM system.tables WHERE database = 'tapehouse' AND name IN ('trades', 'book_changes', 'trades__by_day') ORDER BY name",
      ),
    ).toEqual([
      { name: 'book_changes', partition_key: 'toDate(changed_at)' },
      { name: 'trades', partition_key: 'toDate(executed_at)' },
    ]);
    expect(
      await rows(
        warehouse.client,
        'SELECT trade_id, notional_micro, _partition_id AS part FROM tapehouse.trades ORDER BY trade_id',
      ),
    ).toEqual([
      { trade_id: 't1', notional_micro: '1000000', part: '20261030' },
      { trade_id: 't2', notional_micro: '1000000', part: '20261102' },
    ]);
    // The candles' materialised view reads the new table: a trade inserted now reaches them.
    await warehouse.insertRows('trades', [trade(3, '2026-11-02T10:00:30.000')]);
    expect(
      await rows(
        warehouse.client,
        "SELECT sum(trade_count) AS n FROM tapehouse.candles_1m WHERE bucket >= '2026-11-02'",
      ),
    ).toEqual([{ n: '2' }]);
    // Every table carries the cleanup settings.
    expect(
      await rows(
        warehouse.client,
        "SELECT count() AS n FROM system.tables WHERE database = 'tapehouse' AND engine LIKE '%MergeTree' AND engine_full NOT LIKE '%max_cleanup_delay_period = 1%'",
      ),
    ).toEqual([{ n: '0' }]);
  });

  it('refuses badly named files and duplicate numbers', () => {
    expect(() => write({ 'one.sql': ONE })).toThrow(/named NNNN_name\.sql/);
    expect(() => write({ '0001_a.sql': ONE, '0001_b.sql': ONE })).toThrow(/two migrations numbered 0001/);
  });

  it('0100 carries the trades stored before it: fill_id empty, candles and volume counting them as they were', async () => {
    const all = loadMigrations();
    await migrate(
      warehouse.client,
      all.filter((m) => m.version < 100),
    );
    const trade = (offset: number, tradeId: string, fillId: string | undefined, price: number) => ({
      token_id: 't1',
      condition_id: 'c1',
      trade_id: tradeId,
      ...(fillId === undefined ? {} : { fill_id: fillId }),
      side: 'BUY',
      price_micro: price,
      shares_micro: 1_000_000,
      executed_at: '2024-05-01 10:00:00.000',
      _topic: 'market.trades',
      _partition: 0,
      _offset: offset,
      _received_at: '2024-05-01 10:00:00.000000',
    });
    const insert = (values: object[]) =>
      warehouse.client.insert({ table: 'tapehouse.trades', values, format: 'JSONEachRow' });
    // Before: one row per trade (capture kept a trade's first fill only).
    await insert([trade(1, 'a', undefined, 400_000), trade(2, 'b', undefined, 410_000)]);
    await migrate(warehouse.client, all);
    expect(await rows(warehouse.client, 'SELECT trade_id, fill_id FROM tapehouse.trades ORDER BY trade_id')).toEqual([
      { trade_id: 'a', fill_id: '' },
      { trade_id: 'b', fill_id: '' },
    ]);
    // After: trade c arrives as two fills, trade d as one.
    await insert([trade(3, 'c', 'c1', 420_000), trade(4, 'c', 'c2', 430_000), trade(5, 'd', 'd1', 440_000)]);
    const counts = 'SELECT toString(trade_count) AS trades, toString(fill_count) AS fills FROM tapehouse.';
    expect(await rows(warehouse.client, `${counts}candles_1m`)).toEqual([{ trades: '4', fills: '5' }]);
    expect(await rows(warehouse.client, `${counts}volume_daily_by_token`)).toEqual([{ trades: '4', fills: '5' }]);
    await warehouse.client.command({ query: 'OPTIMIZE TABLE tapehouse.candles_state FINAL' });
    expect(await rows(warehouse.client, `${counts}candles_1h`)).toEqual([{ trades: '4', fills: '5' }]);
    // Same executed_at and sequence for all five: open and close are decided by trade id, then fill id.
    expect(
      await rows(
        warehouse.client,
        'SELECT toString(open_micro) AS o, toString(close_micro) AS c FROM tapehouse.candles_1m',
      ),
    ).toEqual([{ o: '400000', c: '440000' }]);
  });

  describe('the shipped schema (the public SQL surface of DESIGN.md)', () => {
    beforeEach(async () => {
      await migrate(warehouse.client);
    });

    it('on chDB (one loader per data directory) gives every deduplicating table the one-loader window and the vertical merges; a group asks for its own window; a table without a window keeps none', async () => {
      const windows = async () =>
        new Map(
          (
            await rows<{ name: string; window: string; vertical: number }>(
              warehouse.client,
              `SELECT name, extract(engine_full, 'non_replicated_deduplication_window = (\\d+)') AS window,
                      engine_full LIKE '%vertical_merge_algorithm_min_rows_to_activate = 1%' AS vertical
               FROM system.tables WHERE database = 'tapehouse' AND engine LIKE '%MergeTree'`,
            )
          ).map((r) => [r.name, r]),
        );
      const shipped = await windows();
      const deduplicating = [...shipped.values()].filter((t) => Number(t.window) > 0).map((t) => t.name);
      expect(deduplicating).toContain('trades');
      expect(deduplicating).toContain('candles_state');
      expect(shipped.get('loader_offsets')?.window).toBe('');
      expect([...shipped.values()].every((t) => Number(t.vertical) === 1)).toBe(true);

      await migrateWarehouse(warehouse);
      const embedded = await windows();
      for (const name of deduplicating)
        expect([name, embedded.get(name)?.window]).toEqual([name, String(ONE_LOADER_DEDUPLICATION_WINDOW)]);
      expect(embedded.get('loader_offsets')?.window).toBe('');

      await migrate(warehouse.client, loadMigrations(), { deduplicationWindow: GROUP_DEDUPLICATION_WINDOW });
      const group = await windows();
      for (const name of deduplicating)
        expect([name, group.get(name)?.window]).toEqual([name, String(GROUP_DEDUPLICATION_WINDOW)]);
      expect(group.get('loader_offsets')?.window).toBe('');
    });

    it('has every table and view DESIGN.md and issue 7 name, in database tapehouse', async () => {
      const names = (
        await rows<{ name: string }>(warehouse.client, "SELECT name FROM system.tables WHERE database = 'tapehouse'")
      ).map((r) => r.name);
      for (const name of [
        'trades',
        'book_changes',
        'book_snapshots',
        'quotes',
        'market_status',
        'capture_gaps',
        'events',
        'markets',
        'outcomes',
        'orders',
        'order_observations',
        'fills',
        'positions',
        'position_observations',
        'portfolio_summaries',
        'pnl_settled',
        'rebates',
        'activities',
        'lp_incentives',
        'dead_letters',
        'loader_offsets',
        'sync_checkpoints',
        'candles_1m',
        'candles_1h',
        'top_of_book_1m',
        'volume_daily_by_market',
        'volume_daily_by_category',
        'market_lifecycle',
        'events_latest',
        'markets_latest',
        'outcomes_latest',
        'orders_latest',
        'fills_latest',
        'positions_latest',
      ]) {
        expect(names).toContain(name);
      }
    });

    it('types every _micro column as an integer of 64 bits or more, every time as UTC DateTime64(3+), ids as strings', async () => {
      const columns = await rows<{ table: string; name: string; type: string }>(
        warehouse.client,
        "SELECT table, name, type FROM system.columns WHERE database = 'tapehouse' AND NOT match(table, '_(state|mv)$')",
      );
      const offenders = columns.filter(({ name, type }) => {
        const plain = type.replace(/^(Nullable|LowCardinality|Array)\((.*)\)$/, '$2');
        if (name.endsWith('_micro')) return !/^U?Int(64|128|256)$/.test(plain);
        if (/(_at|_time|^as_of|^expiration|^bucket|^watermark|^gap_start|^gap_end)$/.test(name)) {
          return !/^DateTime64\(([3-9]), 'UTC'\)$/.test(plain);
        }
        if (name === 'token_id' || name === 'condition_id') return plain !== 'String';
        return false;
      });
      expect(offenders).toEqual([]);
      expect(columns.filter((c) => c.name.endsWith('_micro')).length).toBeGreaterThan(50);
    });

    it('is documented column by column in sql/README.md, and the README names nothing that does not exist', async () => {
      const docs = documentedColumns(readFileSync(new URL('../sql/README.md', import.meta.url), 'utf8'));
      const columns = await rows<{ table: string; name: string }>(
        warehouse.client,
        "SELECT table, name FROM system.columns WHERE database = 'tapehouse' AND NOT match(table, '_(mv|state|latest_store|by_source)$')",
      );
      const byTable = new Map<string, string[]>();
      for (const { table, name } of columns) byTable.set(table, [...(byTable.get(table) ?? []), name]);
      const problems: string[] = [];
      for (const [table, names] of byTable) {
        const documented = docs.sections.get(table);
        if (!documented) {
          problems.push(`${table}: no section`);
          continue;
        }
        for (const name of names) {
          const known = name.startsWith('_') ? docs.provenance.has(name) : documented.has(name);
          if (!known) problems.push(`${table}.${name}: not documented`);
        }
        for (const name of documented)
          if (!names.includes(name)) problems.push(`${table}.${name}: documented but absent`);
      }
      expect(problems).toEqual([]);
    });

    it('keeps the raw payload of every bus-loaded table, compressed', async () => {
      const tables = await rows<{ table: string; codec: string }>(
        warehouse.client,
        `SELECT c.table AS table, c.compression_codec AS codec FROM system.columns AS c
         JOIN system.tables AS t ON t.database = c.database AND t.name = c.table
         WHERE c.database = 'tapehouse' AND c.name = '_offset' AND t.engine = 'MergeTree'`,
      );
      expect(tables.length).toBeGreaterThanOrEqual(18);
      const raw = await rows<{ table: string; codec: string }>(
        warehouse.client,
        "SELECT table, compression_codec AS codec FROM system.columns WHERE database = 'tapehouse' AND name = '_raw'",
      );
      for (const { table } of tables) expect(raw).toContainEqual({ table, codec: 'CODEC(ZSTD(3))' });
    });
  });
});

/**
 * Columns documented per `### table` section of sql/README.md: the first cell of its table rows,
 * or another section's (`Same columns as \`x\`` [`without \`y\``]); provenance columns separately.
 */
function documentedColumns(readme: string): { sections: Map<string, Set<string>>; provenance: Set<string> } {
  const raw = new Map<string, string>();
  for (const part of readme.split(/^### /m).slice(1)) {
    const title = part.slice(0, part.indexOf('\n')).trim();
    raw.set(title, part);
  }
  const own = (text: string) => new Set([...text.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]!));
  const sections = new Map<string, Set<string>>();
  for (const [title, text] of raw) {
    const same = /Same columns as `(\w+)`(?: \(including `\w+`\))?(?: without `(\w+)`)?/.exec(text);
    if (!same) {
      sections.set(title, own(text));
      continue;
    }
    const base = new Set(own(raw.get(same[1]!) ?? ''));
    if (same[2]) base.delete(same[2]);
    sections.set(title, base);
  }
  return { sections, provenance: own(raw.get('Provenance columns') ?? '') };
}
