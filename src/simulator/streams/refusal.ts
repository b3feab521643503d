import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { toJson } from '../wire/json.ts';
import { edgeRateLimitedBody, problemBody } from '../wire/problem.ts';
import type { Rejection } from '../problems.ts';

/**
 * Refusing a stream connection: an HTTP response instead of the stream, the same whether it
 * answers a WebSocket upgrade (written on the raw socket) or an SSE request.
 */
export interface Refusal {
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: unknown;
}

/** §8.5 (and the edge, §7.8): 429, `Retry-After` (60 for stream attempts), application/json, `rate_limited`. */
export function rateLimitedRefusal(afterSeconds = 60): Refusal {
  return {
    status: 429,
    contentType: 'application/json',
    headers: { 'Retry-After': String(afterSeconds) },
    body: edgeRateLimitedBody(afterSeconds),
  };
}

export function problemRefusal(rejection: Rejection): Refusal {
  const requestId = randomUUID();
  return {
    status: rejection.status,
    contentType: 'application/problem+json',
    headers: { ...rejection.headers, 'X-Request-ID': requestId },
    body: problemBody(requestId, rejection),
  };
}

export function refuseUpgrade(socket: Duplex, refusal: Refusal): void {
  const body = toJson(refusal.body);
  const lines = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`,
    `Content-Type: ${refusal.contentType}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(refusal.headers).map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
    '',
    body,
  ];
  socket.end(lines.join('\r\n'));
}

export function refuseRequest(res: ServerResponse, refusal: Refusal): void {
  const body = toJson(refusal.body);
  res.writeHead(refusal.status, {
    ...refusal.headers,
    'Content-Type': refusal.contentType,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
