import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { StreamEndpoint, StreamLimits } from './protocol.ts';
import { frameTail, frameText } from './envelope.ts';

/** Malformed frames a fault can inject; see README, "Fault injection". */
export type MalformedVariant = 'invalid_json' | 'wrong_types' | 'unknown_kind' | 'unknown_fields' | 'oversized';

/** What every stream hub shares: the venue's clock, the heartbeat period, the limits, the frames-sent tally. */
export interface StreamSettings {
  clock: Clock;
  heartbeatMs: number;
  limits: StreamLimits;
  sent: FramesSent;
}

/**
 * Frames handed to a transport on any connection since the venue started (a duplicate twice, a
 * malformed frame once; SSE heartbeat comments are not frames). A test driving venue time compares
 * it with the frames its client received, to know delivery is complete before it moves time again.
 */
export class FramesSent {
  count = 0;
}

/** A new connection's settings, opened now with a fresh id. */
export function openConnection(
  settings: StreamSettings,
  endpoint: StreamEndpoint,
  ip: string,
  covers: () => Record<string, unknown>,
): ConnectionInit {
  return {
    id: randomUUID(),
    endpoint,
    ip,
    openedAtMs: settings.clock.now(),
    heartbeatMs: settings.heartbeatMs,
    slowConsumerBytes: settings.limits.slowConsumerBytes,
    covers,
    sent: settings.sent,
  };
}

/** What every connection is opened with. */
export interface ConnectionInit {
  id: string;
  endpoint: StreamEndpoint;
  ip: string;
  openedAtMs: number;
  heartbeatMs: number;
  /** Unsent bytes beyond which the connection is cut off. */
  slowConsumerBytes: number;
  /** What the connection covers now (subjects, account, symbols), for fault records and the control endpoint. */
  covers: () => Record<string, unknown>;
  sent: FramesSent;
}

/**
 * One open stream connection, whatever its transport. It numbers frames (`seq`, from 1), sends
 * heartbeats on the clock, and carries the per-connection faults: silence (frames are numbered
 * and dropped, so a client sees the jump), duplicates (a frame sent twice with its number), and
 * extra unknown fields on the next frames.
 */
export abstract class StreamConnection {
  seq = 0;
  silentUntilMs = -Infinity;
  duplicateUntilMs = -Infinity;
  unknownFieldFrames = 0;
  closed = false;
  #nextHeartbeatMs: number;
  /** Delivery stamp: the last fan-out this connection got a frame from (no frame twice per fan-out). */
  stamp = 0;

  readonly id: string;
  readonly endpoint: StreamEndpoint;
  readonly ip: string;
  readonly openedAtMs: number;
  protected readonly slowConsumerBytes: number;
  readonly #heartbeatMs: number;
  readonly #covers: () => Record<string, unknown>;
  readonly #sent: FramesSent;

  constructor(init: ConnectionInit) {
    this.id = init.id;
    this.endpoint = init.endpoint;
    this.ip = init.ip;
    this.openedAtMs = init.openedAtMs;
    this.slowConsumerBytes = init.slowConsumerBytes;
    this.#heartbeatMs = init.heartbeatMs;
    this.#covers = init.covers;
    this.#sent = init.sent;
    this.#nextHeartbeatMs = init.openedAtMs + init.heartbeatMs;
  }

  describe(): Record<string, unknown> {
    return {
      connection_id: this.id,
      endpoint: this.endpoint,
      opened_at: new Date(this.openedAtMs).toISOString(),
      ...this.#covers(),
    };
  }

  /** Sends one numbered frame of the WebSocket envelope; the tail is `frameTail(...)`. */
  send(type: string, tail: string, nowMs: number): void {
    if (this.closed) return;
    const seq = ++this.seq;
    this.emit(frameText(type, seq, tail), type, seq, nowMs);
  }

  /** Sends an already numbered frame through the connection's faults. */
  protected emit(text: string, type: string, seq: number, nowMs: number): void {
    if (this.closed || nowMs < this.silentUntilMs) return;
    if (this.unknownFieldFrames > 0 && type !== 'heartbeat') {
      this.unknownFieldFrames--;
      text = withUnknownFields(text);
    }
    this.#written(this.write(text, type, seq));
    if (nowMs < this.duplicateUntilMs) this.#written(this.write(text, type, seq));
  }

  #written(handed: boolean): void {
    if (handed) this.#sent.count += 1;
  }

  tick(nowMs: number): void {
    if (this.closed || nowMs < this.#nextHeartbeatMs) return;
    // On the grid of the open instant; after a long jump of the clock, one heartbeat, not a burst.
    while (this.#nextHeartbeatMs <= nowMs) this.#nextHeartbeatMs += this.#heartbeatMs;
    if (nowMs < this.silentUntilMs) return;
    this.heartbeat(nowMs);
  }

  /** Frames of a fault that are not well-formed frames of this protocol; they take no frame number. */
  sendMalformed(
    variant: Exclude<MalformedVariant, 'unknown_fields' | 'unknown_kind'>,
    nowMs: number,
    oversizedBytes: number,
  ): void {
    if (this.closed) return;
    this.#written(this.write(malformedText(variant, this.seq, nowMs, oversizedBytes), 'malformed', undefined));
  }

  protected heartbeat(nowMs: number): void {
    this.send('heartbeat', frameTail(nowMs), nowMs);
  }

  /** Writes one frame on the transport; false when the transport is gone and nothing was written. */
  protected abstract write(text: string, type: string, seq: number | undefined): boolean;
  /** Ends the connection abruptly, without a close frame (clients see 1006 or a reset). */
  abstract drop(): void;
  /** Ends the connection politely with a close code. */
  abstract closeWith(code: number, reason: string): void;
}

/** Fields no client knows, in the envelope and in `data` (or at the top of an SSE event). */
function withUnknownFields(text: string): string {
  if (text.includes('"data":{'))
    return text.replace('"data":{', '"x_venue_hint":{"note":"unknown field"},"data":{"x_extra":[1,"two",null],');
  return text.replace('{', '{"x_venue_hint":{"note":"unknown field"},');
}

function malformedText(
  variant: 'invalid_json' | 'wrong_types' | 'oversized',
  lastSeq: number,
  nowMs: number,
  oversizedBytes: number,
): string {
  const ts = new Date(nowMs).toISOString();
  switch (variant) {
    case 'invalid_json':
      return `{"type":"orderbook","seq":${lastSeq},"ts":"${ts}","data":{"kind":"snaps`;
    case 'wrong_types':
      return `{"type":"orderbook","seq":"${lastSeq}","ts":${nowMs},"data":{"kind":"snapshot","token_id":12345,"sequence":"x","bids":{"price_micro":0.5},"asks":null}}`;
    case 'oversized':
      return `{"type":"orderbook","ts":"${ts}","data":{"kind":"snapshot","padding":"${'x'.repeat(Math.max(0, oversizedBytes))}"}}`;
  }
}
