/**
 * `npm run schema:baseline`: replays every migration in sql/ into a scratch chDB directory and
 * writes what they leave to sql/baseline/schema.sql (src/warehouse/schema/schema-baseline.ts says why).
 * Run it after adding a migration; test/schema-baseline.test.ts fails until then.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { loadMigrations, migrate } from '../src/warehouse/schema/migrations.ts';
import { BASELINE_FILE, dumpBaseline, renderBaseline } from '../src/warehouse/schema/schema-baseline.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-baseline-'));
const warehouse = await openEmbeddedWarehouse(dataDir);
try {
  await migrate(warehouse.client, loadMigrations());
  const baseline = await dumpBaseline(warehouse.client);
  mkdirSync(dirname(BASELINE_FILE), { recursive: true });
  writeFileSync(BASELINE_FILE, renderBaseline(baseline));
  process.stdout.write(
    `${relative(process.cwd(), BASELINE_FILE)}: ${baseline.statements.length} objects, migrations ${baseline.covers.length}\n`,
  );
} finally {
  await warehouse.close();
  rmSync(dataDir, { recursive: true, force: true });
}
