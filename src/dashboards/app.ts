import type { IncomingMessage, ServerResponse } from 'node:http';
import { readAsset } from './assets.ts';
import { DASHBOARDS_DIR, loadDashboards, type DashboardFile } from './dashboard-model.ts';
import { dataStartMs, fitToData } from './data-coverage.ts';
import { BadDataRequest, parseDataRequest } from './data-request.ts';
import { dashboardPage, listPage } from './pages.ts';
import { panelIntervalMs, queryDashboard } from './panel-data.ts';
import { readOnly, type RunQuery } from './run-query.ts';

/**
 * The built-in viewer: the dashboards of `dashboards/` as web pages, drawn from the warehouse.
 *
 *   GET  {base}/                         the list of dashboards
 *   GET  {base}/d/{uid}                  a dashboard's page (it fetches the rest itself)
 *   GET  {base}/api/dashboards           the list as JSON
 *   GET  {base}/api/dashboards/{uid}     the dashboard's JSON, as Grafana reads it
 *   POST {base}/api/dashboards/{uid}/data  {from, to, variables, panels?, fit?} → variables and panel data
 *                                        (fit: the default range, started where the data starts)
 *   GET  {base}/assets/{name}            the page's scripts, style and ECharts
 *
 * The files are read on every request, so an edited dashboard shows on the next refresh.
 */

export interface DashboardsAppOptions {
  /** Runs a read statement on the warehouse; every statement is checked read-only first. */
  query: RunQuery;
  dashboardsDir?: string;
  /** Path prefix when mounted beside other routes, e.g. "/dashboards" (default: none). */
  basePath?: string;
  now?: () => Date;
}

export interface DashboardsApp {
  /** Answers requests under the base path; returns false (and leaves the response alone) for others. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
}

const MAX_BODY_BYTES = 64 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Browsers ask every site for `/favicon.ico`: an empty answer keeps their consoles free of 404s
 * (the browser test fails on a console error). Returns whether it answered.
 */
export function answerFavicon(path: string, response: ServerResponse): boolean {
  if (path !== '/favicon.ico') return false;
  response.writeHead(204).end();
  return true;
}

export function createDashboardsApp(options: DashboardsAppOptions): DashboardsApp {
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const run = readOnly(options.query);
  const now = options.now ?? (() => new Date());
  const dir = options.dashboardsDir ?? DASHBOARDS_DIR;

  const find = (uid: string): DashboardFile => {
    const file = loadDashboards(dir).find(({ dashboard }) => dashboard.uid === uid);
    if (!file) throw new HttpError(404, `no dashboard ${uid}`);
    return file;
  };

  async function route(
    method: string,
    path: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const get = method === 'GET' || method === 'HEAD';
    if (parts.length === 0 && get) return sendHtml(response, listPage(base, loadDashboards(dir)));
    if (parts[0] === 'd' && parts.length === 2 && get) return sendHtml(response, dashboardPage(base, find(parts[1]!)));
    if (parts[0] === 'assets' && parts.length === 2 && get) {
      const asset = await readAsset(parts[1]!);
      if (!asset) throw new HttpError(404, `no asset ${parts[1]}`);
      response.writeHead(200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache' });
      response.end(asset.body);
      return;
    }
    if (parts[0] === 'api' && parts[1] === 'dashboards') {
      if (parts.length === 2 && get) {
        const list = loadDashboards(dir).map(({ file, dashboard }) => ({
          uid: dashboard.uid,
          title: dashboard.title,
          description: dashboard.description ?? '',
          file,
        }));
        return sendJson(response, 200, list);
      }
      if (parts.length === 3 && get) return sendJson(response, 200, find(parts[2]!).json);
      if (parts.length === 4 && parts[3] === 'data') {
        if (method !== 'POST') throw new HttpError(405, 'POST the time range and variables');
        const { dashboard } = find(parts[2]!);
        const asked = parseDataRequest(await readJson(request), now());
        const { selection, panelIds } = asked;
        const range = asked.fit ? fitToData(asked.range, await dataStartMs(run)) : asked.range;
        const data = await queryDashboard(dashboard, range, selection, run, panelIds);
        const intervals = Object.fromEntries(
          dashboard.panels.map((panel) => [panel.id, panelIntervalMs(panel, range)]),
        );
        return sendJson(response, 200, {
          range: { from: range.from.getTime(), to: range.to.getTime(), fitted: range !== asked.range },
          intervals,
          ...data,
        });
      }
    }
    throw new HttpError(get || method === 'POST' ? 404 : 405, `no route ${method} ${path}`);
  }

  return {
    async handle(request, response) {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const path = url.pathname;
      if (base !== '' && path !== base && !path.startsWith(`${base}/`)) return false;
      try {
        await route(request.method ?? 'GET', path.slice(base.length) || '/', request, response);
      } catch (err) {
        const status = err instanceof HttpError ? err.status : err instanceof BadDataRequest ? 400 : 500;
        if (!response.headersSent)
          sendJson(response, status, { error: err instanceof Error ? err.message : String(err) });
        else response.destroy();
      }
      return true;
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    throw new HttpError(400, 'the request body is not JSON');
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(text);
}

function sendHtml(response: ServerResponse, html: string): void {
  response.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    // The page runs only its own scripts, and talks only to this server.
    'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
  });
  response.end(html);
}
