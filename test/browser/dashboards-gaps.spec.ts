import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { DASHBOARDS_DIR } from '../../src/dashboards/dashboard-model.ts';
import { runQueryThroughClient } from '../../src/dashboards/run-query.ts';
import { serveDashboards, type DashboardsServer } from '../../src/dashboards/serve.ts';
import { migratedWarehouse, type TestWarehouse } from '../warehouse-fixtures.ts';

// An hour of the main job's frame counts (a sample every 10 s, 50 frames each: 5 frames/s) with
// no samples for 20 minutes in the middle. Pipeline health's "Frames per second by stream" is
// drawn in chromium and its canvas read where the line would be: across the hole it is drawn
// while nothing says coverage broke, and it is broken once the warehouse holds the capture gap
// (capture not running) that a restart records.
const MINUTE = 60_000;
const END = Math.floor(Date.now() / MINUTE) * MINUTE - MINUTE;
const START = END - 60 * MINUTE;
const HOLE = { from: START + 20 * MINUTE, to: START + 40 * MINUTE };
const FRAMES_PANEL = 7;

let seeded: TestWarehouse;
let server: DashboardsServer;
let browser: Browser;
let editedDir: string;

beforeAll(async () => {
  seeded = await migratedWarehouse();
  const samples = [];
  for (let at = START; at <= END; at += 10_000) {
    if (at >= HOLE.from && at < HOLE.to) continue;
    const sampled_at = new Date(at).toISOString();
    samples.push({
      sampled_at,
      component: 'capture',
      subject: 'market',
      metric: 'frames',
      value: 50,
      interval_ms: 10_000,
    });
  }
  await seeded.warehouse.insertRows('pipeline_health', samples);
  server = await serveDashboards({ query: runQueryThroughClient(seeded.warehouse.client), basePath: '/dashboards' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await seeded?.cleanup();
  if (editedDir) rmSync(editedDir, { recursive: true, force: true });
});

// What the page's script below touches (the project's types carry no DOM).
interface PanelBody {
  querySelector(selector: string): {
    width: number;
    clientWidth: number;
    getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } };
  };
}
interface PageGlobals {
  document: { querySelector(selector: string): PanelBody };
  echarts: {
    getInstanceByDom(body: PanelBody): {
      getOption(): { color: string[] };
      convertToPixel(finder: object, point: number[]): [number, number];
    };
  };
}

/** Whether the panel's canvas has the first series' colour on its line (5 frames/s) at each time. */
async function lineDrawnAt(page: Page, times: number[]): Promise<boolean[]> {
  return page.evaluate(
    ({ panel, times, value }) => {
      const { document, echarts } = globalThis as unknown as PageGlobals;
      const body = document.querySelector(`[data-panel-id="${panel}"] .panel-body`);
      const chart = echarts.getInstanceByDom(body);
      const canvas = body.querySelector('canvas');
      const context = canvas.getContext('2d');
      const scale = canvas.width / canvas.clientWidth;
      const hex = chart.getOption().color[0]!;
      const colour = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
      return times.map((at) => {
        // A column 8 px tall across where the line would pass at that time.
        const [x, y] = chart.convertToPixel({ seriesIndex: 0 }, [at, value]);
        const column = context.getImageData(
          Math.round(x * scale),
          Math.round((y - 4) * scale),
          1,
          Math.round(8 * scale),
        ).data;
        for (let i = 0; i < column.length; i += 4) {
          const distance = colour.reduce((sum, channel, c) => sum + Math.abs(channel - column[i + c]!), 0);
          if (column[i + 3]! > 100 && distance < 90) return true;
        }
        return false;
      });
    },
    { panel: FRAMES_PANEL, times, value: 5 },
  );
}

async function openPipelineHealth(on: DashboardsServer = server): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`${on.url}/d/tapehouse-pipeline?refresh=off&from=${START}&to=${END}`);
  await page.waitForSelector(`body[data-refreshes] [data-panel-id="${FRAMES_PANEL}"] .panel-body canvas`);
  return page;
}

describe('a line in the built-in viewer', () => {
  const before = START + 10 * MINUTE;
  const inHole = (HOLE.from + HOLE.to) / 2;
  const after = START + 50 * MINUTE;

  it('joins across missing samples while nothing says coverage broke, and breaks at a capture gap', async () => {
    const joined = await openPipelineHealth();
    expect(await lineDrawnAt(joined, [before, inHole, after])).toEqual([true, true, true]);
    await joined.close();

    await seeded.warehouse.insertRows('capture_gaps', [
      {
        stream: 'market',
        gap_start: new Date(HOLE.from - 5_000).toISOString(),
        gap_end: new Date(HOLE.to).toISOString(),
        reason: 'capture_not_running',
        recovery: 'books_reseeded',
        detail: 'capture was not running between the previous run and this one',
        _topic: 'tapehouse.capture.gaps',
        _partition: 0,
        _offset: 1,
        _received_at: new Date(HOLE.to).toISOString(),
      },
    ]);
    const broken = await openPipelineHealth();
    expect(await lineDrawnAt(broken, [before, inHole, after])).toEqual([true, false, true]);
    await broken.close();
  });

  it("honours Grafana's insertNulls and a spanNulls threshold set on the panel, as Grafana draws them", async () => {
    // The frames panel's query without its capture-gap rows, and the two options: nulls inserted
    // where samples lie more than a minute apart break the line; with runs of nulls joined when
    // their neighbours lie under 30 minutes apart (the hole is 20), it is whole again.
    const edit = (custom: Record<string, unknown>) => {
      editedDir = mkdtempSync(join(tmpdir(), 'tapehouse-dashboards-'));
      const json = JSON.parse(readFileSync(join(DASHBOARDS_DIR, 'pipeline-health.json'), 'utf8')) as {
        panels: Array<{
          id: number;
          targets: Array<{ rawSql: string }>;
          fieldConfig: { defaults: { custom: Record<string, unknown> } };
        }>;
      };
      const panel = json.panels.find((entry) => entry.id === FRAMES_PANEL)!;
      const target = panel.targets[0]!;
      target.rawSql = `${/^WITH data AS \(\n([\s\S]*?)\n\),\ngaps AS/.exec(target.rawSql)![1]} ORDER BY time`;
      Object.assign(panel.fieldConfig.defaults.custom, custom);
      writeFileSync(join(editedDir, 'pipeline-health.json'), JSON.stringify(json));
      return serveDashboards({ query: runQueryThroughClient(seeded.warehouse.client), dashboardsDir: editedDir });
    };
    for (const [custom, drawn] of [
      [{ insertNulls: MINUTE, spanNulls: false }, [true, false, true]],
      [{ insertNulls: MINUTE, spanNulls: 30 * MINUTE }, [true, true, true]],
    ] as const) {
      const edited = await edit(custom);
      const page = await openPipelineHealth(edited);
      expect(await lineDrawnAt(page, [before, inHole, after]), JSON.stringify(custom)).toEqual(drawn);
      await page.close();
      await edited.close();
      rmSync(editedDir, { recursive: true, force: true });
    }
  });
});
