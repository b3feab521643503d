import {
  AuthenticationError,
  ExchangeUnavailableError,
  InvalidArgumentError,
  InvalidRequestError,
  PermissionError,
  ResponseShapeError,
  TransportError,
  VenueError,
} from '../api/errors.ts';
import { CursorLoopError } from '../api/paging.ts';
import { DEFAULT_RETRY_POLICY, effectiveStrategy, retryAfterDelay } from '../api/recovery.ts';
import { BusError } from '../bus/bus.ts';
import { PayloadError } from '../bus/record.ts';

/** Whether a failed job run should be tried again, how soon, and under which name. */
export type FailureDecision =
  | { retryable: false; type: string; reason: string }
  | {
      retryable: true;
      type: string;
      reason: string;
      /** The venue's own wait (retry_after); otherwise the scheduler's backoff. */ delayMs?: number;
    };

/**
 * A failure that came out of a job (after the client's own retries) in the terms of §7.2:
 * - `none` (and unknown codes, unknown strategies, identity refresh, check_status), validation and
 *   authentication/permission codes: repeating cannot help — not retried;
 * - `retry_after` (429 rate_limited, 425 pnl_not_ready, …): retried after the venue's wait;
 * - `retry`, lost connections, positions unavailable, a bus hiccup: retried with backoff;
 * - answers we cannot read, cursor loops, records too large: not retried (a person must look).
 */
export function classifyFailure(error: unknown): FailureDecision {
  if (error instanceof VenueError) return venueDecision(error);
  const type = error instanceof Error ? error.name : 'Error';
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof TransportError || error instanceof ExchangeUnavailableError)
    return { retryable: true, type, reason };
  if (
    error instanceof ResponseShapeError ||
    error instanceof CursorLoopError ||
    error instanceof InvalidArgumentError ||
    error instanceof PayloadError
  ) {
    return { retryable: false, type, reason };
  }
  if (error instanceof BusError) {
    const permanent = error.code === 'record_too_large' || error.code === 'unknown_topic';
    return permanent
      ? { retryable: false, type: `bus_${error.code}`, reason }
      : { retryable: true, type: `bus_${error.code}`, reason };
  }
  return { retryable: true, type, reason };
}

function venueDecision(error: VenueError): FailureDecision {
  const type = error.code ?? `http_${error.status}`;
  const reason = error.message;
  if (
    error instanceof AuthenticationError ||
    error instanceof PermissionError ||
    error instanceof InvalidRequestError
  ) {
    return { retryable: false, type, reason };
  }
  switch (effectiveStrategy(error)) {
    case 'retry_after':
      return {
        retryable: true,
        type,
        reason,
        delayMs: Math.round(retryAfterDelay(error, 1, DEFAULT_RETRY_POLICY, Math.random)),
      };
    case 'retry':
      return { retryable: true, type, reason };
    default:
      return { retryable: false, type, reason };
  }
}
