import type { Command } from 'commander';
import { readAccessToken } from '../../api/token.ts';
import { resolveTemporal, type TemporalOptions } from '../../../workflows/settings.ts';
import type { CheckpointSetting } from '../../../workflows/worker-process.ts';
import { READ_SHARE_FLAG, readShare, readShareHelp } from '../read-share.ts';
import { createLogger } from '../../util/log.ts';
import { metricsNote, serveMetricsIfAsked } from '../metrics-option.ts';
import { addSettings, refusePlainToken, resolveSettings } from '../settings.ts';

interface WorkerOptions extends TemporalOptions {
  kafkaBrokers?: string;
  topicPrefix?: string;
  baseUrl?: string;
  tokenFile?: string;
  account?: string;
  checkpointFile?: string;
  clickhouseUrl?: string;
  readBurst?: string;
  readRefill?: string;
  readShare?: string;
  catalogueWithToken?: boolean;
  pageSize?: string;
}

/**
 * `tapehouse worker`: a Temporal worker running the sync workflows and their activities against
 * the venue, publishing to Kafka. Its first stdout line says it is ready; it stops on SIGINT or
 * SIGTERM after the slices under way.
 */
export function registerWorker(program: Command): void {
  addSettings(refusePlainToken(program.command('worker')), ['replicationFactor', 'metricsPort', 'metricsHost'])
    .description('run a Temporal worker for the sync jobs (venue → Kafka)')
    .option('--temporal-address <host:port>', 'Temporal frontend (TAPEHOUSE_TEMPORAL_ADDRESS, default 127.0.0.1:7233)')
    .option('--namespace <name>', 'Temporal namespace (TAPEHOUSE_TEMPORAL_NAMESPACE, default "default")')
    .option('--task-queue <name>', 'task queue (TAPEHOUSE_TASK_QUEUE, default tapehouse-sync)')
    .option('--kafka-brokers <list>', 'comma-separated brokers (TAPEHOUSE_KAFKA_BROKERS, default 127.0.0.1:9092)')
    .option('--topic-prefix <prefix>', 'bus topic prefix (TAPEHOUSE_TOPIC_PREFIX, default tapehouse)')
    .option('--base-url <url>', 'the venue (TAPEHOUSE_BASE_URL)')
    .option('--token-file <file>', 'file holding the access token (TAPEHOUSE_TOKEN_FILE, else TAPEHOUSE_TOKEN)')
    .option('--account <label>', 'label of the token\'s account in the records (TAPEHOUSE_ACCOUNT, default "default")')
    .option(
      '--checkpoint-file <file>',
      `keep checkpoints in this JSON file, one per process (TAPEHOUSE_CHECKPOINT_FILE, default ${DEFAULT_CHECKPOINT_FILE})`,
    )
    .option('--clickhouse-url <url>', "keep checkpoints in the warehouse's sync_checkpoints (TAPEHOUSE_CLICKHOUSE_URL)")
    .option(
      '--read-burst <n>',
      "the account read bucket's capacity, when not the authenticated tier (TAPEHOUSE_READ_BURST)",
    )
    .option('--read-refill <n>', 'its refill per second (TAPEHOUSE_READ_REFILL)')
    .option(READ_SHARE_FLAG, readShareHelp)
    .option('--catalogue-with-token', 'send the token on catalogue reads too (they then spend the account bucket)')
    .option('--page-size <n>', "items per page of the paged lists (default: the interface's maxima)")
    .action(async (options: WorkerOptions) => {
      const env = process.env;
      const temporal = resolveTemporal(options);
      const baseUrl = options.baseUrl ?? env.TAPEHOUSE_BASE_URL;
      // Capture reads the same account: keep to our share of its read budget.
      const share = readShare(options.readShare);
      if (!baseUrl) throw new Error('give the venue with --base-url or TAPEHOUSE_BASE_URL');
      const served = await serveMetricsIfAsked(
        resolveSettings(['metricsPort', 'metricsHost'], { ...options }),
        ['sync'],
        createLogger('worker'),
      );
      // Loaded here: the Temporal worker's native module is not needed by the other commands.
      const { startWorkerProcess } = await import('../../../workflows/worker-process.ts');
      const processHandle = await startWorkerProcess({
        temporal,
        baseUrl,
        token: await readAccessToken({ tokenFile: options.tokenFile ?? env.TAPEHOUSE_TOKEN_FILE }),
        account: options.account ?? env.TAPEHOUSE_ACCOUNT ?? 'default',
        brokers: (options.kafkaBrokers ?? env.TAPEHOUSE_KAFKA_BROKERS ?? '127.0.0.1:9092')
          .split(',')
          .map((b) => b.trim()),
        topicPrefix: options.topicPrefix ?? env.TAPEHOUSE_TOPIC_PREFIX,
        replicationFactor: resolveSettings(['replicationFactor'], options as Record<string, unknown>).replicationFactor,
        checkpoints: checkpointSetting(
          options.checkpointFile ?? env.TAPEHOUSE_CHECKPOINT_FILE,
          options.clickhouseUrl ?? env.TAPEHOUSE_CLICKHOUSE_URL,
        ),
        readBucket: readBucket(
          options.readBurst ?? env.TAPEHOUSE_READ_BURST,
          options.readRefill ?? env.TAPEHOUSE_READ_REFILL,
        ),
        readShare: share,
        catalogueWithToken: options.catalogueWithToken,
        pageSize: options.pageSize === undefined ? undefined : positiveInteger(options.pageSize, '--page-size'),
      });
      served?.feed(() => ({ http429: { sync: processHandle.limiter.stats().refused } }));
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

function checkpointSetting(file: string | undefined, clickhouseUrl: string | undefined): CheckpointSetting {
  if (file && clickhouseUrl) throw new Error('give either --checkpoint-file or --clickhouse-url, not both');
  if (file) return { kind: 'file', path: file };
  if (clickhouseUrl) return { kind: 'clickhouse', url: clickhouseUrl };
  // Durable by default: a restarted worker resumes its passes instead of publishing its history again.
  return { kind: 'file', path: DEFAULT_CHECKPOINT_FILE };
}

const DEFAULT_CHECKPOINT_FILE = '.tapehouse/worker-checkpoints.json';

function readBucket(
  burst: string | undefined,
  refill: string | undefined,
): { capacity: number; refillPerSecond: number } | undefined {
  if (burst === undefined && refill === undefined) return undefined;
  const capacity = Number(burst);
  const refillPerSecond = Number(refill);
  if (!(capacity > 0) || !(refillPerSecond > 0))
    throw new Error('--read-burst and --read-refill go together, both positive numbers');
  return { capacity, refillPerSecond };
}

function positiveInteger(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, got ${text}`);
  return n;
}
