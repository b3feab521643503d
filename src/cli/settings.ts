import type { Command } from 'commander';
import { parseVenueRules } from '../reconcile/venue-rules.ts';
import { parseDuration } from '../util/duration.ts';
import { SettingError } from '../util/setting-error.ts';

/**
 * Every setting a tapehouse process takes, once: its flag, its TAPEHOUSE_* variable, its default
 * and its parser. A flag wins over the variable; a bad value stops the process at start with a
 * message naming the setting both ways (`--rate (TAPEHOUSE_RATE): "abc" is not a number`).
 */

export { SettingError };

/** A refusal whose message must not repeat the value (it carries a password). */
class CredentialsInValue extends Error {}

interface SettingSpec<T> {
  /** commander's flag syntax, e.g. `--base-url <url>`. */
  flag: string;
  env: string;
  description: string;
  parse(text: string): T;
  default?: T;
}

/** A setting as declared: `default` is kept in the type, so resolved values with one are never undefined. */
type Spec = SettingSpec<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const SETTINGS = {
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
    parse: nonEmpty,
  } satisfies Spec,
  account: {
    flag: '--account <label>',
    env: 'TAPEHOUSE_ACCOUNT',
    description: "label of the token's account in the records",
    parse: nonEmpty,
    default: 'default',
  } satisfies Spec,
  dataDir: {
    flag: '--data-dir <dir>',
    env: 'TAPEHOUSE_DATA_DIR',
    description: 'embedded warehouse (chDB) data directory',
    parse: nonEmpty,
    default: './data',
  } satisfies Spec,
  clickhouseUrl: {
    flag: '--clickhouse-url <url>',
    env: 'TAPEHOUSE_CLICKHOUSE_URL',
    description: 'a ClickHouse server instead of chDB (credentials: TAPEHOUSE_CLICKHOUSE_USER/_PASSWORD)',
    parse: httpUrl,
  } satisfies Spec,
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
  httpPort: {
    flag: '--http-port <port>',
    env: 'TAPEHOUSE_HTTP_PORT',
    description: 'loopback port of the query endpoint, dashboards and /metrics (0: any free port)',
    parse: port,
    default: 18123,
  } satisfies Spec,
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
  duration: {
    flag: '--duration <time>',
    env: 'TAPEHOUSE_DURATION',
    description: 'stop after this long, with its unit (e.g. 30s, 10m, 2h; default: until interrupted)',
    parse: positiveDuration,
  } satisfies Spec,
  shard: {
    flag: '--shard <i/n>',
    env: 'TAPEHOUSE_SHARD',
    description: 'capture the i-th of n shares of the tokens (0-based)',
    parse: shard,
    default: { index: 0, count: 1 },
  } satisfies Spec,
  seed: {
    flag: '--seed <n>',
    env: 'TAPEHOUSE_SEED',
    description: 'seed of the in-process simulator',
    parse: nonNegativeInt,
    default: 1,
  } satisfies Spec,
  rate: {
    flag: '--rate <n>',
    env: 'TAPEHOUSE_RATE',
    description: "the in-process simulator's book changes per second",
    parse: nonNegativeNumber,
    default: 20,
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
  status: {
    flag: '--status <mode>',
    env: 'TAPEHOUSE_STATUS',
    description: 'status output: line (a live line on a terminal), log (periodic lines), off',
    parse: oneOf(['line', 'log', 'off'] as const),
  } satisfies Spec,
  venueRules: {
    flag: '--venue-rules <name|file>',
    env: 'TAPEHOUSE_VENUE_RULES',
    description:
      "`reconcile`: the venue's fee schedule, maker-rebate share and rounding, which no data gives — `simulator` (the built-in venue's), or a JSON file {taker_fee_bps, maker_rebate_percent, rounding}; without it the fee and maker-rebate checks are unproven",
    parse: parseVenueRules,
  } satisfies Spec,
} as const;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
type ValueOf<N extends SettingName> = ReturnType<Settings[N]['parse']>;
type HasDefault<K extends SettingName> = Settings[K] extends { default: unknown } ? true : false;

/** The resolved settings: those with a default are always present. */
export type Resolved<N extends SettingName> = { [K in N as HasDefault<K> extends true ? K : never]: ValueOf<K> } & {
  [K in N as HasDefault<K> extends true ? never : K]?: ValueOf<K>;
};

/** Adds the named settings' flags to a command, with their variable and default in the help. */
export function addSettings(command: Command, names: readonly SettingName[]): Command {
  for (const name of names) {
    const s: SettingSpec<unknown> = SETTINGS[name];
    const shown = s.default === undefined ? '' : `, default ${JSON.stringify(s.default)}`;
    command.option(s.flag, `${s.description} (${s.env}${shown})`);
  }
  return command;
}

/** Reads the named settings from commander's options, then the environment, then the defaults. */
export function resolveSettings<N extends SettingName>(
  names: readonly N[],
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): Resolved<N> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const s: SettingSpec<unknown> = SETTINGS[name];
    const fromFlag = options[name];
    const text = typeof fromFlag === 'string' ? fromFlag : env[s.env];
    if (text === undefined || text === '') {
      if (s.default !== undefined) out[name] = s.default;
      continue;
    }
    try {
      out[name] = s.parse(text);
    } catch (err) {
      const flag = s.flag.split(' ')[0];
      const shown = err instanceof CredentialsInValue ? 'the value' : JSON.stringify(text);
      throw new SettingError(`${flag} (${s.env}): ${shown} ${(err as Error).message}`);
    }
  }
  return out as Resolved<N>;
}

// ---- parsers: each throws with the tail of a sentence ("is not …") --------------------------

function nonEmpty(text: string): string {
  if (!text.trim()) throw new Error('is empty');
  return text.trim();
}

function httpUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('is not an http(s) URL');
  if (url.username !== '' || url.password !== '') throw credentialsRefused();
  return url.toString().replace(/\/$/, '');
}

function hostPort(text: string): string {
  if (text.includes('@')) throw credentialsRefused();
  const match = /^([^\s:]+):(\d{1,5})$/.exec(text.trim());
  if (!match || Number(match[2]) > 65535) throw new Error('is not host:port');
  return text.trim();
}

function brokers(text: string): string[] {
  const list = text
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (list.length === 0) throw new Error('names no broker');
  return list.map(hostPort);
}

/** Passwords never come from a flag or a URL: ps and shell history would show them. */
function credentialsRefused(): CredentialsInValue {
  return new CredentialsInValue(
    'carries credentials (user:password@), which are refused there: the venue token comes from TAPEHOUSE_TOKEN or --token-file, ClickHouse credentials from TAPEHOUSE_CLICKHOUSE_USER and TAPEHOUSE_CLICKHOUSE_PASSWORD (Kafka is reached without credentials)',
  );
}

function port(text: string): number {
  const n = nonNegativeInt(text);
  if (n > 65535) throw new Error('is not a port (0-65535)');
  return n;
}

function nonNegativeInt(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new Error('is not a whole number');
  return Number(text.trim());
}

function positiveInt(text: string): number {
  const n = nonNegativeInt(text);
  if (n < 1) throw new Error('is not a whole number above 0');
  return n;
}

function nonNegativeNumber(text: string): number {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new Error('is not a non-negative number');
  return n;
}

/** A duration with its unit (util/duration.ts: a bare number is refused), above zero. */
function positiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new Error('is not a positive duration');
  return ms;
}

function shard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index >= count) throw new Error('is not i/n with 0 ≤ i < n');
  return { index, count };
}

function oneOf<const T extends readonly string[]>(values: T): (text: string) => T[number] {
  return (text) => {
    if (!values.includes(text)) throw new Error(`is not one of ${values.join(', ')}`);
    return text as T[number];
  };
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
