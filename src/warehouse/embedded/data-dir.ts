import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { alive } from '../../util/file-lock.ts';
import { SettingError } from '../../util/setting-error.ts';
import type { EndpointInfo } from './endpoint-file.ts';

/** Default data directory of the embedded warehouse (relative to the working directory). */
export { DEFAULT_DATA_DIR } from './defaults.ts';

/** chDB keeps its files in a subdirectory, so the data directory can hold other state beside it. */
export function chdbPathOf(dataDir: string): string {
  return join(resolve(dataDir), 'clickhouse');
}

/** chDB allows one process per data directory; this is what a second one gets. */
export class DataDirectoryBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly endpoint: EndpointInfo | undefined,
  ) {
    const where = resolve(dataDir);
    super(
      endpoint
        ? `data directory ${where} is in use by another tapehouse process (pid ${endpoint.pid}); ` +
            `query it through that process's endpoint ${endpoint.url} (e.g. tapehouse sql --data-dir ${dataDir} "…" does so), ` +
            'or stop that process first.'
        : `data directory ${where} is in use by another process, which serves no endpoint; ` +
            'chDB allows one process per data directory: use the running process (its endpoint, when it serves one) or stop it first.',
    );
    this.name = 'DataDirectoryBusy';
  }
}

/**
 * The other live process holding the data directory, if any. The engine writes its PID into
 * `status` while it has the directory open (and locks that file); chDB reports a lock failure
 * only as "Failed to create connection", with the reason printed to stderr, so the PID is how we
 * tell "busy" from other failures, and lets us say so before the engine prints its own message.
 */
export function dataDirectoryHolder(dataDir: string): number | undefined {
  let status: string;
  try {
    status = readFileSync(join(chdbPathOf(dataDir), 'status'), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(/^PID: (\d+)/m.exec(status)?.[1]);
  return Number.isInteger(pid) && pid !== process.pid && alive(pid) ? pid : undefined;
}

/** A read asked of a directory that holds no warehouse: a mistyped --data-dir, most often (exit 2). */
export class NoWarehouse extends SettingError {
  constructor(readonly dataDir: string) {
    super(
      `${resolve(dataDir)} holds no warehouse (no clickhouse/ folder): give the --data-dir a job wrote (tapehouse run --data-dir … makes one)`,
    );
    this.name = 'NoWarehouse';
  }
}

/** Reads open what is there and create nothing: a directory without chDB's folder is refused before chDB loads. */
export function requireWarehouse(dataDir: string): void {
  if (!existsSync(chdbPathOf(dataDir))) throw new NoWarehouse(dataDir);
}
