import { parseRetryAfter } from '../util/retry-after.ts';
import { venueErrorFor, type ErrorSource, type VenueError } from './errors.ts';
import { ProblemSchema, type Problem } from './schemas/problem.ts';

/** A finished HTTP exchange: lower-case header names, body as text. */
export interface HttpAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  text: string;
}

/**
 * Turns a non-2xx answer into its typed VenueError (§7.1). Works for problem+json from the origin,
 * the edge 429 in plain JSON without request id (§7.8), and bodies that are not JSON at all.
 * `streamConnection` marks a rejected WebSocket/SSE connection attempt (§8.5).
 */
export function errorFromAnswer(
  answer: HttpAnswer,
  endpoint: string,
  options: { streamConnection?: boolean } = {},
): VenueError {
  const body = parseJson(answer.text);
  const problem = readProblem(body);
  const requestId = problem?.request_id ?? answer.headers['x-request-id'];
  return venueErrorFor({
    status: answer.status,
    code: problem?.code,
    requestId,
    recovery: problem?.recovery,
    fieldErrors: problem?.field_errors,
    retryAfterSeconds: parseRetryAfter(answer.headers['retry-after']),
    title: problem?.title,
    detail: problem?.detail,
    type: problem?.type,
    source: sourceOf(answer.status, problem, requestId, options.streamConnection === true),
    endpoint,
    problem: body ?? answer.text,
  });
}

function sourceOf(
  status: number,
  problem: Problem | undefined,
  requestId: string | undefined,
  streamConnection: boolean,
): ErrorSource {
  if (streamConnection) return 'stream-connection';
  if (problem === undefined) return 'unreadable';
  if (status === 429 && requestId === undefined) return 'edge';
  return 'origin';
}

/**
 * Reads the problem fields one by one when the whole does not validate, so that a problem with,
 * say, a malformed `recovery` still yields its `code` (the recovery is then dropped: no automatic action).
 */
function readProblem(body: unknown): Problem | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const whole = ProblemSchema.safeParse(body);
  if (whole.success) return whole.data;
  const record = body as Record<string, unknown>;
  const pick = (key: string): string | undefined => (typeof record[key] === 'string' ? record[key] : undefined);
  return {
    code: pick('code'),
    request_id: pick('request_id'),
    title: pick('title'),
    detail: pick('detail'),
    type: pick('type'),
  };
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
