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
