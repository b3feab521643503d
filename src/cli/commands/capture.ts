import type { Command } from 'commander';
import type { CaptureStats } from '../../capture/index.ts';
import { createLogger } from '../../util/log.ts';
import { lockStateFile } from '../../util/file-lock.ts';
import type { Secret } from '../../util/secret.ts';
import type { MetricsEndpoint } from '../../run/metrics-server.ts';
import { metricsNote, serveMetricsIfAsked } from '../metrics-option.ts';
import { addSettings, refusePlainToken, resolveSettings, SettingError, type SettingName } from '../settings.ts';

const CAPTURE_SETTINGS = [
  'baseUrl',
  'tokenFile',
  'token',
  'account',
  'readShare',
  'kafkaBrokers',
  'topicPrefix',
  'replicationFactor',
  'busRetention',
  'shard',
  'coverageFile',
  'tokensPerConnection',
  'silenceMs',
  'statsEverySeconds',
  'duration',
  'metricsPort',
  'metricsHost',
] as const satisfies readonly SettingName[];

/**
 * `tapehouse capture`: the venue's streams into Kafka, on their own (the scale-out process; the
 * main job runs the same capture in-process). Several processes split the markets with
 * `--shard i/n`; the account and portfolio streams go with shard 0.
 */
export function registerCapture(program: Command): void {
  const command = program
    .command('capture')
    .description(
      'capture the venue streams (market, account, portfolio) into Kafka: books as level changes, every gap recorded',
    )
    .addHelpText(
      'after',
      `
Examples:
  TAPEHOUSE_TOKEN=… tapehouse capture --base-url https://venue.example
  tapehouse capture --base-url http://127.0.0.1:8790 --shard 1/4 --kafka-brokers k1:9092,k2:9092
Without a token only the public market stream is captured, and books are re-seeded from the stream.
The last instant covered is kept in --coverage-file; the next start records the time between as a gap.`,
    );
  addSettings(command, CAPTURE_SETTINGS);
  command.option('--no-account-stream', 'leave the account socket and the portfolio stream out');
  command.option(
    '--no-price-streams',
    'leave the two price feeds out (/api/v1/prices/stream, /api/v1/prices/oracle-pro/stream)',
  );
  refusePlainToken(command).action(async (flags: Record<string, unknown>) => {
    process.exitCode = await capture(flags);
  });
}

async function capture(flags: Record<string, unknown>): Promise<number> {
  const { VenueClient } = await import('../../api/client.ts');
  const { RateLimiter } = await import('../../api/rate-limit/limiter.ts');
  const { readAccessToken } = await import('../../api/token.ts');
  const { KafkaBus } = await import('../../bus/kafka/index.ts');
  const { createTopicCatalogue } = await import('../../bus/topics.ts');
  const { FileCoverageStore, startCapture } = await import('../../capture/index.ts');
  const { captureFigures, wireFigures } = await import('../../run/figures.ts');
  const settings = resolveSettings(CAPTURE_SETTINGS, flags);
  if (!settings.baseUrl) throw new SettingError('--base-url (TAPEHOUSE_BASE_URL): the venue to capture is required');
  const log = createLogger('capture');
  let token: Secret | null = null;
  if (settings.tokenFile !== undefined || settings.token !== undefined)
    token = await readAccessToken({ tokenFile: settings.tokenFile, token: settings.token });
  else log.warn('no access token: capturing the public market stream only, books re-seeded from the stream');
  const topics = createTopicCatalogue(settings.topicPrefix);
  const bus = await KafkaBus.open({
    brokers: settings.kafkaBrokers,
    topics: topics.topics,
    replicationFactor: settings.replicationFactor,
    retentionMs: settings.busRetention,
    log: log.child({ part: 'bus' }),
  });
  // The worker reads the same account: keep to our share of its read budget (REST re-seeds).
  const limiter = new RateLimiter({ readShare: settings.readShare });
  const client = new VenueClient({
    baseUrl: settings.baseUrl,
    token: token ?? undefined,
    limiter,
    logger: log.child({ part: 'api' }),
  });
  const coverageFile = settings.coverageFile ?? defaultCoverageFile(settings.shard);
  // Each process rewrites the whole file from its own marks: two on one file lose each other's gaps.
  lockStateFile(coverageFile, 'capture coverage file', '--coverage-file or TAPEHOUSE_COVERAGE_FILE');
  const withAccount = flags.accountStream !== false;
  const withPrices = flags.priceStreams !== false;
  let served: MetricsEndpoint | null = null;
  try {
    served = await serveMetricsIfAsked(settings, ['capture'], log);
    const handle = await startCapture({
      client,
      bus,
      topics,
      baseUrl: settings.baseUrl,
      token,
      account: settings.account,
      streams: {
        account: withAccount && token !== null,
        portfolio: withAccount && token !== null,
        prices: withPrices,
        oraclePro: withPrices,
      },
      shard: settings.shard,
      tokensPerConnection: settings.tokensPerConnection,
      silenceMs: settings.silenceMs,
      coverageStore: new FileCoverageStore(coverageFile),
      log,
    });
    served?.feed(() => ({ ...captureFigures(handle.stats()), ...wireFigures() }));
    const shard = `${settings.shard.index}/${settings.shard.count}`;
    process.stdout.write(
      `capturing ${settings.baseUrl} (shard ${shard}) into Kafka ${settings.kafkaBrokers.join(',')}, topics ${topics.prefix}.*${metricsNote(served)}\n`,
    );
    const timer = setInterval(
      () => log.info(summary(handle.stats()), 'capture figures'),
      settings.statsEverySeconds * 1000,
    );
    const why = await untilStopped(settings.duration);
    clearInterval(timer);
    process.stdout.write(`stopping (${why}): publishing what was captured…\n`);
    await handle.stop();
    const s = handle.stats();
    process.stdout.write(
      `stopped: ${s.frames} frames, ${s.records} records, ${s.gapsRecorded} gaps recorded, ${s.reconnects} reconnects\n`,
    );
    return 0;
  } finally {
    await served?.close();
    await client.close();
    await bus.close();
  }
}

/** One file per shard by default (shard 0/1 keeps the name it always had). */
export function defaultCoverageFile(shard: { index: number; count: number }): string {
  return shard.count === 1
    ? '.tapehouse/capture-coverage.json'
    : `.tapehouse/capture-coverage-shard-${shard.index}-of-${shard.count}.json`;
}

function summary(s: CaptureStats): Record<string, unknown> {
  const { counters: _counters, ...figures } = s;
  return { ...figures, framesPerSecond: Math.round(s.framesPerSecond) };
}

/** Resolves on SIGINT or SIGTERM, or after `durationMs`. */
function untilStopped(durationMs: number | undefined): Promise<string> {
  return new Promise((resolve) => {
    const done = (why: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      clearTimeout(timer);
      resolve(why);
    };
    const onInt = (): void => done('SIGINT');
    const onTerm = (): void => done('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const timer =
      durationMs === undefined ? undefined : setTimeout(() => done(`--duration ${durationMs} ms`), durationMs);
  });
}
