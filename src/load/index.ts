export {
  startLoaders,
  DEFAULT_BATCH_LIMITS,
  type LoaderOptions,
  type Loaders,
  type LoaderStats,
  type LoaderStopOutcome,
  type StopOptions,
  type StoredBatch,
} from './loader.ts';
export type { BatchLimits } from './batching/partition-batcher.ts';
export { bindGroupToWarehouse, defaultLoaderGroup, GroupBindingError, type GroupBinding } from './group-binding.ts';
