/**
 * What a stream connection hands to capture. A stream is one logical feed (the market socket for a
 * set of subscriptions, the account socket, the portfolio SSE) kept alive across many connections.
 */

/** One frame as received, before any parsing: capture parses, and keeps `raw` either way. */
export interface Frame {
  /** Our id for the connection that carried it; a new one on each reconnect. */
  connectionId: string;
  /**
   * Our number for that connection, which orders connections: unique in the process and growing
   * with the connection's start time (its start in µs since the epoch, raised past the previous
   * number). Absent on frames not read from a connection of ours (recorded frames replayed).
   */
  connectionNo?: number;
  /** The frame's number on its connection, from 0. */
  frameNo: number;
  /** When we received it, µs since the Unix epoch. */
  receivedAtUs: bigint;
  raw: string;
  /** The SSE event's `id:` line, when it had one (the venue's number of the event). */
  eventId?: string;
}

/** Why coverage of a stream was lost. */
export type CoverageLossReason =
  /** The server or the network closed the connection. */
  | 'closed'
  /** No frame, not even a heartbeat, within the silence tolerance: the view is untrusted. */
  | 'silent'
  /** We dropped the connection on request (an error frame's `action`, a `sequence_reset`). */
  | 'reconnect_requested'
  /** We are shutting down. */
  | 'stopped';

export interface CoverageLoss {
  connectionId: string;
  reason: CoverageLossReason;
  detail: string;
  /** The last frame received on the lost connection (the last instant covered), if any. */
  lastFrameAtUs: bigint | null;
  /** When the loss was noticed, µs since the epoch. */
  noticedAtUs: bigint;
}

/** A refused or failed connection attempt (while coverage is already lost). */
export interface AttemptFailure {
  attempt: number;
  /** HTTP status of a refused upgrade or SSE request, when there was one. */
  status: number | null;
  /** The refusal's `code` (problem+json), when its body had one. */
  code: string | null;
  /** Seconds the server asked us to wait (Retry-After), when it did. */
  retryAfterSeconds: number | null;
  detail: string;
}

/** The live connection, as seen by the handlers. */
export interface StreamSession {
  readonly connectionId: string;
  readonly openedAtUs: bigint;
  /** Sends a JSON message (a subscription); a no-op on streams that cannot send (SSE). */
  send(message: unknown): void;
  /** Drops this connection and reconnects (an error frame's `action`, a `sequence_reset`). */
  reconnect(detail: string): void;
}

export interface StreamHandlers {
  /** A connection is open: (re)subscribe, re-seed. Coverage resumes from here. */
  onOpen?(session: StreamSession): void | Promise<void>;
  onFrame(frame: Frame, session: StreamSession): void;
  onCoverageLost?(loss: CoverageLoss): void;
  /**
   * A failed attempt. A number returned is the wait (ms) before the next attempt instead of the
   * backoff (an endpoint this deployment does not offer is asked again much later).
   */
  onAttemptFailed?(failure: AttemptFailure): number | void;
}
