import { setMaxListeners } from 'node:events';

/**
 * Runs `work` with a signal of its own that follows `parent`. REST calls hang abort listeners on
 * the signal they are given (the api rate limiter leaves one behind per call), so capture never
 * hands them its long-lived stop signal: the listeners go away with the child.
 */
export async function scoped<T>(parent: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const child = new AbortController();
  // One read of the catalogue is dozens of calls on this signal, all finished with it.
  setMaxListeners(0, child.signal);
  const onAbort = (): void => child.abort(parent.reason);
  if (parent.aborted) child.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(child.signal);
  } finally {
    parent.removeEventListener('abort', onAbort);
  }
}
