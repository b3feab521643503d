import { existsSync, readFileSync } from 'node:fs';
import { Secret } from '../util/secret.ts';
import { SettingError } from '../util/setting-error.ts';
import { DEFAULT_DATA_DIR } from './embedded/defaults.ts';

/** Where the warehouse lives: embedded chDB on a data directory, or a ClickHouse server. */
export type WarehouseTarget = ChdbTarget | ServerTarget;

export interface ChdbTarget {
  kind: 'chdb';
  dataDir: string;
}

export interface ServerTarget {
  kind: 'server';
  url: string;
  user?: string;
  password?: Secret;
  /** PEM files for TLS: a private CA, and a client certificate and key for mutual TLS. */
  tls?: { caCert: Buffer; cert?: Buffer; key?: Buffer };
}

export interface TargetOptions {
  dataDir?: string;
  clickhouseUrl?: string;
  /** The server's credentials and TLS files: environment-only settings, resolved by the CLI's settings table. */
  user?: string;
  password?: Secret;
  /** PEM files: a private CA, and a client certificate and key for mutual TLS. */
  caCertFile?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
}

/**
 * A ClickHouse URL selects a server, with its user, password and, for TLS with a private CA, the
 * CA's certificate (plus a client certificate and key for mutual TLS). Otherwise chDB on the data
 * directory (default ./data). Giving both is a usage error. The values come resolved (the CLI's
 * settings table reads `--clickhouse-url`, TAPEHOUSE_CLICKHOUSE_USER and the rest): nothing here
 * reads the environment.
 */
export function resolveTarget(options: TargetOptions): WarehouseTarget {
  if (options.dataDir !== undefined && options.clickhouseUrl !== undefined) {
    throw new SettingError(
      'give either --data-dir (TAPEHOUSE_DATA_DIR) or --clickhouse-url (TAPEHOUSE_CLICKHOUSE_URL), not both',
    );
  }
  const url = options.clickhouseUrl;
  if (url === undefined || url === '') return { kind: 'chdb', dataDir: options.dataDir ?? DEFAULT_DATA_DIR };
  if (!/^https?:\/\//.test(url))
    throw new SettingError(
      `--clickhouse-url (TAPEHOUSE_CLICKHOUSE_URL): ${JSON.stringify(url)} does not start with http:// or https://`,
    );
  if (carriesCredentials(url)) {
    // Not repeated in the message: it holds a password.
    throw new SettingError(
      'the ClickHouse URL carries credentials (user:password@), which are refused: set TAPEHOUSE_CLICKHOUSE_USER and TAPEHOUSE_CLICKHOUSE_PASSWORD instead',
    );
  }
  const target: ServerTarget = { kind: 'server', url };
  if (options.user) target.user = options.user;
  if (options.password) target.password = options.password;
  const caCert = readPem(options.caCertFile, 'TAPEHOUSE_CLICKHOUSE_CA_CERT');
  if (caCert) {
    target.tls = { caCert };
    const cert = readPem(options.clientCertFile, 'TAPEHOUSE_CLICKHOUSE_CLIENT_CERT');
    const key = readPem(options.clientKeyFile, 'TAPEHOUSE_CLICKHOUSE_CLIENT_KEY');
    if (cert && key) Object.assign(target.tls, { cert, key });
  }
  return target;
}

function carriesCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return /^https?:\/\/[^/]*@/.test(url);
  }
}

function readPem(path: string | undefined, variable: string): Buffer | undefined {
  if (!path) return undefined;
  if (!existsSync(path)) throw new SettingError(`${variable} names ${path}, which does not exist`);
  return readFileSync(path);
}

export function describeTarget(target: WarehouseTarget): string {
  if (target.kind === 'chdb') return `chDB on ${target.dataDir}`;
  const url = new URL(target.url);
  url.username = '';
  url.password = '';
  return `ClickHouse at ${url.origin}`;
}
