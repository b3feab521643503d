import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { packagePath } from '../../util/package-root.ts';
import { DATABASE } from '../database.ts';
import { existingObjects, expectedObjects, recreateObjects } from './schema-objects.ts';
import { runMigrationStatement } from './migration-statement.ts';
import { applyBaseline, baselineFor, readBaseline, type SchemaBaseline } from './schema-baseline.ts';
import { applyStorageSettings, storageOptionsFor, type StorageOptions } from './storage-settings.ts';
import type { WarehouseTarget } from '../target.ts';
import { splitStatements } from '../sql-lexer.ts';

/** The numbered migrations shipped with tapehouse. */
export const MIGRATIONS_DIR = packagePath('sql/');

export interface Migration {
  version: number;
  name: string;
  file: string;
  sql: string;
  /** sha256 of the file with line endings normalised, so a checkout with CRLF does not differ. */
  checksum: string;
}

interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.sql')) continue;
    const match = FILE_NAME.exec(file);
    if (!match) throw new MigrationError(`${file}: migration files are named NNNN_name.sql`);
    const sql = readFileSync(join(dir, file), 'utf8').replace(/\r\n/g, '\n');
    const version = Number(match[1]);
    if (migrations.some((m) => m.version === version)) throw new MigrationError(`two migrations numbered ${match[1]}`);
    migrations.push({ version, name: match[2]!, file, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

const BOOTSTRAP = [
  `CREATE DATABASE IF NOT EXISTS ${DATABASE}`,
  `CREATE TABLE IF NOT EXISTS ${DATABASE}.schema_migrations (
     version    UInt32,
     name       String,
     checksum   String,
     applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
   ) ENGINE = MergeTree ORDER BY version
   COMMENT 'Numbered migrations from sql/ applied to this warehouse, with the sha256 of each file'`,
];

export interface MigrateResult {
  /** Migrations recorded as applied by this run (by the baseline or one by one). */
  applied: Migration[];
  /** A fresh warehouse built from sql/baseline/ (schema-baseline.ts) rather than migration by migration. */
  fromBaseline: boolean;
  alreadyApplied: number;
  /** Tables and views the migrations define that were missing (dropped by hand) and were created again, empty. */
  recreated: string[];
}

/**
 * Applies pending migrations in order and records each with its checksum. Applying twice is a
 * no-op. An applied migration whose file changed (or vanished), or a new file numbered below one
 * already applied, is an error: the warehouse would no longer match the SQL in the repository.
 * Statements are written to be re-runnable (IF NOT EXISTS), so a migration interrupted midway is
 * completed by the next run.
 */
/**
 * Migrates a warehouse with the storage settings its kind needs (storageOptionsFor). A fresh chDB
 * directory is built from the baseline: it is chDB's own rendering of the schema, checked against
 * the migrations on chDB; a server, possibly of another ClickHouse version, gets the migrations.
 */
export function migrateWarehouse(warehouse: {
  target: WarehouseTarget;
  client: ClickHouseClient;
}): Promise<MigrateResult> {
  const baseline = warehouse.target.kind === 'chdb' ? readBaseline() : undefined;
  return migrate(warehouse.client, loadMigrations(), storageOptionsFor(warehouse.target), baseline);
}

export async function migrate(
  client: ClickHouseClient,
  migrations: Migration[] = loadMigrations(),
  storage: StorageOptions = {},
  baseline?: SchemaBaseline,
): Promise<MigrateResult> {
  for (const statement of BOOTSTRAP) await client.command({ query: statement });
  const applied = await appliedMigrations(client);
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  for (const done of applied) {
    const file = byVersion.get(done.version);
    if (!file)
      throw new MigrationError(
        `migration ${pad(done.version)}_${done.name} is applied but its file is missing from sql/`,
      );
    if (file.checksum !== done.checksum) {
      throw new MigrationError(
        `${file.file} changed after it was applied (applied sha256 ${done.checksum.slice(0, 12)}…, file ${file.checksum.slice(0, 12)}…). ` +
          'Applied migrations are immutable: revert the edit and add a new numbered migration instead.',
      );
    }
  }
  const highest = applied.reduce((max, m) => Math.max(max, m.version), 0);
  const appliedVersions = new Set(applied.map((m) => m.version));
  const late = migrations.find((m) => !appliedVersions.has(m.version) && m.version < highest);
  if (late)
    throw new MigrationError(
      `${late.file} is numbered below ${pad(highest)}, which is already applied; renumber it above ${pad(highest)}`,
    );

  const usable = applied.length === 0 ? baselineFor(baseline, migrations) : undefined;
  const fromBaseline = usable !== undefined && (await applyBaseline(client, usable, storage));
  const byBaseline = fromBaseline ? migrations.slice(0, usable.covers.length) : [];
  for (const migration of byBaseline) appliedVersions.add(migration.version);
  const pending = migrations.filter((m) => !appliedVersions.has(m.version));
  for (const migration of pending) {
    for (const statement of splitStatements(migration.sql)) {
      try {
        await runMigrationStatement(client, statement);
      } catch (err) {
        throw new MigrationError(`${migration.file}: ${(err as Error).message}\nin statement:\n${statement}`);
      }
    }
    await client.command({
      query: `INSERT INTO ${DATABASE}.schema_migrations (version, name, checksum) VALUES ({version:UInt32}, {name:String}, {checksum:String})`,
      query_params: { version: migration.version, name: migration.name, checksum: migration.checksum },
    });
  }
  // Applied is not the same as present: what the migrations define and is missing is created again.
  const existing = await existingObjects(client);
  const missing = new Set([...expectedObjects(migrations)].filter((name) => !existing.has(name)));
  const recreated = missing.size === 0 ? [] : await recreateObjects(client, migrations, missing);
  await applyStorageSettings(client, storage);
  return { applied: [...byBaseline, ...pending], fromBaseline, alreadyApplied: applied.length, recreated };
}

async function appliedMigrations(client: ClickHouseClient): Promise<AppliedMigration[]> {
  const result = await client.query({
    query: `SELECT version, name, checksum FROM ${DATABASE}.schema_migrations ORDER BY version`,
    format: 'JSONEachRow',
  });
  return result.json<AppliedMigration>();
}

function pad(version: number): string {
  return String(version).padStart(4, '0');
}
