export {
  startLoaders,
  DEFAULT_BATCH_LIMITS,
  type LoaderOptions,
  type Loaders,
  type LoaderStats,
  type StopOptions,
  type StoredBatch,
} from './loader.ts';
export type { BatchLimits } from './batching/partition-batcher.ts';
