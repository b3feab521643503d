import { readFileSync } from 'node:fs';
import { Secret } from '../util/secret.ts';
import { SettingError } from '../util/setting-error.ts';
import { resolveTarget, type ServerTarget, type WarehouseTarget } from '../warehouse/target.ts';
import { resolveSettings, type Resolved, type SettingName } from './settings.ts';

/** A ClickHouse server's URL, credentials and TLS files (the last four environment only). */
export const SERVER_SETTINGS = [
  'clickhouseUrl',
  'clickhouseUser',
  'clickhousePassword',
  'clickhousePasswordFile',
  'clickhouseCaCert',
  'clickhouseClientCert',
  'clickhouseClientKey',
] as const satisfies readonly SettingName[];

/** The warehouse: chDB on `--data-dir`, or a server. */
export const WAREHOUSE_SETTINGS = ['dataDir', ...SERVER_SETTINGS] as const satisfies readonly SettingName[];

type ServerSettings = Partial<Resolved<(typeof SERVER_SETTINGS)[number]>>;

/** The warehouse the resolved settings name: a server when a URL is given, else chDB on the data directory. */
export function warehouseTarget(settings: ServerSettings & { dataDir?: string }): WarehouseTarget {
  return resolveTarget({
    dataDir: settings.clickhouseUrl === undefined ? settings.dataDir : undefined,
    clickhouseUrl: settings.clickhouseUrl,
    user: settings.clickhouseUser,
    password: passwordOf(settings),
    caCertFile: settings.clickhouseCaCert,
    clientCertFile: settings.clickhouseClientCert,
    clientKeyFile: settings.clickhouseClientKey,
  });
}

/** The server the resolved settings name (`--clickhouse-url` given). */
export function serverTarget(settings: ServerSettings & { clickhouseUrl: string }): ServerTarget {
  return warehouseTarget(settings) as ServerTarget;
}

/**
 * The warehouse of a command that reads or writes one: `--data-dir` or `--clickhouse-url`
 * (one of them: a flag wins over the other's variable; both flags, or both variables, is a usage
 * error), with the server's credentials from the environment.
 */
export function resolveWarehouse(options: Record<string, unknown>): WarehouseTarget {
  return warehouseTarget(resolveSettings(WAREHOUSE_SETTINGS, options, { either: [['dataDir', 'clickhouseUrl']] }));
}

/** The server's password: from TAPEHOUSE_CLICKHOUSE_PASSWORD_FILE (a secret file; one trailing newline dropped) or the variable. */
function passwordOf(settings: ServerSettings): Secret | undefined {
  const file = settings.clickhousePasswordFile;
  if (file === undefined) return settings.clickhousePassword;
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    throw new SettingError(
      `TAPEHOUSE_CLICKHOUSE_PASSWORD_FILE: ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const password = content.replace(/\r?\n$/, '');
  if (password === '') throw new SettingError(`TAPEHOUSE_CLICKHOUSE_PASSWORD_FILE: ${file} is empty`);
  return new Secret(password);
}

/** The directory's holder serves no endpoint yet: most likely the job the user just started. */
export function tellWaiting(pid: number): void {
  process.stderr.write(
    `tapehouse: the job holding the data directory (process ${pid}) is starting; waiting for its endpoint…\n`,
  );
}
