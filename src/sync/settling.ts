import type { Activity, Fill, Order } from '../api/schemas/index.ts';
import type { SyncTuning } from './deps.ts';
import { timeMs } from './pass.ts';

/**
 * Whether an item can still change, so an incremental pass must read it again next time. Unknown
 * statuses count as still changing (safe: read again); anything older than the open horizon
 * counts as settled, so one odd item cannot make every pass read the whole history.
 */

const FINAL_ORDER_STATUSES: ReadonlySet<string> = new Set(['MATCHED', 'REJECTED', 'FAILED']);
// Fill statuses are not listed by the interface; these are the settlement outcomes it implies.
const FINAL_FILL_STATUSES: ReadonlySet<string> = new Set(['CONFIRMED', 'FAILED']);
const FINAL_ACTIVITY_STATUSES: ReadonlySet<string> = new Set([...FINAL_ORDER_STATUSES, ...FINAL_FILL_STATUSES]);
const CANCELLED = 'CANCELLED';

type Tuning = Pick<SyncTuning, 'lateFillGraceMs' | 'openHorizonMs'>;

function beyondHorizon(atMs: number | undefined, nowMs: number, tuning: Tuning): boolean {
  return atMs !== undefined && nowMs - atMs > tuning.openHorizonMs;
}

/** CANCELLED is provisional (§3.1: a late fill can turn it MATCHED): settled once the grace has passed. */
function cancelledLongEnough(sinceMs: number | undefined, nowMs: number, tuning: Tuning): boolean {
  return sinceMs !== undefined && nowMs - sinceMs > tuning.lateFillGraceMs;
}

export function orderSettled(order: Order, nowMs: number, tuning: Tuning): boolean {
  const createdMs = timeMs(order.created_at);
  if (beyondHorizon(createdMs, nowMs, tuning)) return true;
  if (order.status === CANCELLED) return cancelledLongEnough(timeMs(order.cancel_requested_at) ?? createdMs, nowMs, tuning);
  return FINAL_ORDER_STATUSES.has(order.status) || (order.is_terminal === true && order.status !== CANCELLED);
}

export function fillSettled(fill: Fill, nowMs: number, tuning: Tuning): boolean {
  return FINAL_FILL_STATUSES.has(fill.status ?? '') || beyondHorizon(timeMs(fill.executed_at), nowMs, tuning);
}

/** An ORDER activity mirrors its order's status; other activities (deposits, splits) settle as CONFIRMED or FAILED. */
export function activitySettled(activity: Activity, nowMs: number, tuning: Tuning): boolean {
  const createdMs = timeMs(activity.created_at);
  if (beyondHorizon(createdMs, nowMs, tuning)) return true;
  // An activity carries no cancel time: the grace runs from its creation.
  if (activity.status === CANCELLED) return cancelledLongEnough(createdMs, nowMs, tuning);
  return FINAL_ACTIVITY_STATUSES.has(activity.status ?? '');
}
