import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardsApp } from '../src/dashboards/app.ts';
import { runQueryThroughClient, type RunQuery } from '../src/dashboards/run-query.ts';
import { fillDashboardWarehouse } from './dashboards-fixtures.ts';
import { serveEmbeddedEndpoint, type EmbeddedEndpoint } from '../src/warehouse/endpoint/embedded-endpoint.ts';
import { migratedWarehouse, type TestWarehouse } from './warehouse-fixtures.ts';

// The viewer mounted under /dashboards beside another route, as the main job mounts it, reading
// through the embedded endpoint's read-only sessions (what a running job serves).
// Recent: pipeline_health keeps 90 days (a TTL), so older samples would vanish.
const END = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const RANGE = { from: END.getTime() - 6 * 3_600_000, to: END.getTime() };

let seeded: TestWarehouse;
let endpoint: EmbeddedEndpoint;
let reader: ClickHouseClient;
let server: Server;
let base: string;
const statements: string[] = [];

beforeAll(async () => {
  seeded = await migratedWarehouse();
  await fillDashboardWarehouse(seeded.warehouse, { end: END });
  endpoint = await serveEmbeddedEndpoint(seeded.warehouse);
  reader = createClient({ url: endpoint.url });
  const warehouseQuery = runQueryThroughClient(reader);
  const recording: RunQuery = (sql) => {
    statements.push(sql);
    return warehouseQuery(sql);
  };
  const app = createDashboardsApp({ query: recording, basePath: '/dashboards' });
  server = createServer((request, response) => {
    void app.handle(request, response).then((handled) => {
      if (!handled) response.writeHead(200).end('the host route');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dashboards`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await reader?.close();
  await endpoint?.close();
  await seeded?.cleanup();
});

async function data(uid: string, body: unknown) {
  const response = await fetch(`${base}/api/dashboards/${uid}/data`, { method: 'POST', body: JSON.stringify(body) });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & {
      variables: Array<{ name: string; selected: string[] }>;
      panels: Record<string, { frames: unknown[]; error?: string }>;
    },
  };
}

describe('the viewer mounted on a host server', () => {
  it('answers under its base path only, leaving other paths to the host', async () => {
    expect(await (await fetch(`${base.replace('/dashboards', '')}/metrics`)).text()).toBe('the host route');
    const list = (await (await fetch(`${base}/api/dashboards`)).json()) as Array<{ title: string }>;
    expect(list.map((entry) => entry.title).sort()).toEqual([
      'Account',
      'Market detail',
      'Markets overview',
      'Pipeline health',
    ]);
    const page = await fetch(`${base}/d/tapehouse-market`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('src="/dashboards/assets/echarts.min.js"');
  });

  it('serves ECharts from node_modules and the viewer scripts, and nothing else from disk', async () => {
    const echarts = await fetch(`${base}/assets/echarts.min.js`);
    expect(echarts.headers.get('content-type')).toMatch(/javascript/);
    expect((await echarts.text()).length).toBeGreaterThan(500_000);
    expect((await fetch(`${base}/assets/viewer.js`)).status).toBe(200);
    expect((await fetch(`${base}/assets/..%2F..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/assets/app.ts`)).status).toBe(404);
  });

  it('runs every panel of a dashboard for a time range and returns each one frames', async () => {
    const { status, body } = await data('tapehouse-markets', RANGE);
    expect(status).toBe(200);
    expect(Object.keys(body.panels)).toHaveLength(11);
    for (const panel of Object.values(body.panels)) {
      expect(panel.error).toBeUndefined();
      expect(panel.frames.length).toBeGreaterThan(0);
    }
  });

  it('binds only values a variable offers: anything else is replaced before a statement is built', async () => {
    statements.length = 0;
    const hostile = "crypto') OR 1=1 --";
    const { status, body } = await data('tapehouse-markets', { ...RANGE, variables: { category: [hostile] } });
    expect(status).toBe(200);
    expect(body.variables.find((variable) => variable.name === 'category')!.selected).toEqual(['$__all']);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.some((sql) => sql.includes('OR 1=1'))).toBe(false);

    const chosen = await data('tapehouse-markets', { ...RANGE, variables: { category: ['crypto'] }, panels: [7] });
    expect(chosen.body.variables[0]!.selected).toEqual(['crypto']);
    expect(statements.at(-1)).toContain("IN ('crypto')");
  });

  it('fits a default range to the data: starts it where the loaders stored the first batch, never shorter than 5 minutes', async () => {
    const [row] = await (
      await reader.query({
        query: 'SELECT toUnixTimestamp64Milli(min(recorded_at)) AS start FROM tapehouse.loader_offsets',
        format: 'JSONEachRow',
      })
    ).json<{ start: string }>();
    const start = Number(row!.start);
    const wide = await data('tapehouse-account', { from: start - 30 * 86_400_000, to: END.getTime(), fit: true });
    expect(wide.body.range).toEqual({ from: start, to: END.getTime(), fitted: true });
    const chosen = await data('tapehouse-account', { from: start - 30 * 86_400_000, to: END.getTime() });
    expect(chosen.body.range).toEqual({ from: start - 30 * 86_400_000, to: END.getTime(), fitted: false });
    const early = await data('tapehouse-account', { from: start - 86_400_000, to: start + 60_000, fit: true });
    expect(early.body.range).toEqual({ from: start + 60_000 - 5 * 60_000, to: start + 60_000, fitted: true });
  });

  it('takes no SQL from the page, and refuses a malformed request', async () => {
    statements.length = 0;
    await data('tapehouse-pipeline', { ...RANGE, sql: 'SELECT * FROM system.users', panels: [6] });
    expect(statements.some((sql) => sql.includes('system.users'))).toBe(false);
    expect((await data('tapehouse-pipeline', { from: 'yesterday', to: 'now' })).status).toBe(400);
    expect((await data('tapehouse-pipeline', { ...RANGE, variables: { table: 'trades' } })).status).toBe(400);
    expect((await data('no-such-dashboard', RANGE)).status).toBe(404);
    expect((await fetch(`${base}/api/dashboards/tapehouse-pipeline/data`)).status).toBe(405);
  });
});
