import { NativeConnection, type Worker } from '@temporalio/worker';
import type { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import type { BucketShape } from '../src/api/rate-limit/token-bucket.ts';
import { DEFAULT_PNL_RETRY } from '../src/api/resources/portfolio.ts';
import { KafkaBus } from '../src/bus/kafka/index.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { MemoryCheckpointStore, type CheckpointStore } from '../src/sync/checkpoint.ts';
import { FileCheckpointStore } from '../src/sync/checkpoint-file.ts';
import { WarehouseCheckpointStore } from '../src/sync/checkpoint-warehouse.ts';
import { DEFAULT_TUNING, syncDeps, type SyncTuning } from '../src/sync/deps.ts';
import { createSyncVenue, syncLimiter } from '../src/sync/venue.ts';
import { createLogger } from '../src/util/log.ts';
import type { Secret } from '../src/util/secret.ts';
import type { ServerTarget } from '../src/warehouse/target.ts';
import { openServerWarehouse } from '../src/warehouse/warehouse.ts';
import { lockStateFile } from '../src/util/file-lock.ts';
import type { TemporalSettings } from './settings.ts';
import { createSyncWorker } from './worker.ts';

/** The longest Retry-After a read waits out inside an activity (six reads of it stay within half of the 10-minute
 * start-to-close). */
export const MAX_WAIT_IN_ACTIVITY_MS = 30_000;

export type CheckpointSetting =
  { kind: 'memory' } | { kind: 'file'; path: string } | { kind: 'clickhouse'; target: ServerTarget };

export interface WorkerProcessOptions {
  temporal: TemporalSettings;
  baseUrl: string;
  token: Secret;
  /** Label of the token's account (partition key and `account` of its records). */
  account: string;
  brokers: readonly string[];
  topicPrefix?: string;
  /** Replicas per partition of the bus topics (default: the broker's default). */
  replicationFactor?: number;
  /** How long Kafka keeps the topics' records (default: each topic's own). */
  retentionMs?: number;
  checkpoints: CheckpointSetting;
  /** The account's read bucket, when not the authenticated tier. */
  readBucket?: BucketShape;
  /** This process's share of the account's read budget (`tapehouse capture` reads the same account; the CLI defaults to
   * half). */
  readShare?: number;
  catalogueWithToken?: boolean;
  /** Items per page of every paged list (default: the interface's maxima). */
  pageSize?: number;
}

export interface WorkerProcess {
  worker: Worker;
  /** The account's read limiter of this process (its 429s, for /metrics). */
  limiter: RateLimiter;
  /** Settles when the worker has stopped (after `shutdown`, or on a fatal error). */
  running: Promise<void>;
  shutdown(): Promise<void>;
}

/** Everything a `tapehouse worker` process holds: venue clients, Kafka, checkpoints, the Temporal worker. */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const logger = createLogger('worker');
  const topics = createTopicCatalogue(options.topicPrefix);
  const bus = await KafkaBus.open({
    brokers: options.brokers,
    topics: topics.topics,
    replicationFactor: options.replicationFactor,
    retentionMs: options.retentionMs,
    log: logger,
  });
  const { store, close: closeStore } = openCheckpoints(options.checkpoints);
  if (options.checkpoints.kind === 'memory')
    logger.warn(
      'checkpoints in memory: a restarted worker resumes only a slice Temporal still retries; give --checkpoint-file or --clickhouse-url',
    );
  if (options.checkpoints.kind === 'file')
    lockStateFile(
      options.checkpoints.path,
      'worker checkpoint file',
      '--checkpoint-file or TAPEHOUSE_CHECKPOINT_FILE, or a shared --clickhouse-url',
    );
  const limiter = syncLimiter({ read: options.readBucket, readShare: options.readShare });
  const venue = createSyncVenue({
    baseUrl: options.baseUrl,
    token: options.token,
    limiter,
    // A longer wait goes back to Temporal as the next retry's delay (failure-mapping.ts), so a
    // slice never sits out a long Retry-After inside its start-to-close timeout.
    retry: { maxRetryAfterMs: MAX_WAIT_IN_ACTIVITY_MS },
    pnlRetry: { ...DEFAULT_PNL_RETRY, maxRetryAfterMs: MAX_WAIT_IN_ACTIVITY_MS },
    catalogueWithToken: options.catalogueWithToken,
    logger,
  });
  const deps = syncDeps({
    venue,
    bus,
    checkpoints: store,
    account: options.account,
    topics,
    logger,
    tuning: pageTuning(options.pageSize),
  });
  const connection = await NativeConnection.connect({ address: options.temporal.address });
  const worker = await createSyncWorker({
    connection,
    namespace: options.temporal.namespace,
    taskQueue: options.temporal.taskQueue,
    deps,
  });
  const running = worker.run().finally(async () => {
    await connection.close();
    await venue.close();
    await bus.close();
    await closeStore();
  });
  return {
    worker,
    limiter,
    running,
    async shutdown() {
      worker.shutdown();
      await running;
    },
  };
}

function pageTuning(size: number | undefined): Partial<SyncTuning> | undefined {
  if (size === undefined) return undefined;
  return {
    pageSize: {
      events: Math.min(size, DEFAULT_TUNING.pageSize.events),
      orders: size,
      openOrders: size,
      trades: size,
      activities: Math.min(size, DEFAULT_TUNING.pageSize.activities),
    },
  };
}

function openCheckpoints(setting: CheckpointSetting): { store: CheckpointStore; close: () => Promise<void> } {
  switch (setting.kind) {
    case 'memory':
      return { store: new MemoryCheckpointStore(), close: async () => undefined };
    case 'file':
      return { store: new FileCheckpointStore(setting.path), close: async () => undefined };
    case 'clickhouse': {
      const warehouse = openServerWarehouse(setting.target);
      return { store: new WarehouseCheckpointStore(warehouse), close: () => warehouse.close() };
    }
  }
}
