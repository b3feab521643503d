import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerFavicon, createDashboardsApp, type DashboardsAppOptions } from './app.ts';

export interface ServeDashboardsOptions extends DashboardsAppOptions {
  /** 0 (default) picks a free port. */
  port?: number;
}

export interface DashboardsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** The viewer on its own loopback port (the main job mounts createDashboardsApp on its own). */
export async function serveDashboards(options: ServeDashboardsOptions): Promise<DashboardsServer> {
  const app = createDashboardsApp(options);
  const server = createServer((request, response) => {
    if (answerFavicon((request.url ?? '/').split('?')[0]!, response)) return;
    void app.handle(request, response).then((handled) => {
      if (!handled) {
        response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('not found\n');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  return {
    url: `http://127.0.0.1:${port}${base}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
