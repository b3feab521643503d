import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { loadDashboards } from '../../src/dashboards/dashboard-model.ts';

// The dashboards as a user opens them: on the port of a running `tapehouse run`, with the data it
// is capturing. Every page must load its data without a page error; screenshots are saved.
const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/dashboards-main-job');
const root = resolve(import.meta.dirname, '../..');
const dashboards = loadDashboards().map(({ dashboard }) => dashboard);
const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-browser-run-'));

let job: ChildProcess;
let dashboardsUrl = '';
let browser: Browser;

beforeAll(async () => {
  job = spawn(process.execPath, [join(root, 'bin/tapehouse.js'), 'run', '--data-dir', dataDir, '--http-port', '0', '--status', 'off', '--rate', '40'], {
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  job.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  for (let waited = 0; !/dashboards:\s+\S+/.test(out); waited += 250) {
    if (waited > 60_000 || job.exitCode !== null) throw new Error(`tapehouse run did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  dashboardsUrl = /dashboards:\s+(\S+)/.exec(out)![1]!.replace(/\/$/, '');
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (job && job.exitCode === null) {
    job.kill('SIGINT');
    await new Promise((r) => job.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the dashboards on a running main job', () => {
  it.each(dashboards.map((dashboard) => [dashboard.title, dashboard] as const))('%s loads its data without a page error', async (_title, dashboard) => {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${dashboardsUrl}/d/${dashboard.uid}?refresh=5s`);
    await page.waitForSelector('body[data-refreshes]');
    // Live data: at least one panel has drawn a chart, a table row or a stat.
    await expect
      .poll(() => page.locator('.panel-body canvas, .panel-body table tbody tr, .panel-body .stat-value').count(), { timeout: 60_000, interval: 1_000 })
      .toBeGreaterThan(0);
    expect(await page.locator('section.panel').count()).toBe(dashboard.panels.length);
    await page.screenshot({ path: join(SCREENSHOTS, `${dashboard.uid}.png`), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
