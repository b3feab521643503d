/**
 * The sync jobs: REST resources paged into the bus on a schedule, by the embedded scheduler or by
 * Temporal (workflows/). See README.md in this folder.
 */
export { JOB_NAMES, SYNC_JOBS, isJobName, parseJobList, type JobName, type SyncJob } from './jobs.ts';
export {
  runSyncJob,
  jobScope,
  NotBackfillable,
  type JobReport,
  type JobOutcome,
  type RunJobOptions,
} from './run-job.ts';
export { startEmbeddedScheduler, type EmbeddedScheduler, type EmbeddedSchedulerOptions } from './embedded-scheduler.ts';
export { syncDeps, DEFAULT_TUNING, type SyncDeps, type SyncDepsOptions, type SyncTuning } from './deps.ts';
export { createSyncVenue, type SyncVenue, type SyncVenueOptions } from './venue.ts';
export {
  MemoryCheckpointStore,
  positionOf,
  resumeFrom,
  type Checkpoint,
  type CheckpointPosition,
  type CheckpointStore,
  type CheckpointStatus,
  type Unavailability,
} from './checkpoint.ts';
export { FileCheckpointStore } from './checkpoint-file.ts';
export { WarehouseCheckpointStore } from './checkpoint-warehouse.ts';
export { classifyFailure, type FailureDecision } from './failure.ts';
export { PublishedMemory } from './publisher.ts';
export { observationKey } from './records.ts';
export type { TimeWindow } from './jobs/options.ts';
