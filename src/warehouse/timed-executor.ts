import type { ReadExecutor } from './chdb-read-sessions.ts';

/** Told how long each query of the endpoint took, in seconds, and whether it answered. */
export type QueryTimer = (seconds: number, outcome: 'ok' | 'error') => void;

/** The endpoint's executor, timed: a wrapper, so the endpoint itself knows nothing of metrics. */
export function timedExecutor(executor: ReadExecutor, observe: QueryTimer): ReadExecutor {
  return {
    async run(request) {
      const started = performance.now();
      try {
        const result = await executor.run(request);
        observe((performance.now() - started) / 1000, 'ok');
        return result;
      } catch (error) {
        observe((performance.now() - started) / 1000, 'error');
        throw error;
      }
    },
    close: () => executor.close(),
  };
}
