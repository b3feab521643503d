import type { MetricsPart } from '../run/metrics.ts';
import type { MetricsEndpoint } from '../run/metrics-server.ts';
import type { Logger } from '../util/log.ts';

/** `--metrics-port` (and `--metrics-host`) as resolved: /metrics is served only when a port is given. */
export async function serveMetricsIfAsked(
  settings: { metricsPort?: number; metricsHost: string },
  parts: readonly MetricsPart[],
  log: Logger,
): Promise<MetricsEndpoint | null> {
  if (settings.metricsPort === undefined) return null;
  // Loaded here: prom-client is not needed by a process that serves no metrics.
  const { serveMetrics } = await import('../run/metrics-server.ts');
  const served = await serveMetrics({ port: settings.metricsPort, host: settings.metricsHost, parts, log });
  log.info({ url: served.url }, 'serving /metrics');
  return served;
}

/** The tail of a process's ready line: where its metrics are, if served. */
export function metricsNote(served: MetricsEndpoint | null): string {
  return served ? `; metrics at ${served.url}` : '';
}
