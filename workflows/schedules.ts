import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { isJobName, SYNC_JOBS, type JobName } from '../src/sync/jobs.ts';
import { DEFAULT_SCHEDULE_PREFIX } from './settings.ts';
import type { syncJobWorkflow } from './sync-workflows.ts';
import type { SyncWorkflowInput } from './types.ts';

const WORKFLOW_TYPE = 'syncJobWorkflow';
/** A worker back within this long still runs the action it missed; later ones wait for the next interval. */
const CATCHUP_WINDOW_MS = 60_000;
/** Each action starts up to this share of the interval late, at random: jobs of one interval do not all fire at the
 * same instant. */
const JITTER_SHARE = 0.2;
const MAX_JITTER_MS = 60_000;

export interface ScheduleSettings {
  taskQueue: string;
  jobs: readonly JobName[];
  /** Overrides of the jobs' default intervals (ms). */
  intervals?: Partial<Record<JobName, number>>;
  /** Schedule and workflow ids start with it (default `tapehouse-sync-`): one set per deployment. */
  idPrefix?: string;
  /** Pause them all. Otherwise a new schedule runs, and an existing one keeps the state an operator gave it. */
  paused?: boolean;
  /** Extra workflow input (slice size, activity timeouts). */
  workflow?: Omit<SyncWorkflowInput, 'job' | 'window' | 'totals'>;
}

export interface AppliedSchedule {
  job: JobName;
  scheduleId: string;
  intervalMs: number;
  action: 'created' | 'updated' | 'deleted';
  /** Whether it is paused once applied. */
  paused: boolean;
}

/**
 * One Temporal Schedule per job, started every interval with overlap SKIP (a run still going
 * when the next is due makes that next one skip) and a jitter, so jobs of one interval do not
 * all hit the venue at the same instant. Idempotent: a schedule that exists is updated to the
 * settings — keeping its paused state, an operator's decision, unless `paused` is given —, so
 * applying twice leaves one schedule per job. Schedules under the prefix whose job no longer
 * exists (a job dropped by a newer version) are deleted: they would start workflows no worker
 * can run.
 */
export async function applySchedules(client: Client, settings: ScheduleSettings): Promise<AppliedSchedule[]> {
  const prefix = settings.idPrefix ?? DEFAULT_SCHEDULE_PREFIX;
  const applied: AppliedSchedule[] = [];
  for (const scheduleId of await listSchedules(client, prefix)) {
    const job = scheduleId.slice(prefix.length);
    if (isJobName(job)) continue;
    await client.schedule.getHandle(scheduleId).delete();
    applied.push({ job: job as JobName, scheduleId, intervalMs: 0, action: 'deleted', paused: false });
  }
  for (const job of settings.jobs) {
    const scheduleId = `${prefix}${job}`;
    const intervalMs = settings.intervals?.[job] ?? SYNC_JOBS[job].intervalMs;
    const definition = {
      spec: {
        intervals: [{ every: intervalMs }],
        jitter: Math.min(MAX_JITTER_MS, Math.round(intervalMs * JITTER_SHARE)),
      },
      action: {
        type: 'startWorkflow' as const,
        workflowType: WORKFLOW_TYPE,
        taskQueue: settings.taskQueue,
        workflowId: scheduleId,
        args: [{ ...settings.workflow, job } satisfies SyncWorkflowInput] as [SyncWorkflowInput],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW_MS, pauseOnFailure: false },
      state: { paused: settings.paused ?? false, note: `tapehouse sync job ${job}` },
    };
    let paused = settings.paused ?? false;
    const update = async (): Promise<void> =>
      client.schedule.getHandle(scheduleId).update((previous) => {
        paused = settings.paused ?? previous.state.paused;
        return { ...definition, state: { ...definition.state, paused } };
      });
    try {
      await update();
      applied.push({ job, scheduleId, intervalMs, action: 'updated', paused });
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
      try {
        await client.schedule.create({ scheduleId, ...definition });
        applied.push({ job, scheduleId, intervalMs, action: 'created', paused });
      } catch (raced) {
        // Someone created it between our two calls: apply over theirs.
        if (!(raced instanceof ScheduleAlreadyRunning)) throw raced;
        await update();
        applied.push({ job, scheduleId, intervalMs, action: 'updated', paused });
      }
    }
  }
  return applied;
}

export interface BackfillSettings {
  taskQueue: string;
  jobs: readonly JobName[];
  from: Date;
  to: Date;
  idPrefix?: string;
  workflow?: Omit<SyncWorkflowInput, 'job' | 'window' | 'totals'>;
}

export interface StartedBackfill {
  job: JobName;
  workflowId: string;
  /** `already started`: a backfill of the same job and window is running under that id. */
  state: 'started' | 'already started';
  handle: WorkflowHandle<typeof syncJobWorkflow>;
}

/**
 * Reads a past window again for the jobs whose resource allows it (orders, fills, activities: the
 * items carry their time), one workflow per job, each with its own checkpoint. Temporal's own
 * schedule backfill is not used: it would replay every interval of the window, and every one
 * would read the venue's present, not the window. Jobs that only tell the present are left out.
 */
export async function startBackfill(
  client: Client,
  settings: BackfillSettings,
): Promise<{ started: StartedBackfill[]; skipped: JobName[] }> {
  if (!(settings.from.getTime() < settings.to.getTime())) throw new Error('--from must be before --to');
  const prefix = settings.idPrefix ?? DEFAULT_SCHEDULE_PREFIX;
  const window = { from: settings.from.toISOString(), to: settings.to.toISOString() };
  const started: StartedBackfill[] = [];
  const skipped = settings.jobs.filter((job) => !SYNC_JOBS[job].backfill);
  for (const job of settings.jobs.filter((name) => SYNC_JOBS[name].backfill)) {
    const workflowId = `${prefix}backfill-${job}-${window.from}-${window.to}`;
    try {
      const handle = await client.workflow.start<typeof syncJobWorkflow>(WORKFLOW_TYPE, {
        taskQueue: settings.taskQueue,
        workflowId,
        args: [{ ...settings.workflow, job, window }],
      });
      started.push({ job, workflowId, state: 'started', handle });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      started.push({ job, workflowId, state: 'already started', handle: client.workflow.getHandle(workflowId) });
    }
  }
  return { started, skipped };
}

/** The schedules whose id starts with the prefix (listing is eventually consistent). */
export async function listSchedules(client: Client, idPrefix = DEFAULT_SCHEDULE_PREFIX): Promise<string[]> {
  const ids: string[] = [];
  for await (const summary of client.schedule.list())
    if (summary.scheduleId.startsWith(idPrefix)) ids.push(summary.scheduleId);
  return ids.sort();
}
