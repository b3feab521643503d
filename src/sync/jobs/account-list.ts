import type { Fetched } from '../../api/caller.ts';
import { ENDPOINTS, endpointName } from '../../api/endpoints.ts';
import type {
  Activity,
  ActivitiesPage,
  Fill,
  Order,
  OrdersPage,
  PortfolioTradesPage,
} from '../../api/schemas/index.ts';
import type { Json, SyncSources } from '../../records/index.ts';
import type { SyncDeps, SyncTuning } from '../deps.ts';
import { nextFrontier, runPass, timeMs, type ListPage, type PageItem } from '../pass.ts';
import { syncRecord, type SyncSource } from '../records.ts';
import type { JobRun } from '../run.ts';
import { activitySettled, fillSettled, lateFillFloor, orderSettled, ProvisionalSince } from '../settling.ts';
import { lookupRecords, type LookupPage } from '../lookups.ts';
import type { JobOptions } from './options.ts';

/** An account list read newest first, one record per item. */
/** The record kinds of the account lists, and what each list's items are. */
export type ListKind = 'order' | 'fill' | 'activity';

export interface AccountList<
  Page extends ListPage & { as_of?: string | undefined },
  Item extends SyncSources[Kind],
  Kind extends ListKind = ListKind,
> {
  name: string;
  /** The paged read, as `endpointName` writes it. */
  endpoint: string;
  kind: Kind;
  /** The page's items, and the name of their array in the body. */
  items(page: Page): readonly Item[];
  key: string;
  fetch(deps: SyncDeps, cursor: string | undefined, signal: AbortSignal | undefined): Promise<Fetched<Page>>;
  /** The item's time; the list is newest first by it. */
  timeOf(item: Item): number | undefined;
  /** False while the item can still change, so the next pass reads it again (`provisionalSinceMs`: see settling.ts). */
  settled(item: Item, nowMs: number, tuning: SyncTuning, provisionalSinceMs?: number): boolean;
  /** Follow the list to its end on every pass instead of stopping at the frontier. */
  followToEnd?: boolean;
  /** Items that can read a provisional status (CANCELLED, §3.1): their id and status, to time the grace from when it
   * was seen. */
  provisional?: { idOf(item: Item): string; statusOf(item: Item): string | undefined };
  /** A fill list: late fills appear below the newest items, so the frontier lags by the late-fill grace. */
  lateFills?: boolean;
}

/**
 * POST /trade/v1/orders/list (cost 1), followed to its end on every pass as §4.1 requires: every
 * order's current state is seen, and only states not published before go on the bus (an order is
 * one record per observed status and matched size).
 */
export const ORDER_LIST: AccountList<OrdersPage, Order, 'order'> = {
  name: 'orders',
  endpoint: endpointName(ENDPOINTS.ordersList),
  kind: 'order',
  key: 'orders',
  items: (page) => page.orders,
  fetch: (deps, cursor, signal) =>
    deps.venue.client.orders.ordersPage({ limit: deps.tuning.pageSize.orders }, cursor, signal),
  timeOf: (order) => timeMs(order.created_at),
  settled: orderSettled,
  followToEnd: true,
};

/**
 * POST /trade/v1/portfolio/open-orders/list (cost 5 a page): the orders still working, followed to
 * the end. Frequent and small, it catches fills and cancels of resting orders between passes of
 * the order list.
 */
export const OPEN_ORDERS: AccountList<OrdersPage, Order, 'order'> = {
  ...ORDER_LIST,
  name: 'open-orders',
  endpoint: endpointName(ENDPOINTS.openOrders),
  fetch: (deps, cursor, signal) =>
    deps.venue.client.orders.openOrdersPage({ limit: deps.tuning.pageSize.openOrders }, cursor, signal),
};

/** GET /trade/v1/portfolio/trades (cost 5 a page): the account's fills, incremental down to the frontier. */
export const PORTFOLIO_TRADES: AccountList<PortfolioTradesPage, Fill, 'fill'> = {
  name: 'portfolio-trades',
  endpoint: endpointName(ENDPOINTS.portfolioTrades),
  kind: 'fill',
  key: 'trades',
  items: (page) => page.trades,
  fetch: (deps, cursor, signal) =>
    deps.venue.client.portfolio.tradesPage({ limit: deps.tuning.pageSize.trades }, cursor, signal),
  timeOf: (fill) => timeMs(fill.executed_at),
  settled: fillSettled,
  lateFills: true,
};

/** GET /trade/v1/portfolio/activities (cost 5 a page, up to 500 each): cursor-paged, incremental down to the frontier.
 */
export const ACTIVITIES: AccountList<ActivitiesPage, Activity, 'activity'> = {
  name: 'activities',
  endpoint: endpointName(ENDPOINTS.activities),
  kind: 'activity',
  key: 'activities',
  items: (page) => page.activities,
  fetch: (deps, cursor, signal) =>
    deps.venue.client.portfolio.activitiesPage({ limit: deps.tuning.pageSize.activities }, cursor, signal),
  timeOf: (activity) => timeMs(activity.created_at),
  settled: activitySettled,
  provisional: { idOf: (activity) => activity.id, statusOf: (activity) => activity.status },
};

/** The job's state between passes: read down to the frontier next time. */
export function readFrontier(state: Json | undefined): number | undefined {
  const frontier = (state as { frontierMs?: unknown } | undefined)?.frontierMs;
  return typeof frontier === 'number' ? frontier : undefined;
}

/** The job's state between passes: when items were first seen in a provisional status. */
export function readProvisional(state: Json | undefined): ProvisionalSince {
  return new ProvisionalSince((state as { provisional?: Json } | undefined)?.provisional);
}

/**
 * Syncs an account list. Incremental: each pass reads from the newest item down to the frontier —
 * the oldest item that could still change when the last pass read it, or else the newest item it
 * read — and moves the frontier when it completes. Lists followed to the end have no frontier. A
 * backfill reads its window instead and leaves the frontier alone.
 */
export async function syncAccountList<
  Page extends ListPage & { as_of?: string | undefined },
  Kind extends ListKind,
  Item extends SyncSources[Kind],
>(run: JobRun, options: JobOptions, list: AccountList<Page, Item, Kind>): Promise<void> {
  const { deps } = run;
  const frontier = readFrontier(run.checkpoint.state);
  const provisional = readProvisional(run.checkpoint.state);
  const incremental = !list.followToEnd && options.window === undefined;
  const passStartMs = deps.now();
  await runPass(run, {
    name: list.name,
    endpoint: list.endpoint,
    key: list.key,
    items: list.items,
    fetch: (cursor, signal) => list.fetch(deps, cursor, signal),
    timeOf: list.timeOf,
    stopBeforeMs: options.window?.fromMs ?? (incremental ? frontier : undefined),
    untilMs: options.window?.toMs,
    handle: async (items, page, origin) => ({
      records: [
        ...items.map((item) =>
          syncRecord<Kind>(list.kind, deps.account, item.value as SyncSource<Kind>, item.raw, page.value.as_of, origin),
        ),
        // The page's lookup maps (§2.5), kept whole: an entry's history is in `lookups`.
        ...lookupRecords(list.name, page as Fetched<LookupPage>, deps.account, origin),
      ],
      openTimesMs: openTimes(items, list, deps, provisional),
    }),
    finish: (summary): Json | undefined => {
      if (!incremental) return undefined;
      const next = nextFrontier(summary, frontier);
      const frontierMs = list.lateFills ? lateFillFloor(next, passStartMs, deps) : (next ?? null);
      const state: { [key: string]: Json } = { frontierMs };
      if (list.provisional) state.provisional = provisional.saved(deps.now(), deps.tuning);
      return state;
    },
  });
}

function openTimes<Item extends SyncSources[ListKind]>(
  items: ReadonlyArray<PageItem<Item>>,
  list: Pick<AccountList<ListPage, Item>, 'timeOf' | 'settled' | 'provisional'>,
  deps: SyncDeps,
  provisional: ProvisionalSince,
): number[] {
  const nowMs = deps.now();
  const times: number[] = [];
  for (const { value } of items) {
    const at = list.timeOf(value);
    const since = list.provisional
      ? provisional.observe(list.provisional.idOf(value), list.provisional.statusOf(value), nowMs)
      : undefined;
    if (at !== undefined && !list.settled(value, nowMs, deps.tuning, since)) times.push(at);
  }
  return times;
}
