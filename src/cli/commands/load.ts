import type { Command } from 'commander';
import type { KafkaBus as Bus } from '../../bus/kafka/index.ts';
import { DEFAULT_REBALANCE_TIMEOUT_MS } from '../../bus/kafka/defaults.ts';
import type { RecordKind } from '../../bus/record.ts';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { TopicCatalogue } from '../../bus/topics.ts';
import { DEFAULT_BATCH_LIMITS } from '../../load/defaults.ts';
import type { Loaders, LoaderStopOutcome } from '../../load/index.ts';
import { createLogger } from '../../util/log.ts';
import type { EmbeddedEndpoint } from '../../warehouse/endpoint/index.ts';
import { parseDuration } from '../../util/duration.ts';
import { describeTarget, type WarehouseTarget } from '../../warehouse/target.ts';
import type { EmbeddedWarehouse, Warehouse } from '../../warehouse/warehouse.ts';
import type { MetricsEndpoint } from '../../run/metrics-server.ts';
import { metricsNote, serveMetricsIfAsked } from '../metrics-option.ts';
import { addSettings, resolveSettings, SettingError, type SettingName } from '../settings.ts';
import { warehouseTarget, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

interface LoadOptions {
  kinds?: string;
  batchRows?: string;
  batchMs?: string;
  sessionTimeout?: string;
  rebalanceTimeout?: string;
  statsEvery?: string;
  httpPort?: string;
  migrate: boolean;
  [setting: string]: unknown;
}

const LOAD_SETTINGS = [
  'kafkaBrokers',
  'topicPrefix',
  'replicationFactor',
  'busRetention',
  'loaderGroup',
  ...WAREHOUSE_SETTINGS,
  'metricsPort',
  'metricsHost',
] as const satisfies readonly SettingName[];

/**
 * `tapehouse load`: the loaders on their own (scale-out): Kafka → ClickHouse, exactly once, as
 * one member of a consumer group (run several for more throughput; they share the partitions).
 * Prints one line when loading, stops cleanly on SIGINT or SIGTERM (stores and commits what it
 * holds). On chDB it serves the data directory read-only on a loopback port meanwhile.
 */
export function registerLoad(program: Command): void {
  const command = program
    .command('load')
    .description('load the bus (Kafka) into ClickHouse, exactly once, as one member of a consumer group');
  addSettings(command, LOAD_SETTINGS);
  command
    .option('--kinds <list>', 'record kinds to load, comma-separated (default: all)')
    .option('--batch-rows <n>', `cut a batch at this many rows (default ${DEFAULT_BATCH_LIMITS.maxRows})`)
    .option(
      '--batch-ms <n>',
      `cut a batch once its first record waited this long (default ${DEFAULT_BATCH_LIMITS.maxDelayMs})`,
    )
    .option(
      '--session-timeout <duration>',
      `a loader silent this long leaves the group and its partitions go to the others (default 30s)`,
    )
    .option(
      '--rebalance-timeout <duration>',
      `how long a rebalance waits for every loader of the group to rejoin (default ${DEFAULT_REBALANCE_TIMEOUT_MS / 1000}s)`,
    )
    .option('--http-port <n>', 'chDB only: loopback port of the read-only query endpoint (default: any free port)')
    .option('--stats-every <duration>', "log the loaders' figures this often (0s: never; default 10s)")
    .option('--no-migrate', 'do not apply pending migrations first')
    .action(async (options: LoadOptions) => {
      const { KafkaBus } = await import('../../bus/kafka/index.ts');
      const { createTopicCatalogue } = await import('../../bus/topics.ts');
      const { bindGroupToWarehouse, defaultLoaderGroup, startLoaders } = await import('../../load/index.ts');
      const { pendingRederives } = await import('../../load/rederive/index.ts');
      const { loadFigures } = await import('../../run/figures.ts');
      const { serveEmbeddedEndpoint } = await import('../../warehouse/endpoint/index.ts');
      const { migrateWarehouse } = await import('../../warehouse/schema/index.ts');
      const { openWarehouse } = await import('../../warehouse/warehouse.ts');
      const settings = resolveSettings(LOAD_SETTINGS, options, { either: [['dataDir', 'clickhouseUrl']] });
      const target = warehouseTarget(settings);
      const catalogue = createTopicCatalogue(settings.topicPrefix);
      const { isRecordKind } = await import('../../bus/record.ts');
      const topics = topicsOf(catalogue, options.kinds, isRecordKind);
      const group = settings.loaderGroup ?? defaultLoaderGroup(settings.topicPrefix);
      // Not given: the bus's own (30 s) and DEFAULT_REBALANCE_TIMEOUT_MS.
      const sessionTimeoutMs = duration(options.sessionTimeout, '--session-timeout');
      const rebalanceTimeoutMs = duration(options.rebalanceTimeout, '--rebalance-timeout');
      const statsEveryMs = duration(options.statsEvery, '--stats-every', true) ?? 10_000;
      const batch = {
        maxRows: positive(options.batchRows, '--batch-rows') ?? DEFAULT_BATCH_LIMITS.maxRows,
        maxDelayMs: positive(options.batchMs, '--batch-ms') ?? DEFAULT_BATCH_LIMITS.maxDelayMs,
      };
      const log = createLogger('load');
      // Listening from the start: a stop asked for while starting is honoured once started.
      const stopRequested = signalled();

      const warehouse = await openWarehouse(target);
      let bus: Bus | undefined;
      let endpoint: EmbeddedEndpoint | undefined;
      let loaders: Loaders | undefined;
      let served: MetricsEndpoint | null = null;
      let failure: Error | undefined;
      try {
        served = await serveMetricsIfAsked(settings, target.kind === 'chdb' ? ['load', 'endpoint'] : ['load'], log);
        if (options.migrate) await migrateWarehouse(warehouse);
        // Loaders of a group may be several: re-deriving is left to `tapehouse rederive`, run with them stopped.
        const pending = await pendingRederives(warehouse.client, { withRows: true }).catch(() => []);
        if (pending.length > 0)
          log.warn(
            { tables: pending },
            'rows stored before a migration lack its new columns: stop the loaders and run tapehouse rederive',
          );
        if (target.kind === 'chdb') {
          const port = positive(options.httpPort, '--http-port', true) ?? 0;
          endpoint = await serveEmbeddedEndpoint(warehouse as EmbeddedWarehouse, {
            port,
            onQuery: served?.metrics.queryTimer,
          });
        }
        bus = await KafkaBus.open({
          brokers: settings.kafkaBrokers,
          topics: catalogue.topics.filter((spec) => topics.includes(spec.name)),
          replicationFactor: settings.replicationFactor,
          retentionMs: settings.busRetention,
          sessionTimeoutMs,
          rebalanceTimeoutMs,
          clientId: `tapehouse-load-${process.pid}`,
          log: log.child({ part: 'bus' }),
        });
        // A group belongs to one warehouse: a loader on another one refuses to start (exit 2).
        await bindGroupToWarehouse({
          claims: bus,
          warehouse,
          group,
          topicPrefix: settings.topicPrefix,
          warehouseName: warehouseName(target),
          loaderId: `${hostname()}:${process.pid}`,
        });
        const started = await startLoaders({
          bus,
          warehouse,
          group,
          topics,
          batch,
          log,
          onBatchStored: served?.metrics.batchStored,
        });
        loaders = started;
        served?.feed(async () => loadFigures(await started.stats()));
        process.stdout.write(
          `loading ${topics.length} topics from Kafka ${settings.kafkaBrokers.join(',')} into ${describeTarget(target)} as group ${group}` +
            (endpoint ? `; reads at ${endpoint.url}` : '') +
            metricsNote(served) +
            '\n',
        );
        // An insert pipeline that failed stores nothing more: stop and exit non-zero, so that a
        // supervisor starts the loader again (it reads where it stands from the warehouse).
        const pipelineFailed = started.failed.then((error) => void (failure = error));
        await logFiguresUntil(Promise.race([stopRequested, pipelineFailed]), loaders, log, statsEveryMs);
      } finally {
        await served?.close();
        const outcome = await loaders?.stop();
        if (loaders && outcome) process.stdout.write(await finalLine(loaders, outcome));
        await bus?.close();
        await endpoint?.close();
        await closeQuietly(warehouse);
      }
      if (failure)
        throw new Error(
          `the loader stopped storing: ${failure.message}; start it again (it reads where it stands from the warehouse)`,
        );
    });
}

/**
 * Resolves on the first SIGINT or SIGTERM; a second one exits at once, without a clean stop (what
 * is unstored stays on the bus). Listening before chDB opens matters: registered later, an early
 * SIGTERM was seen to kill the process outright now and then.
 */
function signalled(): Promise<void> {
  return new Promise((resolve) => {
    let received = 0;
    const onSignal = (): void => {
      received += 1;
      if (received === 1) return resolve();
      process.stderr.write('tapehouse load: second signal, exiting without a clean stop\n');
      process.exit(1);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** The stop's one line, as capture prints one: what was stored, and what stays on Kafka. */
async function finalLine(loaders: Loaders, outcome: LoaderStopOutcome): Promise<string> {
  const stats = await loaders.stats().catch(() => undefined);
  const rows = stats ? Object.values(stats.rows).reduce((sum, n) => sum + n, 0) : undefined;
  const stored = stats
    ? `${rows} rows stored in ${stats.batches} batches (${stats.deadLetters} dead letters)`
    : 'figures unavailable';
  const left =
    outcome.unstoredRecords > 0
      ? `${outcome.unstoredRecords} records left on Kafka for the group${outcome.reason ? ` (${outcome.reason})` : ''}`
      : 'nothing left unstored';
  return `stopped: ${stored}, ${left}\n`;
}

/** Logs the loaders' figures every so often until `stop` resolves. */
async function logFiguresUntil(
  stop: Promise<void>,
  loaders: Loaders,
  log: ReturnType<typeof createLogger>,
  everyMs: number,
): Promise<void> {
  const timer =
    everyMs > 0
      ? setInterval(() => {
          loaders.stats().then(
            (stats) => log.info(stats, 'loader figures'),
            (error: unknown) => log.warn({ err: error }, 'reading the loader figures failed'),
          );
        }, everyMs)
      : undefined;
  await stop;
  clearInterval(timer);
}

function topicsOf(
  catalogue: TopicCatalogue,
  kinds: string | undefined,
  isRecordKind: (kind: string) => kind is RecordKind,
): string[] {
  if (kinds === undefined || kinds.trim() === '') return catalogue.topics.map((spec) => spec.name);
  const wanted = kinds.split(',').map((kind) => kind.trim());
  const unknown = wanted.filter((kind) => !isRecordKind(kind));
  if (unknown.length > 0) throw new SettingError(`--kinds: unknown record kind(s) ${unknown.join(', ')}`);
  return [...new Set((wanted as RecordKind[]).map((kind) => catalogue.topicFor(kind)))];
}

function positive(text: string | undefined, flag: string, zeroAllowed = false): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < (zeroAllowed ? 0 : 1))
    throw new SettingError(`${flag}: ${JSON.stringify(text)} is not a whole number${zeroAllowed ? '' : ' above 0'}`);
  return n;
}

/** A duration flag of this command (with its unit: a bare number is refused). */
function duration(text: string | undefined, flag: string, zeroAllowed = false): number | undefined {
  if (text === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new SettingError(`${flag}: ${JSON.stringify(text)} ${(err as Error).message}`);
  }
  if (ms === 0 && !zeroAllowed) throw new SettingError(`${flag}: ${JSON.stringify(text)} is not a positive duration`);
  return ms;
}

/** The warehouse as the group's binding names it: an absolute data directory, or the server's origin. */
function warehouseName(target: WarehouseTarget): string {
  return target.kind === 'chdb' ? `chDB on ${resolve(target.dataDir)} (${hostname()})` : describeTarget(target);
}

async function closeQuietly(warehouse: Warehouse): Promise<void> {
  await warehouse.close().catch(() => undefined);
}
