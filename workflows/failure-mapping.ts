import { ApplicationFailure } from '@temporalio/activity';
import { classifyFailure } from '../src/sync/failure.ts';

/**
 * A job's failure as Temporal should see it: non-retryable when the interface says repeating
 * cannot help, otherwise retryable — with the venue's own wait as the next retry delay when it
 * named one (`retry_after`). The failure type is the venue's code, so it shows in the UI.
 */
export function toApplicationFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const decision = classifyFailure(error);
  return ApplicationFailure.create({
    message: decision.reason,
    type: decision.type,
    nonRetryable: !decision.retryable,
    nextRetryDelay: decision.retryable ? decision.delayMs : undefined,
    cause: error instanceof Error ? error : undefined,
  });
}
