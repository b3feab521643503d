import type { Prng } from '../prng.ts';
import { Rejection, type Recovery } from '../problems.ts';
import type { FaultRecord } from './fault-spec.ts';

/** What the REST server asks while it serves a request; see http/server.ts. */
export interface RestFaultHooks {
  /** A refusal to answer with instead of running the request, if a fault says so. */
  before(method: string, path: string, nowMs: number): Rejection | undefined;
  /** After a write ran: a 504 `dependency_outcome_unknown` pointing at what the write created, if a fault says so. */
  after(method: string, path: string, body: unknown, nowMs: number): Rejection | undefined;
  positionsUnavailable(nowMs: number): boolean;
  /** A list page read at a cursor hands that cursor back (a venue that would be paged forever). */
  repeatCursor(path: string, nowMs: number): boolean;
}

const PNL_PATH = '/trade/v1/portfolio/pnl';
const PER_ORDER_READ = /^\/trade\/v1\/orders\/(?!by-hash\/)[^/]+(\/trades)?$/;
const WRITE_PATHS = ['/trade/v1/orders', '/trade/v1/batches'];

function retryAfter(code: 'rate_limited' | 'dependency_unavailable', seconds: number, detail: string): Rejection {
  const recovery: Recovery = { strategy: 'retry_after', after_seconds: seconds };
  return new Rejection(code, detail, undefined, recovery, { 'Retry-After': String(seconds) });
}

/** The REST side of fault injection, reading the faults active now. */
export class RestFaults implements RestFaultHooks {
  constructor(
    private readonly active: (nowMs: number) => FaultRecord[],
    private readonly rng: Prng,
  ) {}

  before(method: string, path: string, nowMs: number): Rejection | undefined {
    for (const fault of this.#hitting(path, nowMs)) {
      const s = fault.spec;
      const seconds = Math.max(1, Math.round(s.retry_after_seconds ?? 1));
      switch (s.kind) {
        case 'rest_rate_limit_storm':
          return retryAfter('rate_limited', seconds, 'Too many requests (injected storm).');
        case 'rest_server_error':
          if (s.strategy === 'none')
            return new Rejection(s.code ?? 'internal_error', 'Injected server error; do not retry automatically.');
          if (s.strategy === 'retry_after')
            return retryAfter('dependency_unavailable', seconds, 'Injected outage; retry after the delay.');
          return new Rejection('dependency_unavailable', 'Injected outage; back off and retry.');
        case 'order_not_visible':
          // §7.5: an order the lists still show, that the per-order reads say is not there (or not visible).
          if (method === 'GET' && PER_ORDER_READ.test(path))
            return new Rejection('order_not_found', 'No such order (injected: not visible to per-order reads).');
          break;
        case 'pnl_not_ready':
          if (method === 'GET' && path === PNL_PATH) return pnlNotReady(fault, nowMs);
          break;
        default:
          break;
      }
    }
    return undefined;
  }

  after(method: string, path: string, body: unknown, nowMs: number): Rejection | undefined {
    if ((method !== 'POST' && method !== 'DELETE') || !WRITE_PATHS.some((p) => path.startsWith(p))) return undefined;
    if (!this.#hitting(path, nowMs).some((f) => f.spec.kind === 'dependency_outcome_unknown')) return undefined;
    const b = (body ?? {}) as { internal_id?: string; batch?: { batch_hash?: string } };
    let resource: Record<string, string> | undefined;
    if (b.internal_id) resource = { kind: 'order', order_id: b.internal_id };
    else if (b.batch?.batch_hash) resource = { kind: 'batch', batch_hash: b.batch.batch_hash };
    if (!resource) return undefined;
    return new Rejection(
      'dependency_outcome_unknown',
      'The write may have been applied; read the resource before anything else.',
      undefined,
      {
        strategy: 'check_status',
        resource,
      },
    );
  }

  positionsUnavailable(nowMs: number): boolean {
    return this.active(nowMs).some((f) => f.spec.kind === 'unavailable_exchanges');
  }

  repeatCursor(path: string, nowMs: number): boolean {
    return this.#hitting(path, nowMs).some((f) => f.spec.kind === 'repeat_cursor');
  }

  /** Active REST faults whose paths include this one, each drawn against its fraction. */
  #hitting(path: string, nowMs: number): FaultRecord[] {
    return this.active(nowMs).filter(
      (f) => path.startsWith(f.spec.path_prefix ?? '/') && this.rng.chance(f.spec.fraction ?? 1),
    );
  }
}

function pnlNotReady(fault: FaultRecord, nowMs: number): Rejection {
  const seconds = Math.max(1, Math.ceil((fault.endMs - nowMs) / 1000));
  return new Rejection(
    'pnl_not_ready',
    'PnL is being recomputed; wait and repeat.',
    undefined,
    { strategy: 'retry_after', after_seconds: seconds },
    { 'Retry-After': String(seconds) },
  );
}
