import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { isJobName, parseJobList, type JobName } from '../../sync/job-names.ts';
import { parseDuration } from '../../util/duration.ts';
import { createLogger } from '../../util/log.ts';
import { DEFAULT_SCHEDULE_PREFIX } from '../../../workflows/settings.ts';
import { addSettings, resolveSettings, SettingError, type SettingName } from '../settings.ts';
import { connectWhenReady } from '../temporal-ready.ts';

const TEMPORAL_SETTINGS = [
  'temporalAddress',
  'temporalNamespace',
  'taskQueue',
] as const satisfies readonly SettingName[];

interface CommonOptions {
  jobs?: string;
  idPrefix: string;
  [setting: string]: unknown;
}

/**
 * `tapehouse schedules apply|backfill|list`: one Temporal Schedule per sync job (created or
 * updated, overlap skip), a backfill of a past window, and what exists.
 */
export function registerSchedules(program: Command): void {
  const schedules = program.command('schedules').description('Temporal Schedules of the sync jobs');
  const common = (command: Command): Command =>
    addSettings(command, TEMPORAL_SETTINGS)
      .option('--jobs <list>', 'comma-separated jobs (default: all)')
      .option('--id-prefix <prefix>', 'schedule and workflow ids start with it', DEFAULT_SCHEDULE_PREFIX);

  common(schedules.command('apply'))
    .description('create or update one schedule per job (idempotent)')
    // A first `docker compose up` starts it while Temporal still sets up: it waits, within bounds.
    .option(
      '--wait-for-temporal <duration>',
      'wait this long for Temporal (and the namespace) to answer, trying again and saying so (0s: one attempt)',
      '5m',
    )
    .option('--interval <job=duration...>', "a job's interval, e.g. positions=15s (repeatable)", collect, [])
    .option('--paused', 'pause them all (otherwise new ones run, and existing ones keep their paused state)')
    .action(async (options: CommonOptions & { interval: string[]; paused?: boolean; waitForTemporal: string }) => {
      // Every flag is checked before Temporal is waited for: a typo is a usage error at once.
      const jobs = parseJobList(options.jobs);
      const intervals = parseIntervals(options.interval);
      await withClient(
        options,
        durationOf(options.waitForTemporal, '--wait-for-temporal'),
        async (client, taskQueue) => {
          const { applySchedules } = await import('../../../workflows/schedules.ts');
          const applied = await applySchedules(client, {
            taskQueue,
            jobs,
            intervals,
            idPrefix: options.idPrefix,
            paused: options.paused,
          });
          for (const s of applied) {
            if (s.action === 'deleted') process.stdout.write(`deleted ${s.scheduleId}: no such job any more\n`);
            else
              process.stdout.write(
                `${s.action} ${s.scheduleId} every ${s.intervalMs / 1000}s (overlap skip)${s.paused ? ', paused' : ''}\n`,
              );
          }
        },
      );
    });

  common(schedules.command('backfill'))
    .description('read a past window again, for the jobs whose resource allows it')
    .requiredOption('--from <time>', 'start of the window (ISO 8601)')
    .requiredOption('--to <time>', 'end of the window (ISO 8601)')
    .option('--wait', 'wait for the backfills to finish')
    .action(async (options: CommonOptions & { from: string; to: string; wait?: boolean }) => {
      await withClient(options, 0, async (client, taskQueue) => {
        const { startBackfill } = await import('../../../workflows/schedules.ts');
        const { started, skipped } = await startBackfill(client, {
          taskQueue,
          jobs: parseJobList(options.jobs),
          from: isoDate(options.from, '--from'),
          to: isoDate(options.to, '--to'),
          idPrefix: options.idPrefix,
        });
        for (const job of skipped) process.stdout.write(`skipped ${job}: its resource only tells the present\n`);
        for (const b of started) process.stdout.write(`${b.state} ${b.workflowId}\n`);
        if (!options.wait) return;
        for (const b of started) {
          const result = await b.handle.result();
          process.stdout.write(
            `${b.job}: ${result.outcome}, ${result.pages} pages read, ${result.records} records published (the window's items, again: the loaders keep one row per natural key)\n`,
          );
        }
      });
    });

  common(schedules.command('list'))
    .description('the schedules under the id prefix')
    .action(async (options: CommonOptions) => {
      await withClient(options, 0, async (client) => {
        const { listSchedules } = await import('../../../workflows/schedules.ts');
        for (const id of await listSchedules(client, options.idPrefix)) process.stdout.write(`${id}\n`);
      });
    });
}

async function withClient(
  options: CommonOptions,
  waitForMs: number,
  body: (client: Client, taskQueue: string) => Promise<void>,
): Promise<void> {
  const {
    temporalAddress: address,
    temporalNamespace: namespace,
    taskQueue,
  } = resolveSettings(TEMPORAL_SETTINGS, options);
  // Loaded here, so commands that do not talk to Temporal do not pay for its client.
  const { Client } = await import('@temporalio/client');
  const log = createLogger('schedules');
  const connection = await connectWhenReady({ address, namespace, waitMs: waitForMs, log });
  try {
    await body(new Client({ connection, namespace }), taskQueue);
  } finally {
    await connection.close();
  }
}

/** A duration of this command's flags (with its unit: a bare number is refused), as a usage error when bad. */
function durationOf(text: string, setting: string): number {
  try {
    return parseDuration(text);
  } catch (err) {
    throw new SettingError(`${setting}: ${JSON.stringify(text)} ${(err as Error).message}`);
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseIntervals(pairs: readonly string[]): Partial<Record<JobName, number>> {
  const intervals: Partial<Record<JobName, number>> = {};
  for (const pair of pairs) {
    const [job, duration] = pair.split('=');
    if (!job || !duration || !isJobName(job))
      throw new SettingError(`--interval takes job=duration with a known job, got ${pair}`);
    const ms = durationOf(duration, `--interval ${job}`);
    if (ms < 1_000) throw new SettingError(`--interval ${pair}: Temporal schedules run at most once a second`);
    intervals[job] = ms;
  }
  return intervals;
}

function isoDate(text: string, flag: string): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new SettingError(`${flag} is not a time: ${text}`);
  return date;
}
