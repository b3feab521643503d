import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { loadDashboards } from '../../src/dashboards/dashboard-model.ts';

// The dashboards as a new user first sees them: `tapehouse run` on a fresh data directory for three
// minutes, then each dashboard opened with no URL parameters — its default time range and
// variables. Every panel must show something meaningful: a chart, a row, a value, or a stated
// "nothing" (a stat's "never run", "none"). A default view of empty panels fails. Screenshots are
// saved to test-results/dashboards-main-job/.
const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/dashboards-main-job');
const root = resolve(import.meta.dirname, '../..');
const dashboards = loadDashboards().map(({ dashboard }) => dashboard);
const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-browser-run-'));
const RUN_MS = 3 * 60_000;

/**
 * Panels whose emptiness is the right answer after three calm minutes, and why. Anything else
 * empty by default is a dashboard that opens on nothing.
 */
const MAY_BE_EMPTY: Record<string, Record<string, string>> = {
  'tapehouse-pipeline': {
    'Capture gaps': 'a calm run may have none (the Capture gaps stat says 0, the timeline shows each stream covered)',
    'Recent dead letters': 'a calm run has none (the Dead letters stat says 0)',
    'Dead letters by error': 'a calm run has none',
    'Data quality findings': 'a calm run finds none',
  },
  'tapehouse-account': {
    'Reconciliation: differences in the latest run': 'no reconcile has run (the stat above says "never run")',
  },
  'tapehouse-markets': {},
  'tapehouse-market': {},
};

let job: ChildProcess;
let dashboardsUrl = '';
let browser: Browser;

beforeAll(async () => {
  job = spawn(
    process.execPath,
    [
      join(root, 'bin/tapehouse.js'),
      'run',
      '--data-dir',
      dataDir,
      '--http-port',
      '0',
      '--status',
      'off',
      '--rate',
      '40',
    ],
    {
      env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  job.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  for (let waited = 0; !/dashboards:\s+\S+/.test(out); waited += 250) {
    if (waited > 60_000 || job.exitCode !== null) throw new Error(`tapehouse run did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  dashboardsUrl = /dashboards:\s+(\S+)/.exec(out)![1]!.replace(/\/$/, '');
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  await new Promise((r) => setTimeout(r, RUN_MS));
}, RUN_MS + 120_000);

afterAll(async () => {
  await browser?.close();
  if (job && job.exitCode === null) {
    job.kill('SIGINT');
    await new Promise((r) => job.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the dashboards after three minutes of a fresh run, as they open', () => {
  it.each(dashboards.map((dashboard) => [dashboard.title, dashboard] as const))(
    '%s opens on something in every panel',
    async (_title, dashboard) => {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.goto(`${dashboardsUrl}/d/${dashboard.uid}`);
      // The first refresh runs every panel's query; a loaded CI machine can take a while.
      await page.waitForSelector('body[data-refreshes]', { timeout: 90_000 });
      const panels = await page.locator('section.panel').evaluateAll((sections) =>
        sections.map((section) => ({
          title: section.querySelector('h2')?.textContent ?? '',
          message: section.querySelector('.panel-body .message')?.textContent ?? '',
          drawn:
            section.querySelector('.panel-body canvas, .panel-body table tbody tr, .panel-body .stat-value') !== null,
        })),
      );
      await page.screenshot({ path: join(SCREENSHOTS, `${dashboard.uid}.png`), fullPage: true });
      // One wording for the range: the selector names the fitted default as the status does.
      const range = await page
        .locator('#controls select')
        .first()
        .evaluate((el) => (el as unknown as { selectedOptions: ArrayLike<{ text: string }> }).selectedOptions[0]?.text);
      expect(range).toBe('Since the data starts');
      expect(await page.locator('#status').textContent()).toContain('since the data starts');
      expect(panels).toHaveLength(dashboard.panels.length);
      const allowed = MAY_BE_EMPTY[dashboard.uid] ?? {};
      const empty = panels.filter((panel) => !panel.drawn && !(panel.title in allowed && panel.message === 'No data'));
      expect(
        empty,
        `panels that open on nothing: ${empty.map((panel) => `${panel.title} (${panel.message})`).join(', ')}`,
      ).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
