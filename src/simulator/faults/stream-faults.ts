import { frameTail } from '../streams/envelope.ts';
import type { StreamConnection } from '../streams/connection.ts';
import { ACCOUNT_CHANNEL, CLOSE_CODES, type StreamEndpoint } from '../streams/protocol.ts';
import { SseConnection } from '../streams/sse-connection.ts';
import type { StreamServer } from '../streams/stream-server.ts';
import { errorData } from '../streams/wire.ts';
import { WsConnection } from '../streams/ws-connection.ts';
import type { Agenda } from '../lifecycle/agenda.ts';
import type { FaultSpec } from './fault-spec.ts';

const DEFAULT_OVERSIZED_BYTES = 2 * 1024 * 1024;

/** Error frames and sequence resets exist on the two WebSockets only. */
const WEBSOCKET_ONLY = new Set(['error_frame', 'sequence_reset']);

/** The connections a stream fault hits: one by id, or every open one of the endpoint (default market). */
export function targets(streams: StreamServer, spec: FaultSpec): StreamConnection[] {
  const endpoint: StreamEndpoint = spec.endpoint ?? 'market';
  return streams
    .connections()
    .filter((c) => !c.closed && (spec.connection_id ? c.id === spec.connection_id : c.endpoint === endpoint))
    .filter((c) => !WEBSOCKET_ONLY.has(spec.kind) || c instanceof WsConnection);
}

/**
 * Applies a stream fault now and returns what it hit (the scope the ground truth records).
 * `endMs` is when a fault with a duration stops; `later` runs the end of a delayed one.
 */
export function applyStreamFault(
  streams: StreamServer,
  spec: FaultSpec,
  nowMs: number,
  endMs: number,
  later: Agenda<(nowMs: number) => void>,
): Record<string, unknown> {
  const endpoint = spec.endpoint ?? 'market';
  if (spec.kind === 'refuse_connections') {
    streams.refuse(endpoint, endMs);
    return { endpoint };
  }
  const hit = targets(streams, spec);
  const scope = { endpoint, connections: hit.map((c) => c.describe()) };
  for (const conn of hit) {
    switch (spec.kind) {
      case 'drop_connection':
        conn.drop();
        break;
      case 'silence':
        conn.silentUntilMs = endMs;
        break;
      case 'duplicate_frames':
        conn.duplicateUntilMs = endMs;
        break;
      case 'sequence_reset':
        // Frames of the gap are lost (numbered, not sent); the reset frame follows it.
        conn.silentUntilMs = endMs;
        later.at(endMs, (at) => sendSequenceReset(streams, conn, spec.token_ids, at));
        break;
      case 'error_frame':
        sendErrorFrame(streams, conn, spec, nowMs);
        break;
      case 'malformed_frames':
        sendMalformed(conn, spec, nowMs);
        break;
    }
  }
  return scope;
}

export function sendSequenceReset(
  streams: StreamServer,
  conn: StreamConnection,
  tokenIds: string[] | undefined,
  nowMs: number,
): void {
  if (conn.closed) return;
  let data: Record<string, unknown>;
  if (conn.endpoint === 'market' && conn instanceof WsConnection) {
    data = { reason: 'venue sequence reset', token_ids: tokenIds ?? streams.market.coveredTokens(conn) };
  } else {
    data = { reason: 'venue sequence reset', channels: [ACCOUNT_CHANNEL] };
  }
  conn.send('sequence_reset', frameTail(nowMs, JSON.stringify(data)), nowMs);
}

function sendErrorFrame(streams: StreamServer, conn: StreamConnection, spec: FaultSpec, nowMs: number): void {
  if (!(conn instanceof WsConnection)) return;
  const action = spec.action ?? 'keep';
  const code = spec.code ?? 'dependency_unavailable';
  const extra: Record<string, unknown> = {};
  if (action === 'resubscribe') {
    const subject = conn.endpoint === 'market' ? streams.market.index.subjectsOf(conn)[0] : undefined;
    if (subject) {
      streams.market.dropSubject(conn, subject);
      extra.subject = { channel: subject.channel, [`${subject.kind}_id`]: subject.id };
    } else if (conn.endpoint === 'account') {
      streams.account.unsubscribe(conn);
      extra.subject = { channel: ACCOUNT_CHANNEL };
    }
  }
  const detail = {
    keep: 'A venue component restarted; this connection is unaffected.',
    resubscribe: 'The subscription was dropped; subscribe again.',
    reconnect: 'This connection is being closed; reconnect.',
  }[action];
  conn.send('error', frameTail(nowMs, errorData(code, detail, action, extra)), nowMs);
  if (action === 'reconnect') conn.closeWith(CLOSE_CODES.reconnect, 'reconnect');
}

function sendMalformed(conn: StreamConnection, spec: FaultSpec, nowMs: number): void {
  const variant = spec.variant ?? 'invalid_json';
  const count = Math.max(1, Math.floor(spec.count ?? 1));
  if (variant === 'unknown_fields') {
    conn.unknownFieldFrames += count;
    return;
  }
  for (let i = 0; i < count; i++) {
    if (variant !== 'unknown_kind') conn.sendMalformed(variant, nowMs, spec.oversized_bytes ?? DEFAULT_OVERSIZED_BYTES);
    else if (conn instanceof SseConnection)
      conn.event('x_unknown_event', () => JSON.stringify({ type: 'x_unknown_event', note: 'unknown kind' }), nowMs);
    else {
      const channel = conn.endpoint === 'account' ? ACCOUNT_CHANNEL : 'orderbook';
      conn.send(
        channel,
        frameTail(nowMs, JSON.stringify({ kind: 'x_level_summary', note: 'a kind this client does not know' })),
        nowMs,
      );
    }
  }
}
