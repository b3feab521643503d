export { startLoaders, DEFAULT_BATCH_LIMITS, type LoaderOptions, type Loaders, type LoaderStats, type StopOptions } from './loader.ts';
export type { BatchLimits } from './batching/partition-batcher.ts';
