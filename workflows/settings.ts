/** Light on purpose: the CLI reads it without loading the Temporal SDK. */

export const DEFAULT_TASK_QUEUE = 'tapehouse-sync';
/** Schedule and workflow ids start with it; another prefix keeps deployments (or test runs) apart. */
export const DEFAULT_SCHEDULE_PREFIX = 'tapehouse-sync-';

/** Where the Temporal server is and which queue the sync workflows use. */
export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

export interface TemporalOptions {
  temporalAddress?: string;
  namespace?: string;
  taskQueue?: string;
}

/** Command-line options first, then TAPEHOUSE_TEMPORAL_ADDRESS, TAPEHOUSE_TEMPORAL_NAMESPACE, TAPEHOUSE_TASK_QUEUE,
 * then defaults. */
export function resolveTemporal(options: TemporalOptions, env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  return {
    address: options.temporalAddress ?? env.TAPEHOUSE_TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    namespace: options.namespace ?? env.TAPEHOUSE_TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: options.taskQueue ?? env.TAPEHOUSE_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `250ms`, `30s`, `5m`, `1h`, or a number of milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: ${text} (examples: 30s, 5m, 1h, 1500ms)`);
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}
