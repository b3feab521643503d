import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { ClickHouseClient } from '@clickhouse/client';
import { loadMigrations, migrate } from '../src/warehouse/schema/migrations.ts';
import { readBaseline } from '../src/warehouse/schema/schema-baseline.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';

/** Shared set-up of the warehouse test files (chDB allows one data directory per process). */

export interface TestWarehouse {
  dataDir: string;
  warehouse: EmbeddedWarehouse;
  cleanup(): Promise<void>;
}

export function temporaryDataDir(): { dataDir: string; remove(): void } {
  const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-warehouse-'));
  return { dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}

/**
 * A warehouse built from the schema baseline, as a fresh `tapehouse run` directory is
 * (test/schema-baseline.test.ts holds it equal to the migrations replayed): 0.3 s instead of 1.5.
 * `oneByOne` replays the migrations instead, as an older warehouse went through them: with what
 * they leave besides the schema (the re-derive requests of the rows stored before them).
 */
export async function migratedWarehouse(options: { oneByOne?: boolean } = {}): Promise<TestWarehouse> {
  const { dataDir, remove } = temporaryDataDir();
  const warehouse = await openEmbeddedWarehouse(dataDir);
  await migrate(warehouse.client, loadMigrations(), {}, options.oneByOne ? undefined : readBaseline());
  return {
    dataDir,
    warehouse,
    async cleanup() {
      await warehouse.close();
      remove();
    },
  };
}

/** Bus provenance of a row: record `offset` on topic `topic`, partition 0. */
export function busRecord(offset: number, topic = 'test.records'): Record<string, string | number> {
  return { _topic: topic, _partition: 0, _offset: offset, _received_at: '2024-05-01T00:00:00.000001Z' };
}

export async function rows<T = Record<string, unknown>>(client: ClickHouseClient, query: string): Promise<T[]> {
  const result = await client.query({ query, format: 'JSONEachRow' });
  return result.json<T>();
}

const BIN = resolve(import.meta.dirname, '../bin/tapehouse.js');
const execute = promisify(execFile);

/** Runs the tapehouse command as a user would: a child process. */
export async function tapehouse(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [BIN, ...args], {
      timeout: 30_000,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
