import { randomUUID } from 'node:crypto';
import { backoffDelay, type RandomSource, type RetryPolicy } from '../api/recovery.ts';
import type { Logger } from '../util/log.ts';
import type { ConnectionBudget } from './connection-budget.ts';
import { ConnectRefused, type OpenConnection, type Transport } from './transport.ts';
import type { CoverageLoss, CoverageLossReason, Frame, StreamHandlers, StreamSession } from './types.ts';
import { type Clock, systemClock } from '../util/clock.ts';

export interface ReconnectOptions {
  /** Attempts budget of the endpoint (§8.5), shared with the process's other connections to it. */
  budget: ConnectionBudget;
  /** No frame for this long (heartbeats arrive about every 10 s) means the view is untrusted. */
  silenceMs?: number;
  /** Backoff between attempts: exponential from `baseDelayMs` up to `maxDelayMs`, with jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A connection that stayed open this long resets the backoff. */
  stableAfterMs?: number;
  /** Drives the watchdog, backoff and budget, and stamps frames (default: the system clock). */
  clock?: Clock;
  random?: RandomSource;
  log?: Logger;
}

const DEFAULTS = { silenceMs: 30_000, baseDelayMs: 500, maxDelayMs: 30_000, stableAfterMs: 30_000 };

/**
 * Keeps one logical stream alive: connect within the attempt budget, watch for silence, report
 * every loss of coverage exactly once, back off with jitter, honour Retry-After, reconnect until
 * stopped. The transport (WebSocket or SSE) only opens and closes single connections.
 */
export class ReconnectingStream {
  readonly #options: Required<Omit<ReconnectOptions, 'log'>> & { log?: Logger };
  readonly #stopping = new AbortController();
  #current: { connection: OpenConnection; session: Session } | null = null;
  #running: Promise<void> | null = null;
  #paused = false;

  constructor(
    private readonly transport: Transport,
    private readonly handlers: StreamHandlers,
    options: ReconnectOptions,
  ) {
    this.#options = { ...DEFAULTS, clock: systemClock, random: Math.random, ...options };
  }

  start(): void {
    this.#running ??= this.#loop().catch((err: unknown) => {
      if (!this.#stopping.signal.aborted)
        this.#options.log?.error({ err, stream: this.transport.name }, 'stream loop failed');
    });
  }

  /** Closes the connection (reported as a loss with reason `stopped`) and ends the loop. */
  async stop(): Promise<void> {
    this.#stopping.abort(new Error('stream stopped'));
    this.#current?.session.drop('stopped', 'shutting down');
    await this.#running;
  }

  get connected(): boolean {
    return this.#current !== null;
  }

  /**
   * Stops reading frames (the consumer cannot keep up) until `resume`. The silence watchdog
   * does not count the pause: the venue is not silent, we are not listening.
   */
  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#current?.connection.pause();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#current?.session.touch();
    this.#current?.connection.resume();
  }

  async #loop(): Promise<void> {
    const { budget, clock, random } = this.#options;
    const signal = this.#stopping.signal;
    const policy: RetryPolicy = {
      maxAttempts: Number.POSITIVE_INFINITY,
      baseDelayMs: this.#options.baseDelayMs,
      maxDelayMs: this.#options.maxDelayMs,
      retryAfterJitterMs: 0,
    };
    let failures = 0;
    while (!signal.aborted) {
      await budget.acquire(signal);
      let connection: OpenConnection;
      const session = new Session(this.transport.name, clock);
      try {
        connection = await this.transport.open(
          { message: (raw, eventId) => session.deliver(raw, this.handlers, eventId), activity: () => session.touch() },
          signal,
        );
      } catch (err) {
        if (signal.aborted) return;
        failures += 1;
        const asked = this.#reportAttemptFailure(err, failures);
        await clock.sleep(asked ?? this.#retryDelay(err, failures, policy), signal);
        continue;
      }
      session.attach(connection);
      this.#current = { connection, session };
      if (this.#paused) connection.pause();
      const lived = await this.#serve(connection, session);
      this.#current = null;
      failures = lived >= this.#options.stableAfterMs ? 1 : failures + 1;
      if (signal.aborted) return;
      await clock.sleep(backoffDelay(failures, policy, random), signal);
    }
  }

  /** Runs one open connection to its end; returns how long it lived (ms). */
  async #serve(connection: OpenConnection, session: Session): Promise<number> {
    const { clock } = this.#options;
    const openedAt = clock.now();
    const ended = new AbortController();
    const watchdog = this.#watch(session, ended.signal);
    try {
      await this.handlers.onOpen?.(session);
    } catch (err) {
      session.drop('reconnect_requested', `open handler failed: ${(err as Error).message}`);
    }
    const { detail } = await connection.ended;
    ended.abort();
    await watchdog;
    const loss = session.loss(detail);
    this.handlers.onCoverageLost?.(loss);
    // Our own stop (Ctrl-C) ends every stream: recorded as coverage as always, but nothing for a
    // person to read six times over at each stop.
    this.#options.log?.[loss.reason === 'stopped' ? 'debug' : 'info'](
      {
        stream: this.transport.name,
        ...loss,
        lastFrameAtUs: loss.lastFrameAtUs?.toString(),
        noticedAtUs: loss.noticedAtUs.toString(),
      },
      'stream coverage lost',
    );
    return clock.now() - openedAt;
  }

  /** Drops the connection when no frame arrived within the silence tolerance. */
  async #watch(session: Session, ended: AbortSignal): Promise<void> {
    const { clock, silenceMs } = this.#options;
    try {
      for (;;) {
        if (this.#paused) session.touch();
        const left = silenceMs - (clock.now() - session.lastActivityMs);
        if (left <= 0) {
          session.drop('silent', `no frame for ${silenceMs} ms`);
          return;
        }
        await clock.sleep(left, ended);
      }
    } catch {
      // The connection ended first.
    }
  }

  #retryDelay(err: unknown, failures: number, policy: RetryPolicy): number {
    const backoff = backoffDelay(failures, policy, this.#options.random);
    if (err instanceof ConnectRefused && err.retryAfterSeconds !== null) {
      this.#options.budget.refusedFor(err.retryAfterSeconds);
      return Math.max(backoff, err.retryAfterSeconds * 1000);
    }
    return backoff;
  }

  /** Tells the handlers; returns the wait they ask for before the next attempt, if any. */
  #reportAttemptFailure(err: unknown, attempt: number): number | undefined {
    const refused = err instanceof ConnectRefused ? err : null;
    const failure = {
      attempt,
      status: refused?.status ?? null,
      code: refused?.code ?? null,
      retryAfterSeconds: refused?.retryAfterSeconds ?? null,
      detail: err instanceof Error ? err.message : String(err),
    };
    const asked = this.handlers.onAttemptFailed?.(failure);
    this.#options.log?.warn({ stream: this.transport.name, ...failure }, 'stream connection attempt failed');
    return typeof asked === 'number' ? asked : undefined;
  }
}

/** The last connection number given out in this process (see `Frame.connectionNo`). */
let lastConnectionNo = 0;

/**
 * A number for a connection starting now: its start time in µs since the epoch, raised past the
 * last one given out, so numbers are unique in the process and grow with connection start time.
 */
function nextConnectionNo(clock: Clock): number {
  lastConnectionNo = Math.max(lastConnectionNo + 1, Number(clock.epochMicros()));
  return lastConnectionNo;
}

/** One connection's state: its id, frame count, last activity, and why it was dropped. */
class Session implements StreamSession {
  readonly connectionId = randomUUID();
  readonly connectionNo: number;
  openedAtUs = 0n;
  /** Clock time of the last frame (or of the opening), for the silence watchdog. */
  lastActivityMs: number;
  #frameNo = 0;
  #lastFrameAtUs: bigint | null = null;
  #connection: OpenConnection | null = null;
  #dropped: { reason: CoverageLossReason; detail: string } | null = null;

  constructor(
    private readonly streamName: string,
    private readonly clock: Clock,
  ) {
    this.lastActivityMs = clock.now();
    this.connectionNo = nextConnectionNo(clock);
  }

  attach(connection: OpenConnection): void {
    this.#connection = connection;
    this.openedAtUs = this.clock.epochMicros();
    this.lastActivityMs = this.clock.now();
  }

  /** Called by the transport for every message, from the moment the connection opens. */
  deliver(raw: string, handlers: StreamHandlers, eventId?: string): void {
    const receivedAtUs = this.clock.epochMicros();
    this.#lastFrameAtUs = receivedAtUs;
    this.lastActivityMs = this.clock.now();
    const frame: Frame = {
      connectionId: this.connectionId,
      connectionNo: this.connectionNo,
      frameNo: this.#frameNo++,
      receivedAtUs,
      raw,
    };
    if (eventId !== undefined) frame.eventId = eventId;
    handlers.onFrame(frame, this);
  }

  touch(): void {
    this.lastActivityMs = this.clock.now();
  }

  send(message: unknown): void {
    this.#connection?.send(JSON.stringify(message));
  }

  reconnect(detail: string): void {
    this.drop('reconnect_requested', detail);
  }

  drop(reason: CoverageLossReason, detail: string): void {
    this.#dropped ??= { reason, detail };
    this.#connection?.close(detail);
  }

  /** The loss this connection's end means for coverage. */
  loss(closeDetail: string): CoverageLoss {
    const dropped = this.#dropped ?? { reason: 'closed' as const, detail: closeDetail };
    return {
      connectionId: this.connectionId,
      reason: dropped.reason,
      detail: `${this.streamName}: ${dropped.detail}`,
      lastFrameAtUs: this.#lastFrameAtUs,
      noticedAtUs: this.clock.epochMicros(),
    };
  }
}
