import type { ServerResponse } from 'node:http';
import type { Rejection } from '../problems.ts';
import { sendJson } from './json.ts';

/** The body of a problem+json response (§7.1). */
export function problemBody(requestId: string, rejection: Rejection): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: `urn:service:problem:${rejection.code.replace(/_/g, '-')}`,
    title: rejection.title,
    status: rejection.status,
    code: rejection.code,
    request_id: requestId,
    recovery: rejection.recovery,
  };
  if (rejection.detail) body.detail = rejection.detail;
  if (rejection.fieldErrors) body.field_errors = rejection.fieldErrors;
  return body;
}

/** problem+json of §7.1; `request_id` equals the X-Request-ID header set on every origin response. */
export function sendProblem(
  res: ServerResponse,
  requestId: string,
  rejection: Rejection,
  headers: Record<string, string> = {},
): void {
  sendJson(res, rejection.status, problemBody(requestId, rejection), 'application/problem+json', {
    ...headers,
    ...rejection.headers,
    'X-Request-ID': requestId,
  });
}

/** The edge's own 429 (§7.8) and the stream attempt limit's (§8.5): plain JSON, no request id, no account headers. */
export function edgeRateLimitedBody(afterSeconds: number): Record<string, unknown> {
  return {
    code: 'rate_limited',
    title: 'Too many requests',
    recovery: { strategy: 'retry_after', after_seconds: afterSeconds },
  };
}

export function sendEdgeRateLimited(res: ServerResponse, afterSeconds: number): void {
  sendJson(res, 429, edgeRateLimitedBody(afterSeconds), 'application/json', { 'Retry-After': String(afterSeconds) });
}
