import { Worker, type NativeConnection } from '@temporalio/worker';
import type { SyncDeps } from '../src/sync/deps.ts';
import { packagePath } from '../src/util/package-root.ts';
import { createSyncActivities } from './activities.ts';

export const WORKFLOWS_PATH = packagePath('workflows/sync-workflows.ts');

export interface SyncWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: SyncDeps;
}

/**
 * A worker for the sync workflows and their activities. Heartbeats reach the server at least every
 * 2 s (the SDK would otherwise hold them back for up to 80 % of the heartbeat timeout), so a slice
 * retried after a crash starts close to where it stopped.
 */
export function createSyncWorker(options: SyncWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: createSyncActivities(options.deps),
    maxHeartbeatThrottleInterval: '2 seconds',
    // A stop cancels the slices under way (they honour it, publishes included); one that does not
    // end within this long is left to Temporal's retry, and the worker stops anyway.
    shutdownGraceTime: '5 seconds',
    shutdownForceTime: '30 seconds',
  });
}
