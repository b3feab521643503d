import type { Activity, Fill, Order } from '../api/schemas/index.ts';
import type { Json } from '../bus/record.ts';
import type { SyncDeps, SyncTuning } from './deps.ts';
import { timeMs } from './pass.ts';

/**
 * Whether an item can still change, so an incremental pass must read it again next time. Unknown
 * statuses count as still changing (safe: read again); anything older than the open horizon
 * counts as settled, so one odd item cannot make every pass read the whole history — except a
 * provisional status within its grace (below), which the horizon does not cut short.
 *
 * CANCELLED is provisional (§3.1: a late fill turns it MATCHED; an order removed at its GTD expiry
 * reads CANCELLED too, and "fills [are] possible until removed"). The interface gives no bound and
 * no time of the cancellation (an expiry has no `cancel_requested_at`; an activity has no cancel
 * time at all), so the grace (`lateFillGraceMs`, 10 min) runs from when a pass first **observed**
 * the status: `ProvisionalSince` keeps those instants in the job's state.
 */

const FINAL_ORDER_STATUSES: ReadonlySet<string> = new Set(['MATCHED', 'REJECTED', 'FAILED']);
// Fill statuses are not listed by the interface; these are the settlement outcomes it implies.
const FINAL_FILL_STATUSES: ReadonlySet<string> = new Set(['CONFIRMED', 'FAILED']);
const FINAL_ACTIVITY_STATUSES: ReadonlySet<string> = new Set([...FINAL_ORDER_STATUSES, ...FINAL_FILL_STATUSES]);
const PROVISIONAL_STATUSES: ReadonlySet<string> = new Set(['CANCELLED']);

type Tuning = Pick<SyncTuning, 'lateFillGraceMs' | 'openHorizonMs'>;

function beyondHorizon(atMs: number | undefined, nowMs: number, tuning: Tuning): boolean {
  return atMs !== undefined && nowMs - atMs > tuning.openHorizonMs;
}

/** Whether a status is provisional (§3.1): terminal for now, but a late fill can still change it. */
export function isProvisional(status: string | undefined): boolean {
  return status !== undefined && PROVISIONAL_STATUSES.has(status);
}

/**
 * When each item was first observed in a provisional status, by item id (ms since the epoch):
 * plain data kept in the job's state between passes. An item leaves it when its status moves on,
 * or when its grace has passed and this pass did not read it (it lies below the frontier now; one
 * still read keeps its first sighting, so its grace is not started again).
 */
export class ProvisionalSince {
  readonly #since: Map<string, number>;
  readonly #seen = new Set<string>();

  constructor(saved: Json | undefined) {
    this.#since = new Map();
    if (typeof saved === 'object' && saved !== null && !Array.isArray(saved)) {
      for (const [id, at] of Object.entries(saved)) if (typeof at === 'number') this.#since.set(id, at);
    }
  }

  /** Notes an item's status as read now; the instant it was first seen provisional, or undefined when it is not. */
  observe(id: string, status: string | undefined, nowMs: number): number | undefined {
    if (!isProvisional(status)) {
      this.#since.delete(id);
      return undefined;
    }
    const since = this.#since.get(id) ?? nowMs;
    this.#since.set(id, since);
    this.#seen.add(id);
    return since;
  }

  /** What to save: the items within their grace, and those this pass read. */
  saved(nowMs: number, tuning: Tuning): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, at] of this.#since) if (this.#seen.has(id) || nowMs - at <= tuning.lateFillGraceMs) out[id] = at;
    return out;
  }
}

/** Settled unless still provisional: `provisionalSinceMs` from `ProvisionalSince.observe` (undefined: not provisional,
 * or not tracked). */
function provisionalOpen(
  status: string | undefined,
  provisionalSinceMs: number | undefined,
  nowMs: number,
  tuning: Tuning,
): boolean | undefined {
  if (!isProvisional(status)) return undefined;
  // Not observed by a tracker: open for the whole grace from now, i.e. open.
  return provisionalSinceMs === undefined || nowMs - provisionalSinceMs <= tuning.lateFillGraceMs;
}

export function orderSettled(order: Order, nowMs: number, tuning: Tuning, provisionalSinceMs?: number): boolean {
  const open = provisionalOpen(order.status, provisionalSinceMs, nowMs, tuning);
  if (open !== undefined) return !open;
  if (beyondHorizon(timeMs(order.created_at), nowMs, tuning)) return true;
  return FINAL_ORDER_STATUSES.has(order.status) || (order.is_terminal === true && !isProvisional(order.status));
}

export function fillSettled(fill: Fill, nowMs: number, tuning: Tuning): boolean {
  return FINAL_FILL_STATUSES.has(fill.status ?? '') || beyondHorizon(timeMs(fill.executed_at), nowMs, tuning);
}

/** An ORDER activity mirrors its order's status; other activities (deposits, splits) settle as CONFIRMED or FAILED. */
export function activitySettled(
  activity: Activity,
  nowMs: number,
  tuning: Tuning,
  provisionalSinceMs?: number,
): boolean {
  const open = provisionalOpen(activity.status, provisionalSinceMs, nowMs, tuning);
  if (open !== undefined) return !open;
  if (beyondHorizon(timeMs(activity.created_at), nowMs, tuning)) return true;
  return FINAL_ACTIVITY_STATUSES.has(activity.status ?? '');
}

/**
 * A late fill is listed with its `executed_at` before the cancel that it turned (§3.1), possibly
 * below a fill list's frontier: a fill list's frontier never passes `now − lateFillGraceMs`.
 */
export function lateFillFloor(
  frontierMs: number | undefined,
  passStartMs: number,
  deps: Pick<SyncDeps, 'tuning'>,
): number {
  const floor = passStartMs - deps.tuning.lateFillGraceMs;
  return frontierMs === undefined ? floor : Math.min(frontierMs, floor);
}
