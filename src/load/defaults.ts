import type { BatchLimits } from './batching/partition-batcher.ts';

/** The loaders' defaults, in a module that imports no code: `tapehouse load --help` shows them without loading the loaders. */
// 50,000 rows: a backlog goes in fifth as many parts as at 10,000, and the engine's merges of them
// cost a fifth (bench/load.ts: merge threads 590-650 → 150-180 ms of CPU per 360,000 rows, the
// loader 0.5 → 0.65-0.7 of the engine). A live stream is cut by the 1 s bound long before.
export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxRows: 50_000, maxBytes: 32 * 1024 * 1024, maxDelayMs: 1_000 };
