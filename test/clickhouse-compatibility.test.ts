import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dataPanels, loadDashboards } from '../src/dashboards/dashboard-model.ts';
import { queryPanel } from '../src/dashboards/panel-data.ts';
import { readOnly, runQueryThroughClient, type RunQuery } from '../src/dashboards/run-query.ts';
import { parseTimeRange } from '../src/dashboards/time-range.ts';
import { resolveVariables } from '../src/dashboards/variables.ts';
import { migrate } from '../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { fillDashboardWarehouse } from './dashboards-fixtures.ts';
import { rows, temporaryDataDir } from './warehouse-fixtures.ts';

/**
 * One ClickHouse version story: the server docker-compose.yml runs is the version the SQL is
 * checked against. chDB (whose engine is the same major.minor) runs with `compatibility` set to
 * that server's version, then every migration, every view and every dashboard query runs on it.
 */

const compose = parse(readFileSync(join(import.meta.dirname, '../docker-compose.yml'), 'utf8')) as {
  services: { clickhouse: { image: string } };
};
// The release's major.minor: `compatibility` names a minor version, the image an exact release.
const SERVER_VERSION = /^(\d+\.\d+)\./.exec(compose.services.clickhouse.image.split(':')[1]!)![1]!;
const END = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const range = parseTimeRange(END.getTime() - 6 * 3_600_000, END.getTime());

let warehouse: EmbeddedWarehouse;
let remove: () => void;
let run: RunQuery;
let migrations = 0;

beforeAll(async () => {
  const dir = temporaryDataDir();
  remove = dir.remove;
  warehouse = await openEmbeddedWarehouse(dir.dataDir);
  // A setting stays with the chDB session for every later statement (DEVELOPERS.md).
  await warehouse.client.command({ query: `SET compatibility = '${SERVER_VERSION}'` });
  migrations = (await migrate(warehouse.client)).applied.length;
  await fillDashboardWarehouse(warehouse, { end: END });
  run = readOnly(runQueryThroughClient(warehouse.client));
});

afterAll(async () => {
  await warehouse?.close();
  remove?.();
});

describe(`the SQL on chDB with compatibility = the compose file's ClickHouse server (${SERVER_VERSION})`, () => {
  it('applies every migration with the setting in force', async () => {
    expect(SERVER_VERSION).toMatch(/^\d+\.\d+$/);
    expect(migrations).toBeGreaterThan(10);
    expect(await rows(warehouse.client, "SELECT getSetting('compatibility') AS v")).toEqual([{ v: SERVER_VERSION }]);
  });

  it('answers a query on every view and materialized view', async () => {
    const views = await rows<{ name: string; query: string }>(
      warehouse.client,
      "SELECT name, create_table_query AS query FROM system.tables WHERE database = 'tapehouse' AND engine IN ('View', 'MaterializedView') ORDER BY name",
    );
    expect(views.length).toBeGreaterThan(10);
    const failed: string[] = [];
    for (const { name, query } of views) {
      // A parameterized view is asked as its users ask it: with every parameter (a server refuses one without).
      // Times and strings get a time (book_at's token, at: no rows), numbers 1.
      const parameters = new Map(Array.from(query.matchAll(/\{(\w+):(\w+)/g), (m) => [m[1]!, m[2]!] as const));
      const value = (type: string) => (/^U?Int/.test(type) ? '1' : `'2026-01-01 00:00:00'`);
      const call =
        parameters.size > 0 ? `(${[...parameters].map(([p, type]) => `${p} = ${value(type)}`).join(', ')})` : '';
      await run(`SELECT * FROM tapehouse.${name}${call} LIMIT 3`).catch((error: Error) =>
        failed.push(`${name}: ${error.message}`),
      );
    }
    expect(failed).toEqual([]);
  });

  it('runs every panel query of every dashboard without an error', async () => {
    const failed: string[] = [];
    let panels = 0;
    for (const { dashboard } of loadDashboards()) {
      const variables = await resolveVariables(dashboard, {}, range, run);
      for (const panel of dataPanels(dashboard)) {
        panels += 1;
        const data = await queryPanel(panel, range, variables, run);
        if (data.error !== undefined) failed.push(`${dashboard.title} / ${panel.title}: ${data.error}`);
      }
    }
    expect(panels).toBeGreaterThan(20);
    expect(failed).toEqual([]);
    expect(await rows(warehouse.client, "SELECT getSetting('compatibility') AS v")).toEqual([{ v: SERVER_VERSION }]);
  });
});
