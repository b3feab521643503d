import type { Connection } from '@temporalio/client';
import type { Logger } from '../util/log.ts';

export interface ReadyOptions {
  address: string;
  namespace: string;
  /** Give up after this long (0: one attempt). */
  waitMs: number;
  log: Logger;
}

const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 5_000;
// A server that is up answers in milliseconds; one that is not is tried again soon.
const ATTEMPT_TIMEOUT_MS = 2_000;

/**
 * A connection to Temporal once it answers for the namespace. On a first `docker compose up`,
 * `schedules apply` starts while the server is still setting up its schema and namespace: instead
 * of failing on the first refused connection, it tries again (1 s, 2 s, 4 s, then every 5 s), says
 * so on each attempt, and gives up with the last error after `waitMs`.
 */
export async function connectWhenReady(options: ReadyOptions): Promise<Connection> {
  // Loaded here, so commands that do not talk to Temporal do not pay for its client.
  const { Connection } = await import('@temporalio/client');
  const deadline = Date.now() + options.waitMs;
  let pause = FIRST_PAUSE_MS;
  for (let attempt = 1; ; attempt++) {
    let connection: Connection | undefined;
    try {
      const connectTimeout = Math.max(1_000, Math.min(ATTEMPT_TIMEOUT_MS, deadline - Date.now()));
      connection = await Connection.connect({ address: options.address, connectTimeout });
      // The namespace is created by a job of its own: wait for it too.
      await connection.workflowService.describeNamespace({ namespace: options.namespace });
      if (attempt > 1) options.log.info({ address: options.address, attempt }, 'Temporal answers');
      return connection;
    } catch (error) {
      await connection?.close().catch(() => undefined);
      const reason =
        error instanceof Error
          ? error.cause instanceof Error
            ? `${error.message}: ${error.cause.message}`
            : error.message
          : String(error);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `Temporal at ${options.address} (namespace ${options.namespace}) did not answer within ${Math.round(options.waitMs / 1000)} s, ${attempt} attempt(s): ${reason}`,
          { cause: error },
        );
      }
      const wait = Math.min(pause, left);
      options.log.warn(
        { address: options.address, namespace: options.namespace, attempt, retryInMs: wait, reason },
        'Temporal not answering yet; trying again',
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
      pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
    }
  }
}
