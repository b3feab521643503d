import { ENDPOINTS, endpointName } from '../../api/endpoints.ts';
import type { Order, OrdersPage } from '../../api/schemas/index.ts';
import { NotFoundError } from '../../api/errors.ts';
import type { BusRecord } from '../../bus/record.ts';
import type { DataQualityPayload } from '../../records/index.ts';
import { nextFrontier, runPass, timeMs, type PageItem } from '../pass.ts';
import { syncRecord, type SyncOrigin } from '../records.ts';
import type { JobRun } from '../run.ts';
import { fillSettled, orderSettled, type ProvisionalSince } from '../settling.ts';
import { readFrontier, readProvisional } from './account-list.ts';
import type { JobOptions } from './options.ts';

/**
 * The fills of new orders: the order list, newest first down to the frontier, and for each order
 * with matched shares not yet looked at, GET /trade/v1/orders/{id}/trades (cost 1). An order's
 * fills are read again while the order can still fill or any of its fills can still change
 * status; once all are settled the order is marked done (per matched size) and skipped.
 */
export async function syncOrderTrades(run: JobRun, options: JobOptions): Promise<void> {
  const { deps } = run;
  const frontier = readFrontier(run.checkpoint.state);
  const provisional = readProvisional(run.checkpoint.state);
  const incremental = options.window === undefined;
  await runPass(run, {
    name: 'order-trades',
    endpoint: endpointName(ENDPOINTS.ordersList),
    key: 'orders',
    items: (page: OrdersPage) => page.orders,
    fetch: (cursor, signal) =>
      deps.venue.client.orders.ordersPage({ limit: deps.tuning.pageSize.orders }, cursor, signal),
    timeOf: (order) => timeMs(order.created_at),
    stopBeforeMs: options.window?.fromMs ?? frontier,
    untilMs: options.window?.toMs,
    handle: async (items, _page, origin) => {
      const records: BusRecord[] = [];
      const openTimesMs: number[] = [];
      const done: string[] = [];
      for (const item of items) {
        const result = await fillsOf(run, item, origin, provisional);
        records.push(...result.records);
        if (result.doneTag) done.push(result.doneTag);
        const createdMs = timeMs(item.value.created_at);
        if (!result.settled && createdMs !== undefined) openTimesMs.push(createdMs);
      }
      return { records, openTimesMs, afterCommit: () => deps.memory.markDone(done) };
    },
    finish: (summary) =>
      incremental
        ? {
            frontierMs: nextFrontier(summary, frontier) ?? null,
            provisional: provisional.saved(deps.now(), deps.tuning),
          }
        : undefined,
  });
}

interface OrderFills {
  records: BusRecord[];
  /** Neither the order nor its fills can change any more. */
  settled: boolean;
  /** Marks the fills of this matched size as read and settled. */
  doneTag?: string;
}

async function fillsOf(
  run: JobRun,
  { value: order }: PageItem<Order>,
  origin: SyncOrigin,
  provisional: ProvisionalSince,
): Promise<OrderFills> {
  const { deps } = run;
  const nowMs = deps.now();
  const orderFinal = orderSettled(
    order,
    nowMs,
    deps.tuning,
    provisional.observe(order.internal_id, order.status, nowMs),
  );
  const matched = order.size_matched_micro ?? 0n;
  if (matched === 0n) return { records: [], settled: orderFinal };
  const tag = `order-trades:${order.internal_id}:${matched}`;
  // A backfill reads every order's fills again: it repairs what the warehouse lacks.
  if (!run.republish && deps.memory.isDone(tag)) return { records: [], settled: orderFinal };
  let answer;
  try {
    answer = await deps.venue.client.orders.orderTrades(order.internal_id, run.signal);
  } catch (error) {
    if (!(error instanceof NotFoundError) || error.code !== 'order_not_found') throw error;
    // The list shows the order, its fills read says it is not there (§7.5): nothing to read, and
    // asking again gives the same answer. A finding, once per matched size; the pass goes on.
    return { records: [orderNotFoundRecord(run, order, error, origin)], settled: true, doneTag: tag };
  }
  const rawTrades = (answer.raw as { trades?: unknown[] }).trades ?? [];
  const records = answer.value.trades.map((fill, i) =>
    syncRecord('fill', deps.account, fill, rawTrades[i], answer.value.as_of, origin),
  );
  const fillsFinal = answer.value.trades.every((fill) => fillSettled(fill, nowMs, deps.tuning));
  return { records, settled: orderFinal && fillsFinal, doneTag: fillsFinal ? tag : undefined };
}

/** The `data_quality` record of an order its fills read did not find: which order, which read, the venue's request id.
 */
function orderNotFoundRecord(run: JobRun, order: Order, error: NotFoundError, origin: SyncOrigin): BusRecord {
  const endpoint = endpointName(ENDPOINTS.orderTrades);
  const finding: DataQualityPayload = {
    problem: 'order_not_found',
    detail: `${endpoint} answered 404 order_not_found for order ${order.internal_id}, which the order list shows (job ${run.job}, page ${origin.page}${error.requestId ? `, request ${error.requestId}` : ''}); its fills are not read`,
    stream: 'sync',
    endpoint,
    order_id: order.internal_id,
    token_id: order.token_id ?? null,
    condition_id: order.condition_id ?? null,
  };
  return syncRecord('data_quality', order.condition_id ?? 'sync', finding, undefined, undefined, origin);
}
