import { redirectOrigin } from '../util/redirect.ts';

export { isRedirect } from '../util/redirect.ts';

/**
 * The part of a stream connection that differs between WebSocket and SSE. The reconnect loop
 * (reconnecting-stream.ts) drives a Transport and owns everything else: budget, backoff, watchdog.
 */

export interface OpenConnection {
  /** Resolves once the connection has ended, for whatever reason; never rejects. */
  readonly ended: Promise<{ detail: string }>;
  send(text: string): void;
  /** Ends the connection now; `ended` resolves soon after. */
  close(detail: string): void;
  /** Stops reading (back-pressure: the venue's bytes wait in the network buffers) and starts again. */
  pause(): void;
  resume(): void;
}

/** Where a transport delivers what it receives. */
export interface MessageSink {
  /** One frame (WebSocket message, SSE event data); an SSE event's `id:` comes with it. */
  message(raw: string, eventId?: string): void;
  /** Proof of life that is not a frame (an SSE comment line): feeds the silence watchdog only. */
  activity(): void;
}

export interface Transport {
  /** Human name of the endpoint, for logs. */
  readonly name: string;
  /**
   * Opens one connection. Resolves when it is open; rejects with a ConnectRefused when the server
   * answered the attempt with an HTTP error, or another error when it could not be reached.
   */
  open(sink: MessageSink, signal: AbortSignal): Promise<OpenConnection>;
}

/** The server answered a connection attempt with an HTTP status instead of a stream. */
export class ConnectRefused extends Error {
  /** The answer's `code` (problem+json or the edge's JSON), when its body had one. */
  readonly code: string | null;
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number | null,
    detail: string,
  ) {
    super(`connection refused with HTTP ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'ConnectRefused';
    this.code = codeOf(detail);
  }
}

/** `code` of a JSON error body, or null (the body may be anything, or cut short). */
function codeOf(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    const code = typeof parsed === 'object' && parsed !== null ? (parsed as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/**
 * The server answered a connection attempt with a redirect. Redirects are never followed: the
 * token is sent to the configured URL only. Only the target's origin is kept for the message.
 */
export class RedirectRefused extends ConnectRefused {
  readonly location: string | null;
  constructor(status: number, location: string | string[] | undefined, base: string) {
    const target = redirectOrigin(location, base);
    super(
      status,
      null,
      `redirect to ${target ?? '(no Location)'} not followed: the token is sent to the configured URL only`,
    );
    this.name = 'RedirectRefused';
    this.location = target;
  }
}
