import type { Command } from 'commander';
import type { CheckpointSetting } from '../../../workflows/worker-process.ts';
import { createLogger } from '../../util/log.ts';
import { metricsNote, serveMetricsIfAsked } from '../metrics-option.ts';
import {
  addSettings,
  DEFAULT_CHECKPOINT_FILE,
  refusePlainToken,
  resolveSettings,
  SettingError,
  type Resolved,
  type SettingName,
} from '../settings.ts';
import { SERVER_SETTINGS, serverTarget } from '../warehouse-option.ts';

const WORKER_SETTINGS = [
  'temporalAddress',
  'temporalNamespace',
  'taskQueue',
  'baseUrl',
  'tokenFile',
  'token',
  'account',
  'readShare',
  'readBurst',
  'readRefill',
  'kafkaBrokers',
  'topicPrefix',
  'replicationFactor',
  'busRetention',
  'checkpointFile',
  ...SERVER_SETTINGS,
  'metricsPort',
  'metricsHost',
] as const satisfies readonly SettingName[];

interface WorkerOptions {
  catalogueWithToken?: boolean;
  pageSize?: string;
  [setting: string]: unknown;
}

/**
 * `tapehouse worker`: a Temporal worker running the sync workflows and their activities against
 * the venue, publishing to Kafka. Its first stdout line says it is ready; it stops on SIGINT or
 * SIGTERM after the slices under way.
 */
export function registerWorker(program: Command): void {
  const command = program.command('worker').description('run a Temporal worker for the sync jobs (venue → Kafka)');
  addSettings(refusePlainToken(command), WORKER_SETTINGS)
    .option('--catalogue-with-token', 'send the token on catalogue reads too (they then spend the account bucket)')
    .option('--page-size <n>', "items per page of the paged lists (default: the interface's maxima)")
    .action(async (options: WorkerOptions) => {
      const { readAccessToken } = await import('../../api/token.ts');
      const settings = resolveSettings(WORKER_SETTINGS, options, { either: [['checkpointFile', 'clickhouseUrl']] });
      if (!settings.baseUrl)
        throw new SettingError('--base-url (TAPEHOUSE_BASE_URL): the venue the sync jobs read is required');
      const pageSize = options.pageSize === undefined ? undefined : positiveInteger(options.pageSize, '--page-size');
      const readBucket = readBucketOf(settings);
      const token = await readAccessToken({ tokenFile: settings.tokenFile, token: settings.token });
      const served = await serveMetricsIfAsked(settings, ['sync', 'jobs'], createLogger('worker'));
      // Loaded here: the Temporal worker's native module is not needed by the other commands.
      const { startWorkerProcess } = await import('../../../workflows/worker-process.ts');
      const { wireFigures } = await import('../../run/figures.ts');
      const { syncJobFigures } = await import('../../../workflows/job-figures.ts');
      const temporal = {
        address: settings.temporalAddress,
        namespace: settings.temporalNamespace,
        taskQueue: settings.taskQueue,
      };
      const processHandle = await startWorkerProcess({
        temporal,
        baseUrl: settings.baseUrl,
        token,
        account: settings.account,
        brokers: settings.kafkaBrokers,
        topicPrefix: settings.topicPrefix,
        replicationFactor: settings.replicationFactor,
        retentionMs: settings.busRetention,
        checkpoints: checkpointsOf(settings),
        readBucket,
        // Capture reads the same account: keep to our share of its read budget.
        readShare: settings.readShare,
        catalogueWithToken: options.catalogueWithToken,
        pageSize,
      });
      served?.feed(() => ({
        http429: { sync: processHandle.limiter.stats().refused },
        ...wireFigures(),
        syncJobs: syncJobFigures(),
      }));
      process.stdout.write(
        `worker ready on task queue ${temporal.taskQueue} (namespace ${temporal.namespace}, ${temporal.address})${metricsNote(served)}\n`,
      );
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        void processHandle.shutdown();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      await processHandle.running;
      await served?.close();
    });
}

type WorkerSettings = Resolved<(typeof WORKER_SETTINGS)[number]>;

/** A file by default, so that a restarted worker resumes its passes instead of publishing its history again. */
function checkpointsOf(settings: WorkerSettings): CheckpointSetting {
  const { clickhouseUrl } = settings;
  if (clickhouseUrl !== undefined) return { kind: 'clickhouse', target: serverTarget({ ...settings, clickhouseUrl }) };
  return { kind: 'file', path: settings.checkpointFile ?? DEFAULT_CHECKPOINT_FILE };
}

function readBucketOf(settings: WorkerSettings): { capacity: number; refillPerSecond: number } | undefined {
  const { readBurst, readRefill } = settings;
  if (readBurst === undefined && readRefill === undefined) return undefined;
  if (readBurst === undefined || readRefill === undefined)
    throw new SettingError('--read-burst (TAPEHOUSE_READ_BURST) and --read-refill (TAPEHOUSE_READ_REFILL) go together');
  return { capacity: readBurst, refillPerSecond: readRefill };
}

function positiveInteger(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new SettingError(`${flag}: ${JSON.stringify(text)} is not a whole number above 0`);
  return n;
}
