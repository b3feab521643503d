import type { ReadExecutor, ReadRequest, ReadChunk } from './chdb-read-sessions.ts';

/** Told how long each query of the endpoint took, in seconds, and whether it answered. */
export type QueryTimer = (seconds: number, outcome: 'ok' | 'error') => void;

/**
 * The endpoint's executor, timed: a wrapper, so the endpoint itself knows nothing of metrics. A
 * query is timed from its start to its last chunk (an answer is streamed as chDB produces it); one
 * the client leaves early counts as answered.
 */
export function timedExecutor(executor: ReadExecutor, observe: QueryTimer): ReadExecutor {
  return {
    async *stream(request: ReadRequest): AsyncIterable<ReadChunk> {
      const started = performance.now();
      let outcome: 'ok' | 'error' = 'ok';
      try {
        yield* executor.stream(request);
      } catch (error) {
        outcome = 'error';
        throw error;
      } finally {
        observe((performance.now() - started) / 1000, outcome);
      }
    },
    serverVersion: () => executor.serverVersion(),
    tableFunctions: () => executor.tableFunctions(),
    close: () => executor.close(),
  };
}
