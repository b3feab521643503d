import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { loadDashboards } from '../../src/dashboards/dashboard-model.ts';
import { runQueryThroughClient } from '../../src/dashboards/run-query.ts';
import { serveDashboards, type DashboardsServer } from '../../src/dashboards/serve.ts';
import { fillDashboardWarehouse } from '../dashboards-fixtures.ts';
import { migratedWarehouse, type TestWarehouse } from '../warehouse-fixtures.ts';

// Opens each dashboard of the built-in viewer in Debian's chromium on a filled warehouse, waits
// for its data, requires every panel to have drawn something, and saves a screenshot.
const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/dashboards');
const dashboards = loadDashboards().map(({ dashboard }) => dashboard);

let seeded: TestWarehouse;
let server: DashboardsServer;
let browser: Browser;

beforeAll(async () => {
  seeded = await migratedWarehouse();
  await fillDashboardWarehouse(seeded.warehouse, { end: new Date() });
  server = await serveDashboards({ query: runQueryThroughClient(seeded.warehouse.client), basePath: '/dashboards' });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await seeded?.cleanup();
});

describe('the built-in viewer in a browser', () => {
  it('lists every dashboard', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    const titles = await page.locator('ul.dashboards li a').allTextContents();
    expect(titles.sort()).toEqual(dashboards.map((dashboard) => dashboard.title).sort());
    await page.close();
  });

  it.each(dashboards.map((dashboard) => [dashboard.title, dashboard] as const))(
    'draws every panel of %s with data',
    async (_title, dashboard) => {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.goto(`${server.url}/d/${dashboard.uid}?refresh=off`);
      await page.waitForSelector('body[data-refreshes]');
      const panels = await page.locator('section.panel').evaluateAll((sections) =>
        sections.map((section) => ({
          title: section.querySelector('h2')?.textContent ?? '',
          message: section.querySelector('.panel-body .message')?.textContent ?? '',
          drawn:
            section.querySelector('.panel-body canvas, .panel-body table tbody tr, .panel-body .stat-value') !== null,
        })),
      );
      expect(panels).toHaveLength(dashboard.panels.length);
      for (const panel of panels) expect(panel, panel.title).toEqual({ title: panel.title, message: '', drawn: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${dashboard.uid}.png`), fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it('refreshes live: trades loaded while the page is open show up without a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await page.goto(`${server.url}/d/tapehouse-markets?refresh=5s`);
    const trades = page.locator('[data-panel-id="4"] .stat-value').first();
    await page.waitForSelector('body[data-refreshes]');
    const before = await trades.textContent();
    const at = new Date(Date.now() - 1000).toISOString();
    await seeded.warehouse.insertRows(
      'trades',
      Array.from({ length: 5000 }, (_, index) => ({
        token_id: 'tok-1-1-yes',
        condition_id: '0xcond11',
        trade_id: `live-${index}`,
        side: 'BUY',
        price_micro: 500_000,
        shares_micro: 1_000_000,
        executed_at: at,
        sequence: index,
        _topic: 'tapehouse.market.trades',
        _partition: 0,
        _offset: 900_000 + index,
        _received_at: at,
      })),
    );
    await expect.poll(() => trades.textContent(), { timeout: 30_000, interval: 500 }).not.toBe(before);
    expect(Number(await page.getAttribute('body', 'data-refreshes'))).toBeGreaterThan(1);
    await page.close();
  });
});
