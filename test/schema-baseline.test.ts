import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, type Migration } from '../src/warehouse/schema/migrations.ts';
import {
  BASELINE_FILE,
  baselineFor,
  dumpBaseline,
  readBaseline,
  renderBaseline,
  type SchemaBaseline,
} from '../src/warehouse/schema/schema-baseline.ts';
import {
  ONE_LOADER_DEDUPLICATION_WINDOW,
  storageOptionsFor,
  withStorageOptions,
} from '../src/warehouse/schema/storage-settings.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { rows, temporaryDataDir } from './warehouse-fixtures.ts';

/** What a warehouse's schema is, as a user or a loader sees it. */
async function schemaOf(warehouse: EmbeddedWarehouse) {
  return {
    objects: await rows(
      warehouse.client,
      "SELECT name, engine, create_table_query FROM system.tables WHERE database = 'tapehouse' AND name != 'schema_migrations' ORDER BY name",
    ),
    applied: await rows(
      warehouse.client,
      'SELECT version, name, checksum FROM tapehouse.schema_migrations ORDER BY version',
    ),
  };
}

describe('the schema baseline (sql/baseline/schema.sql)', () => {
  const dir = temporaryDataDir();
  const chdb = storageOptionsFor({ kind: 'chdb', dataDir: dir.dataDir });
  const migrations = loadMigrations();
  const baseline = readBaseline()!;
  let warehouse: EmbeddedWarehouse;
  let migrated: Awaited<ReturnType<typeof schemaOf>>;

  beforeAll(async () => {
    warehouse = await openEmbeddedWarehouse(dir.dataDir);
    // The reference: every migration replayed one by one, with the embedded warehouse's storage settings.
    await migrate(warehouse.client, migrations, chdb);
    migrated = await schemaOf(warehouse);
  });
  beforeEach(async () => {
    await warehouse.client.command({ query: 'DROP DATABASE IF EXISTS tapehouse SYNC' });
  });
  afterAll(async () => {
    await warehouse.close();
    dir.remove();
  });

  it('stands for every migration in sql/ and is what they leave today (else: npm run schema:baseline)', async () => {
    await migrate(warehouse.client, migrations);
    const today = renderBaseline(await dumpBaseline(warehouse.client));
    expect(baseline.covers.map((m) => m.version)).toEqual(migrations.map((m) => m.version));
    expect(
      readFileSync(BASELINE_FILE, 'utf8') === today,
      'sql/baseline/schema.sql is stale: run npm run schema:baseline',
    ).toBe(true);
  });

  it('builds a fresh embedded warehouse exactly as the migrations do, and records them applied', async () => {
    const result = await migrate(warehouse.client, migrations, chdb, baseline);
    expect(result).toMatchObject({ fromBaseline: true, alreadyApplied: 0, recreated: [] });
    expect(result.applied.map((m) => m.file)).toEqual(migrations.map((m) => m.file));
    expect(await schemaOf(warehouse)).toEqual(migrated);
    expect(migrated.objects.length).toBeGreaterThan(90);
    // The embedded window, not the server's, on every table that deduplicates.
    const windows = await rows<{ n: string }>(
      warehouse.client,
      `SELECT count() AS n FROM system.tables WHERE database = 'tapehouse' AND engine_full LIKE '%non_replicated_deduplication_window = ${ONE_LOADER_DEDUPLICATION_WINDOW},%'`,
    );
    expect(Number(windows[0]!.n)).toBeGreaterThan(15);
    expect(await migrate(warehouse.client, migrations, chdb, baseline)).toMatchObject({
      applied: [],
      fromBaseline: false,
      alreadyApplied: migrations.length,
    });
  });

  it('completes a build interrupted before its migrations were recorded', async () => {
    await warehouse.client.command({ query: 'CREATE DATABASE tapehouse' });
    for (const statement of baseline.statements.slice(0, 40))
      await warehouse.client.command({ query: withStorageOptions(statement.ddl, chdb) });
    const result = await migrate(warehouse.client, migrations, chdb, baseline);
    expect(result.fromBaseline).toBe(true);
    expect(await schemaOf(warehouse)).toEqual(migrated);
  });

  it('applies a migration newer than the baseline on top of it', async () => {
    const extra = migration(
      9001,
      'notes',
      'CREATE TABLE IF NOT EXISTS tapehouse.notes (a UInt8) ENGINE = MergeTree ORDER BY a;\n',
    );
    const result = await migrate(warehouse.client, [...migrations, extra], chdb, baseline);
    expect(result.fromBaseline).toBe(true);
    expect(result.applied.at(-1)?.file).toBe('9001_notes.sql');
    expect(
      await rows(warehouse.client, "SELECT name FROM system.tables WHERE database = 'tapehouse' AND name = 'notes'"),
    ).toEqual([{ name: 'notes' }]);
  });

  it('leaves a warehouse holding something it would not make to the migrations, one by one', async () => {
    // A table of the user's own in our database, with no migration recorded: not a fresh warehouse.
    await warehouse.client.command({ query: 'CREATE DATABASE tapehouse' });
    await warehouse.client.command({
      query: 'CREATE TABLE tapehouse.my_notes (a UInt8) ENGINE = MergeTree ORDER BY a',
    });
    const result = await migrate(warehouse.client, migrations, chdb, baseline);
    expect(result.fromBaseline).toBe(false);
    const schema = await schemaOf(warehouse);
    expect(schema.objects.filter((o) => o.name !== 'my_notes')).toEqual(migrated.objects);
    expect(schema.applied).toEqual(migrated.applied);
  });

  it('is not used when the migrations it names are not the first in sql/, unchanged', () => {
    expect(baselineFor(baseline, migrations)).toBe(baseline);
    const changed: SchemaBaseline = {
      ...baseline,
      covers: baseline.covers.map((m, i) => (i === 3 ? { ...m, checksum: '0'.repeat(64) } : m)),
    };
    expect(baselineFor(changed, migrations)).toBeUndefined();
    expect(baselineFor(baseline, migrations.slice(0, -1))).toBeUndefined();
    expect(baselineFor(baseline, [migration(1, 'other', 'SELECT 1;\n'), ...migrations.slice(1)])).toBeUndefined();
    expect(baselineFor(undefined, migrations)).toBeUndefined();
  });
});

function migration(version: number, name: string, sql: string): Migration {
  return {
    version,
    name,
    file: `${String(version).padStart(4, '0')}_${name}.sql`,
    sql,
    checksum: createHash('sha256').update(sql).digest('hex'),
  };
}
