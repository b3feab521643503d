import { ChdbReadSessions } from './chdb-read-sessions.ts';
import { chdbPathOf, removeEndpointFile, writeEndpointFile } from '../embedded/index.ts';
import { startHttpEndpoint, type HttpEndpointOptions } from './http-endpoint.ts';
import { timedExecutor, type QueryTimer } from './timed-executor.ts';
import type { EmbeddedWarehouse } from '../warehouse.ts';

export interface EmbeddedEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the data directory this process owns read-only on 127.0.0.1 and publishes the URL in
 * `<data-dir>/endpoint.json`, so `tapehouse sql --data-dir` and other readers find it. The file
 * goes on close, and on any normal process exit; one left by a killed process is recognised as
 * stale (dead pid, or the directory's lock is free) and ignored.
 */
export async function serveEmbeddedEndpoint(
  warehouse: EmbeddedWarehouse,
  options: HttpEndpointOptions & { onQuery?: QueryTimer } = {},
): Promise<EmbeddedEndpoint> {
  const { dataDir } = warehouse.target;
  const readers = new ChdbReadSessions(chdbPathOf(dataDir));
  // Query time is observed around the executor (metrics), not inside the endpoint.
  const endpoint = await startHttpEndpoint(
    options.onQuery ? timedExecutor(readers, options.onQuery) : readers,
    options,
  );
  writeEndpointFile(dataDir, { url: endpoint.url, pid: process.pid, started_at: new Date().toISOString() });
  const removeOnExit = () => removeEndpointFile(dataDir);
  process.on('exit', removeOnExit);
  let closed = false;
  return {
    url: endpoint.url,
    async close() {
      if (closed) return;
      closed = true;
      process.off('exit', removeOnExit);
      removeEndpointFile(dataDir);
      await endpoint.close();
      await readers.close();
    },
  };
}
