import type { ProblemCode } from '../problems.ts';
import type { MalformedVariant } from '../streams/connection.ts';
import { ERROR_ACTIONS, STREAM_ENDPOINTS, type ErrorAction, type StreamEndpoint } from '../streams/protocol.ts';

export const STREAM_FAULTS = [
  'drop_connection',
  'silence',
  'sequence_reset',
  'error_frame',
  'refuse_connections',
  'malformed_frames',
  'duplicate_frames',
] as const;
export const REST_FAULTS = [
  'rest_rate_limit_storm',
  'rest_server_error',
  'dependency_outcome_unknown',
  'pnl_not_ready',
  'unavailable_exchanges',
  'repeat_cursor',
  'order_not_visible',
] as const;
export type StreamFaultKind = (typeof STREAM_FAULTS)[number];
export type RestFaultKind = (typeof REST_FAULTS)[number];
export type FaultKind = StreamFaultKind | RestFaultKind;

const MALFORMED: readonly MalformedVariant[] = [
  'invalid_json',
  'wrong_types',
  'unknown_kind',
  'unknown_fields',
  'oversized',
];
const STRATEGIES = ['none', 'retry', 'retry_after'] as const;
// pnl_unavailable: a PnL service that is down (§7.5: stop retrying), for the settled-PnL continuity tests.
const NONE_CODES: readonly ProblemCode[] = ['internal_error', 'dependency_invalid_response', 'pnl_unavailable'];

/** One fault to inject, as the control endpoint and `sim.faults.inject()` take it (snake_case on the wire). */
export interface FaultSpec {
  kind: FaultKind;
  /** Stream faults: the endpoint (default `market`); every open connection of it unless `connection_id` names one. */
  endpoint?: StreamEndpoint;
  connection_id?: string;
  /** Faults with a duration: silence, duplicate_frames, refuse_connections and every REST fault. */
  duration_ms?: number;
  /** error_frame: what the client is told to do (default keep). */
  action?: ErrorAction;
  /** error_frame: the failure code (default dependency_unavailable). */
  code?: ProblemCode;
  /** malformed_frames: which kind of bad frame (default invalid_json), how many (default 1). */
  variant?: MalformedVariant;
  count?: number;
  oversized_bytes?: number;
  /** sequence_reset: the tokens named in the frame (default: everything the connection covers). */
  token_ids?: string[];
  /** sequence_reset: frames lost before the reset frame (the connection is silent that long). */
  gap_ms?: number;
  /** rest_server_error: the recovery strategy of the 5xx (default retry). */
  strategy?: (typeof STRATEGIES)[number];
  /** REST faults: the share of matching requests hit (default 1) and the paths hit (default all). */
  fraction?: number;
  path_prefix?: string;
  retry_after_seconds?: number;
}

const DURATION_DEFAULT_MS = 10_000;

export class FaultSpecError extends Error {}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw new FaultSpecError(`${field} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function nonNegative(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new FaultSpecError(`${field} must be a number ≥ 0`);
  return value;
}

/** Checks a spec from JSON; throws FaultSpecError naming the first bad field. */
export function parseFaultSpec(body: unknown): FaultSpec {
  if (typeof body !== 'object' || body === null) throw new FaultSpecError('a fault is a JSON object with a kind');
  const b = body as Record<string, unknown>;
  const kind = oneOf(b.kind, [...STREAM_FAULTS, ...REST_FAULTS], 'kind');
  if (!kind) throw new FaultSpecError('kind is required');
  const fraction = nonNegative(b.fraction, 'fraction');
  if (fraction !== undefined && fraction > 1) throw new FaultSpecError('fraction must be within [0, 1]');
  const tokenIds = b.token_ids;
  if (tokenIds !== undefined && !(Array.isArray(tokenIds) && tokenIds.every((t) => typeof t === 'string')))
    throw new FaultSpecError('token_ids must be an array of strings');
  const strings = (field: string): string | undefined => {
    if (b[field] !== undefined && typeof b[field] !== 'string') throw new FaultSpecError(`${field} must be a string`);
    return b[field] as string | undefined;
  };
  return {
    kind,
    endpoint: oneOf(b.endpoint, STREAM_ENDPOINTS, 'endpoint'),
    connection_id: strings('connection_id'),
    duration_ms: nonNegative(b.duration_ms, 'duration_ms'),
    action: oneOf(b.action, ERROR_ACTIONS, 'action'),
    code: oneOf(
      b.code,
      kind === 'rest_server_error'
        ? NONE_CODES
        : (['dependency_unavailable', 'internal_error', 'rate_limited', 'validation_failed'] as ProblemCode[]),
      'code',
    ),
    variant: oneOf(b.variant, MALFORMED, 'variant'),
    count: nonNegative(b.count, 'count'),
    oversized_bytes: nonNegative(b.oversized_bytes, 'oversized_bytes'),
    token_ids: tokenIds as string[] | undefined,
    gap_ms: nonNegative(b.gap_ms, 'gap_ms'),
    strategy: oneOf(b.strategy, STRATEGIES, 'strategy'),
    fraction,
    path_prefix: strings('path_prefix'),
    retry_after_seconds: nonNegative(b.retry_after_seconds, 'retry_after_seconds'),
  };
}

/** How long a fault lasts: its own duration, the gap of a sequence reset, or 0 for an instant one. */
export function durationOf(spec: FaultSpec): number {
  if (spec.kind === 'sequence_reset') return spec.gap_ms ?? 0;
  if (
    spec.kind === 'silence' ||
    spec.kind === 'duplicate_frames' ||
    spec.kind === 'refuse_connections' ||
    (REST_FAULTS as readonly string[]).includes(spec.kind)
  ) {
    return spec.duration_ms ?? DURATION_DEFAULT_MS;
  }
  return 0;
}

export function isRestFault(kind: FaultKind): kind is RestFaultKind {
  return (REST_FAULTS as readonly string[]).includes(kind);
}

/** One injected fault: what, where it hit, from when to when. */
export interface FaultRecord {
  id: string;
  spec: FaultSpec;
  startMs: number;
  endMs: number;
  /** What it hit: the endpoint and connections (with their subjects) of a stream fault, the paths of a REST one. */
  scope: Record<string, unknown>;
}
