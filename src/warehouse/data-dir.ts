import { join, resolve } from 'node:path';
import type { EndpointInfo } from './endpoint-file.ts';

/** Default data directory of the embedded warehouse (relative to the working directory). */
export const DEFAULT_DATA_DIR = './data';

/** chDB keeps its files in a subdirectory, so the data directory can hold other state beside it. */
export function chdbPathOf(dataDir: string): string {
  return join(resolve(dataDir), 'clickhouse');
}

export function endpointFileOf(dataDir: string): string {
  return join(resolve(dataDir), 'endpoint.json');
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

/** chDB's "Cannot lock file <dir>/status" (code 76) when another process holds the directory. */
export function isDataDirectoryLockError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /Cannot lock file|Another server instance in same directory/i.test(message);
}
