/**
 * What a worker and the schedules need to know of Temporal, as the CLI's settings table resolved
 * it (`--temporal-address`, `--namespace`, `--task-queue` and their variables, with their
 * defaults there). Light on purpose: the CLI reads it without loading the Temporal SDK.
 */

/** Schedule and workflow ids start with it; another prefix keeps deployments (or test runs) apart. */
export const DEFAULT_SCHEDULE_PREFIX = 'tapehouse-sync-';

/** Where the Temporal server is and which queue the sync workflows use. */
export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}
