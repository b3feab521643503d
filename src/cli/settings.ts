import { Option, type Command } from 'commander';
import { CAPTURE_DEFAULTS } from '../capture/defaults.ts';
import { parseVenueRules } from '../reconcile/venue-rules.ts';
import { DEFAULT_RATE, DEFAULT_SEED } from '../simulator/defaults.ts';
import { environment } from '../util/environment.ts';
import { LOG_FORMATS, LOG_LEVELS } from '../util/log.ts';
import { readableFile, writableDirectory, writableFile } from './path-parsers.ts';
import { SettingError } from '../util/setting-error.ts';
import { DEFAULT_DATA_DIR } from '../warehouse/embedded/defaults.ts';
import {
  brokers,
  CredentialsInValue,
  fraction,
  hostPort,
  httpUrl,
  nonEmpty,
  nonNegativeInt,
  nonNegativeNumber,
  oneOf,
  port,
  positiveDuration,
  positiveInt,
  positiveNumber,
  secret,
  shard,
} from './setting-parsers.ts';

/**
 * Every setting a tapehouse process takes, once: its flag, its TAPEHOUSE_* variable, its default
 * and its parser. A flag wins over the variable; a bad value stops the process at start with a
 * message naming the setting both ways (`--rate (TAPEHOUSE_RATE): "abc" is not a number`).
 * Environment-only settings (credentials, the log level) have no flag: a secret on the command
 * line would show in `ps` and shell history. Each command names the settings it takes
 * (`addSettings`), resolves them once (`resolveSettings`) and passes the typed values down: no
 * part below the CLI reads the environment (util/environment.ts is its one door).
 */

export { SettingError };
export { startedByNpm } from '../util/environment.ts';

interface SettingSpec<T> {
  /** commander's flag syntax, e.g. `--base-url <url>`; none for an environment-only setting. */
  flag?: string;
  env: string;
  description: string;
  parse(text: string): T;
  default?: T;
  /** The default as `--help` shows it, when the command works it out (it depends on another setting). */
  defaultText?: string;
  /** Never repeated in a message (a password, a token). */
  secret?: true;
}

/** A setting as declared: `default` is kept in the type, so resolved values with one are never undefined. */
type Spec = SettingSpec<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The worker's checkpoints when neither --checkpoint-file nor --clickhouse-url is given. */
export const DEFAULT_CHECKPOINT_FILE = '.tapehouse/worker-checkpoints.json';

export const SETTINGS = {
  // ---- the venue ------------------------------------------------------------------------------
  baseUrl: {
    flag: '--base-url <url>',
    env: 'TAPEHOUSE_BASE_URL',
    description: 'the venue (default for `run`: the built-in simulator)',
    parse: httpUrl,
  } satisfies Spec,
  tokenFile: {
    flag: '--token-file <file>',
    env: 'TAPEHOUSE_TOKEN_FILE',
    description: 'file holding the venue access token (or set TAPEHOUSE_TOKEN)',
    parse: readableFile,
  } satisfies Spec,
  token: {
    env: 'TAPEHOUSE_TOKEN',
    description: 'the venue access token itself (--token-file wins over it)',
    parse: secret,
    secret: true,
  } satisfies Spec,
  account: {
    flag: '--account <label>',
    env: 'TAPEHOUSE_ACCOUNT',
    description: "label of the token's account in the records",
    parse: nonEmpty,
    default: 'default',
  } satisfies Spec,
  readShare: {
    flag: '--read-share <fraction>',
    env: 'TAPEHOUSE_READ_SHARE',
    description:
      "share of the account's read budget this process keeps to, in (0, 1] (capture and worker read the same account: they split it)",
    parse: fraction,
    default: 0.5,
  } satisfies Spec,
  readBurst: {
    flag: '--read-burst <n>',
    env: 'TAPEHOUSE_READ_BURST',
    description: "the account read bucket's capacity, when not the authenticated tier (with --read-refill)",
    parse: positiveNumber,
  } satisfies Spec,
  readRefill: {
    flag: '--read-refill <n>',
    env: 'TAPEHOUSE_READ_REFILL',
    description: 'its refill per second (with --read-burst)',
    parse: positiveNumber,
  } satisfies Spec,

  // ---- the warehouse --------------------------------------------------------------------------
  dataDir: {
    flag: '--data-dir <dir>',
    env: 'TAPEHOUSE_DATA_DIR',
    description: 'embedded warehouse (chDB) data directory',
    parse: writableDirectory,
    defaultText: JSON.stringify(DEFAULT_DATA_DIR),
  } satisfies Spec,
  clickhouseUrl: {
    flag: '--clickhouse-url <url>',
    env: 'TAPEHOUSE_CLICKHOUSE_URL',
    description: 'a ClickHouse server instead of chDB (credentials: TAPEHOUSE_CLICKHOUSE_USER/_PASSWORD)',
    parse: httpUrl,
  } satisfies Spec,
  clickhouseUser: {
    env: 'TAPEHOUSE_CLICKHOUSE_USER',
    description: 'user of the ClickHouse server',
    parse: nonEmpty,
  } satisfies Spec,
  clickhousePassword: {
    env: 'TAPEHOUSE_CLICKHOUSE_PASSWORD',
    description: 'its password',
    parse: secret,
    secret: true,
  } satisfies Spec,
  clickhousePasswordFile: {
    env: 'TAPEHOUSE_CLICKHOUSE_PASSWORD_FILE',
    description: 'a file holding that password (a Docker secret), which wins over the variable',
    parse: nonEmpty,
  } satisfies Spec,
  clickhouseCaCert: {
    env: 'TAPEHOUSE_CLICKHOUSE_CA_CERT',
    description: "PEM file of the server's private CA (TLS)",
    parse: readableFile,
  } satisfies Spec,
  clickhouseClientCert: {
    env: 'TAPEHOUSE_CLICKHOUSE_CLIENT_CERT',
    description: 'PEM file of a client certificate (mutual TLS, with _CLIENT_KEY and _CA_CERT)',
    parse: readableFile,
  } satisfies Spec,
  clickhouseClientKey: {
    env: 'TAPEHOUSE_CLICKHOUSE_CLIENT_KEY',
    description: "PEM file of that certificate's key",
    parse: readableFile,
  } satisfies Spec,

  // ---- the bus --------------------------------------------------------------------------------
  kafkaBrokers: {
    flag: '--kafka-brokers <list>',
    env: 'TAPEHOUSE_KAFKA_BROKERS',
    description: 'comma-separated Kafka bootstrap servers',
    parse: brokers,
    default: ['127.0.0.1:9092'],
  } satisfies Spec,
  topicPrefix: {
    flag: '--topic-prefix <prefix>',
    env: 'TAPEHOUSE_TOPIC_PREFIX',
    description: 'bus topic prefix',
    parse: nonEmpty,
    default: 'tapehouse',
  } satisfies Spec,
  replicationFactor: {
    flag: '--replication-factor <n>',
    env: 'TAPEHOUSE_REPLICATION_FACTOR',
    description:
      "replicas per partition of the bus topics, the same for every process (default: the broker's default.replication.factor); existing topics must match",
    parse: positiveInt,
  } satisfies Spec,
  busRetention: {
    flag: '--bus-retention <duration>',
    env: 'TAPEHOUSE_BUS_RETENTION',
    description:
      "how long Kafka keeps every tapehouse topic's records (retention.ms; the longest loader outage that loses nothing), set on existing topics too (default: 7 days, 30 for account topics)",
    parse: positiveDuration,
  } satisfies Spec,
  loaderGroup: {
    flag: '--group <name>',
    env: 'TAPEHOUSE_LOADER_GROUP',
    description:
      'consumer group of the loaders; deployments sharing one Kafka under different --topic-prefix get their own group by default',
    parse: nonEmpty,
    defaultText: '"<topic prefix>-loaders" ("tapehouse-loaders")',
  } satisfies Spec,

  // ---- Temporal -------------------------------------------------------------------------------
  temporalAddress: {
    flag: '--temporal-address <host:port>',
    env: 'TAPEHOUSE_TEMPORAL_ADDRESS',
    description: 'Temporal frontend',
    parse: hostPort,
    default: '127.0.0.1:7233',
  } satisfies Spec,
  temporalNamespace: {
    flag: '--namespace <name>',
    env: 'TAPEHOUSE_TEMPORAL_NAMESPACE',
    description: 'Temporal namespace',
    parse: nonEmpty,
    default: 'default',
  } satisfies Spec,
  taskQueue: {
    flag: '--task-queue <name>',
    env: 'TAPEHOUSE_TASK_QUEUE',
    description: 'task queue of the sync workflows and their workers',
    parse: nonEmpty,
    default: 'tapehouse-sync',
  } satisfies Spec,
  checkpointFile: {
    flag: '--checkpoint-file <file>',
    env: 'TAPEHOUSE_CHECKPOINT_FILE',
    description: 'keep the sync checkpoints in this JSON file, one per process (or in the warehouse: --clickhouse-url)',
    parse: writableFile,
    defaultText: `${DEFAULT_CHECKPOINT_FILE} without --clickhouse-url`,
  } satisfies Spec,

  // ---- the main job ---------------------------------------------------------------------------
  httpPort: {
    flag: '--http-port <port>',
    env: 'TAPEHOUSE_HTTP_PORT',
    description: 'loopback port of the query endpoint, dashboards and /metrics (0: any free port)',
    parse: port,
    default: 18123,
  } satisfies Spec,
  maxResultRows: {
    flag: '--max-result-rows <n>',
    env: 'TAPEHOUSE_MAX_RESULT_ROWS',
    description: 'bound on the rows of one answer of the query endpoint (0: none, as a ClickHouse server)',
    parse: nonNegativeInt,
    default: 0,
  } satisfies Spec,
  maxResultBytes: {
    flag: '--max-result-bytes <n>',
    env: 'TAPEHOUSE_MAX_RESULT_BYTES',
    description:
      'bound on the bytes of one answer of the query endpoint, as ClickHouse counts max_result_bytes (0: none)',
    parse: nonNegativeInt,
    default: 0,
  } satisfies Spec,
  duration: {
    flag: '--duration <time>',
    env: 'TAPEHOUSE_DURATION',
    description: 'stop after this long, with its unit (e.g. 30s, 10m, 2h; default: until interrupted)',
    parse: positiveDuration,
  } satisfies Spec,
  seed: {
    flag: '--seed <n>',
    env: 'TAPEHOUSE_SEED',
    description:
      "seed of the simulator's catalogue and order flow (`run`'s built-in one: a new world only, a saved one keeps its own)",
    parse: nonNegativeInt,
    default: DEFAULT_SEED,
  } satisfies Spec,
  rate: {
    flag: '--rate <n>',
    env: 'TAPEHOUSE_RATE',
    description: "the simulator's synthetic book changes per second",
    parse: nonNegativeNumber,
    default: DEFAULT_RATE,
  } satisfies Spec,
  status: {
    flag: '--status <mode>',
    env: 'TAPEHOUSE_STATUS',
    description: 'status output: line (a live line on a terminal), log (periodic lines), off',
    parse: oneOf(['line', 'log', 'off'] as const),
  } satisfies Spec,

  // ---- capture --------------------------------------------------------------------------------
  shard: {
    flag: '--shard <i/n>',
    env: 'TAPEHOUSE_SHARD',
    description: 'capture the i-th of n shares of the tokens (0-based)',
    parse: shard,
    default: { index: 0, count: 1 },
  } satisfies Spec,
  coverageFile: {
    flag: '--coverage-file <file>',
    env: 'TAPEHOUSE_COVERAGE_FILE',
    description: 'where the last covered instant per stream is kept, one file per process',
    parse: writableFile,
    defaultText: '.tapehouse/capture-coverage.json, or …-shard-I-of-N.json with --shard',
  } satisfies Spec,
  tokensPerConnection: {
    flag: '--tokens-per-connection <n>',
    env: 'TAPEHOUSE_TOKENS_PER_CONNECTION',
    description: 'tokens per market socket',
    parse: positiveInt,
    default: CAPTURE_DEFAULTS.tokensPerConnection,
  } satisfies Spec,
  silenceMs: {
    flag: '--silence-ms <ms>',
    env: 'TAPEHOUSE_SILENCE_MS',
    description: 'no frame for this many milliseconds: the view is untrusted, reconnect',
    parse: positiveInt,
    default: CAPTURE_DEFAULTS.silenceMs,
  } satisfies Spec,
  statsEverySeconds: {
    flag: '--stats-every-s <n>',
    env: 'TAPEHOUSE_STATS_EVERY_S',
    description: 'log the figures every this many seconds',
    parse: positiveInt,
    default: 10,
  } satisfies Spec,

  // ---- metrics --------------------------------------------------------------------------------
  metricsPort: {
    flag: '--metrics-port <port>',
    env: 'TAPEHOUSE_METRICS_PORT',
    description: 'serve /metrics (Prometheus text format) on this port (0: any free port; default: not served)',
    parse: port,
  } satisfies Spec,
  metricsHost: {
    flag: '--metrics-host <address>',
    env: 'TAPEHOUSE_METRICS_HOST',
    description: 'address the /metrics port listens on (0.0.0.0 in a container, for Prometheus)',
    parse: nonEmpty,
    default: '127.0.0.1',
  } satisfies Spec,

  // ---- reconcile ------------------------------------------------------------------------------
  venueRules: {
    flag: '--venue-rules <name|file>',
    env: 'TAPEHOUSE_VENUE_RULES',
    description:
      "`reconcile`: the venue's fee schedule, maker-rebate share and rounding, which no data gives — `simulator` (the built-in venue's), or a JSON file {taker_fee_bps, maker_rebate_percent, rounding}; without it the fee and maker-rebate checks are unproven",
    parse: parseVenueRules,
  } satisfies Spec,

  // ---- every process --------------------------------------------------------------------------
  logLevel: {
    env: 'TAPEHOUSE_LOG_LEVEL',
    description: `level of the logs, on stderr (${LOG_LEVELS.join(', ')})`,
    parse: oneOf(LOG_LEVELS),
    default: 'info',
  } satisfies Spec,
  logFormat: {
    env: 'TAPEHOUSE_LOG_FORMAT',
    description: `${LOG_FORMATS.join(', ')}: auto writes one readable line per entry on a terminal, JSON lines otherwise`,
    parse: oneOf(LOG_FORMATS),
    default: 'auto',
  } satisfies Spec,
} as const;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
type ValueOf<N extends SettingName> = ReturnType<Settings[N]['parse']>;
type HasDefault<K extends SettingName> = Settings[K] extends { default: unknown } ? true : false;
/** Settings without a default: only those can be one of two (`either`). */
type WithoutDefault<N extends SettingName> = { [K in N]: HasDefault<K> extends true ? never : K }[N];

/** The resolved settings: those with a default are always present. */
export type Resolved<N extends SettingName> = { [K in N as HasDefault<K> extends true ? K : never]: ValueOf<K> } & {
  [K in N as HasDefault<K> extends true ? never : K]?: ValueOf<K>;
};

/** The flag as messages name it (`--base-url`), or nothing for an environment-only setting. */
function flagName(s: Spec): string | undefined {
  return s.flag?.split(' ')[0];
}

/** How the setting is named in a message: `--rate (TAPEHOUSE_RATE)`, or `TAPEHOUSE_TOKEN`. */
export function settingLabel(name: SettingName): string {
  const s: Spec = SETTINGS[name];
  const flag = flagName(s);
  return flag ? `${flag} (${s.env})` : s.env;
}

/**
 * Adds the named settings' flags to a command, with their variable and default in the help; the
 * environment-only ones it reads are listed after the options.
 */
export function addSettings(command: Command, names: readonly SettingName[]): Command {
  const environmentOnly: string[] = [];
  for (const name of names) {
    const s: Spec = SETTINGS[name];
    const shown = s.default !== undefined ? JSON.stringify(s.default) : s.defaultText;
    const byDefault = shown === undefined ? '' : `default ${shown}`;
    if (s.flag) command.option(s.flag, `${s.description} (${s.env}${byDefault && `, ${byDefault}`})`);
    else environmentOnly.push(`  ${s.env.padEnd(34)}${s.description}${byDefault && ` (${byDefault})`}`);
  }
  if (environmentOnly.length > 0)
    command.addHelpText('after', `\nEnvironment only (never a flag):\n${environmentOnly.join('\n')}`);
  return command;
}

/** Where a value came from, strongest first. */
type Source = 'flag' | 'variable' | 'default';
const STRENGTH: Record<Source, number> = { flag: 2, variable: 1, default: 0 };

export interface Resolution<N extends SettingName> {
  /** The environment to read (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Pairs of settings of which one is used: the stronger source wins (a flag over the other's
   * variable); both by flag, or both by variable, is a usage error.
   */
  either?: readonly (readonly [WithoutDefault<N>, WithoutDefault<N>])[];
}

/**
 * Reads the named settings once: commander's options (never for an environment-only setting),
 * then the environment, then the defaults. An empty value counts as not given.
 */
export function resolveSettings<N extends SettingName>(
  names: readonly N[],
  options: Record<string, unknown>,
  how: Resolution<N> = {},
): Resolved<N> {
  const env = how.env ?? environment();
  const out: Record<string, unknown> = {};
  const source: Partial<Record<SettingName, Source>> = {};
  for (const name of names) {
    const s: Spec = SETTINGS[name];
    const fromFlag = s.flag ? options[new Option(s.flag).attributeName()] : undefined;
    const flagText = typeof fromFlag === 'string' && fromFlag !== '' ? fromFlag : undefined;
    const text = flagText ?? env[s.env];
    if (text === undefined || text === '') {
      if (s.default !== undefined) [out[name], source[name]] = [s.default, 'default'];
      continue;
    }
    try {
      out[name] = s.parse(text);
    } catch (err) {
      const shown = s.secret || err instanceof CredentialsInValue ? 'the value' : JSON.stringify(text);
      throw new SettingError(`${settingLabel(name)}: ${shown} ${(err as Error).message}`);
    }
    source[name] = flagText === undefined ? 'variable' : 'flag';
  }
  for (const [a, b] of how.either ?? []) {
    const [fromA, fromB] = [source[a], source[b]];
    if (fromA === undefined || fromB === undefined) continue;
    if (STRENGTH[fromA] === STRENGTH[fromB])
      throw new SettingError(`give either ${settingLabel(a)} or ${settingLabel(b)}, not both`);
    delete out[STRENGTH[fromA] < STRENGTH[fromB] ? a : b];
  }
  return out as Resolved<N>;
}

/**
 * The access token is never a plain command-line value: it would sit in shell history and in
 * every process listing. `--token` exists only to say so.
 */
export function refusePlainToken(command: Command): Command {
  return command
    .option('--token <value>', 'refused: use --token-file F or TAPEHOUSE_TOKEN')
    .hook('preAction', (cmd) => {
      if (cmd.opts().token !== undefined) {
        throw new SettingError(
          '--token is refused: a token on the command line leaks into shell history and process lists; put it in a file (--token-file F) or in TAPEHOUSE_TOKEN',
        );
      }
    });
}
