import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../util/log.ts';
import type { PipelineFigures } from './figures.ts';
import { PipelineMetrics, type MetricsPart } from './metrics.ts';

export interface MetricsEndpoint {
  readonly metrics: PipelineMetrics;
  readonly url: string;
  /** Where the figures come from, read at every scrape (set once the part has started). */
  feed(source: () => Promise<Partial<PipelineFigures>> | Partial<PipelineFigures>): void;
  close(): Promise<void>;
}

/**
 * `/metrics` of a scale-out process (`capture`, `load`, `worker`) on a port of its own. The figures
 * are read when Prometheus scrapes, so they are as fresh as the scrape and cost nothing between.
 */
export async function serveMetrics(options: {
  port: number;
  host: string;
  parts: readonly MetricsPart[];
  log: Logger;
}): Promise<MetricsEndpoint> {
  const metrics = new PipelineMetrics(options.parts);
  let source: (() => Promise<Partial<PipelineFigures>> | Partial<PipelineFigures>) | undefined;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    void (async () => {
      try {
        if (source) metrics.update(await source());
      } catch (err) {
        // A figure that cannot be read now (Kafka briefly away): the last values are served.
        options.log.warn({ err }, 'figures for /metrics not read; serving the last ones');
      }
      response.writeHead(200, { 'content-type': metrics.contentType }).end(await metrics.text());
    })().catch(() => response.destroy());
  });
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(options.port, options.host, ok));
  // Metrics never keep a process alive: one that fails to start still exits.
  server.unref();
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    metrics,
    url: `http://${host}:${port}/metrics`,
    feed(next) {
      source = next;
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
