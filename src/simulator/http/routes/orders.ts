import { createHash } from 'node:crypto';
import { isoTime } from '../../clock.ts';
import { asReported, isReported, isTerminal, type OrderStatus, type SimOrder } from '../../orders.ts';
import { reportedFills } from '../../misreport.ts';
import { Rejection, validationFailed } from '../../problems.ts';
import { requireAccount, type RequestContext, type Reply, type RouteSpec } from '../context.ts';
import { BodyReader } from '../body-reader.ts';
import { fingerprint } from '../cursor.ts';
import { listPage } from '../list-page.ts';
import { parsePlaceBody } from '../place-body.ts';
import { renderFill, renderOrder } from '../../wire/render/order.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_SIGNED_BATCH = 32;

export function orderParam(ctx: RequestContext): SimOrder {
  const id = ctx.params.order_id ?? '';
  if (!UUID.test(id)) throw new Rejection('invalid_path_parameter', 'order_id must be a uuid.');
  const order = ctx.venue.exchange.orders.get(id);
  if (!order || order.accountId !== requireAccount(ctx).id) throw new Rejection('order_not_found', `No order ${id}.`);
  return order;
}

function placeOrder(ctx: RequestContext): Reply {
  const order = ctx.venue.exchange.place(requireAccount(ctx).id, parsePlaceBody(ctx.body));
  return { status: 202, body: renderOrder(order) };
}

/** The signed hash of an envelope: sha256 over the canonical order and its signature (README). */
function signedHash(order: unknown, signature: string): string {
  const canonical = JSON.stringify(order, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
  return `0x${createHash('sha256').update(`${canonical}|${signature}`).digest('hex')}`;
}

function placeSigned(ctx: RequestContext, envelope: unknown, path: Array<string | number>): SimOrder {
  if (typeof envelope !== 'object' || envelope === null)
    throw validationFailed([{ path, code: 'not_an_object', message: 'A signed order is {order, signature}.' }]);
  const { order, signature } = envelope as { order?: unknown; signature?: unknown };
  if (typeof signature !== 'string' || signature === '')
    throw validationFailed([{ path: [...path, 'signature'], code: 'required', message: 'signature is required.' }]);
  const request = parsePlaceBody(order, [...path, 'order']);
  const hash = signedHash(order, signature);
  if (ctx.venue.exchange.ordersByHash.has(hash))
    throw new Rejection('duplicate_order', `Order ${hash} exists; read it by hash.`);
  return ctx.venue.exchange.place(requireAccount(ctx).id, request, hash);
}

function placeSignedOne(ctx: RequestContext): Reply {
  return { status: 202, body: renderOrder(placeSigned(ctx, ctx.body, [])) };
}

/** Up to 32 envelopes; each gets its own outcome, and the call costs one place_batch token. */
function placeSignedBatch(ctx: RequestContext): Reply {
  const body = new BodyReader(ctx.body);
  const orders = body.raw('orders');
  if (!Array.isArray(orders) || orders.length === 0 || orders.length > MAX_SIGNED_BATCH) {
    throw validationFailed([
      {
        path: ['orders'],
        code: 'out_of_range',
        message: `orders must hold 1 to ${MAX_SIGNED_BATCH} signed envelopes.`,
      },
    ]);
  }
  const results = orders.map((envelope, i) => {
    try {
      const order = placeSigned(ctx, envelope, ['orders', i]);
      return { index: i, order_hash: order.orderHash, status: 202, order: renderOrder(order) };
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      return {
        index: i,
        status: err.status,
        failure: { code: err.code, title: err.title, detail: err.detail, recovery: err.recovery },
      };
    }
  });
  return { status: 200, body: { results } };
}

function orderByHash(ctx: RequestContext): Reply {
  const order = ctx.venue.exchange.ordersByHash.get(ctx.params.order_hash ?? '');
  if (!order || order.accountId !== requireAccount(ctx).id)
    throw new Rejection('order_not_found', `No order with hash ${ctx.params.order_hash}.`);
  return { status: 200, body: renderOrder(order) };
}

const STATUSES: OrderStatus[] = ['PENDING', 'SUBMITTING', 'LIVE', 'MATCHED', 'CANCELLED', 'REJECTED', 'FAILED'];

/** Newest first; keyset on the placement sequence so following cursors to the end sees every order once. */
function listOrders(ctx: RequestContext): Reply {
  const body = new BodyReader(ctx.body);
  const filters = {
    token_id: body.string('token_id'),
    condition_id: body.string('condition_id'),
    status: body.strings('status'),
    is_terminal: body.bool('is_terminal'),
  };
  const limit = body.int('limit', { min: 1, max: 500, fallback: 100 });
  const cursor = body.string('cursor');
  if (filters.status?.some((s) => !STATUSES.includes(s as OrderStatus))) {
    body.errors.push({ path: ['status'], code: 'invalid_enum', message: `status values are ${STATUSES.join(', ')}.` });
  }
  body.done();
  const print = fingerprint(filters);
  const orders = requireAccount(ctx).orders.filter(
    (o) =>
      (filters.token_id === undefined || o.tokenId === filters.token_id) &&
      (filters.condition_id === undefined || o.conditionId === filters.condition_id) &&
      (filters.status === undefined || filters.status.includes(asReported(o).status)) &&
      (filters.is_terminal === undefined || isTerminal(asReported(o).status) === filters.is_terminal),
  );
  const { page, nextCursor } = listPage(ctx, orders, (o) => [BigInt(-o.seq)], cursor, limit, print);
  return {
    status: 200,
    body: { as_of: isoTime(ctx.nowMs), orders: page.map(renderOrder), pagination: { limit, next_cursor: nextCursor } },
  };
}

function getOrder(ctx: RequestContext): Reply {
  return { status: 200, body: renderOrder(orderParam(ctx)) };
}

function cancelOrder(ctx: RequestContext): Reply {
  const order = orderParam(ctx);
  return { status: 200, body: renderOrder(ctx.venue.exchange.cancel(order.accountId, order.id)) };
}

function cancelAll(ctx: RequestContext): Reply {
  const asOf = ctx.venue.exchange.cancelAll(requireAccount(ctx).id);
  return { status: 202, body: { as_of: isoTime(asOf) } };
}

function orderTrades(ctx: RequestContext): Reply {
  const order = orderParam(ctx);
  return {
    status: 200,
    body: {
      as_of: isoTime(ctx.nowMs),
      trades: reportedFills(
        ctx.venue,
        ctx.venue.exchange.fillsOf(order).filter((f) => isReported(f, ctx.nowMs)),
      ).map(renderFill),
    },
  };
}

function orderBook(ctx: RequestContext): Reply {
  const tokenId = ctx.params.token_id ?? '';
  const ref = ctx.venue.catalogue.token(tokenId);
  if (!ref) throw new Rejection('token_not_found', `No outcome token ${tokenId}.`);
  const book = ctx.venue.exchange.book(ref.market);
  const ladder = book.ladderFor(ref.outcomeIndex);
  const level = (l: { priceMicro: bigint; sharesMicro: bigint }): Record<string, bigint> => ({
    price_micro: l.priceMicro,
    shares_micro: l.sharesMicro,
  });
  return {
    status: 200,
    body: {
      token_id: tokenId,
      condition_id: ref.market.conditionId,
      market_id: ref.market.id,
      sequence: book.sequence,
      as_of: isoTime(ctx.nowMs),
      tick_size_micro: ref.market.tickMicro,
      min_order_size_micro: ref.market.minOrderSizeMicro,
      is_accepting_orders: ctx.venue.catalogue.isAcceptingOrders(ref.market),
      bids: ladder.bids.map(level),
      asks: ladder.asks.map(level),
    },
  };
}

export const orderRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/trade/v1/orders',
    auth: 'pat',
    scope: 'orders:place',
    action: 'place',
    ipAction: true,
    body: 'json',
    handler: placeOrder,
  },
  {
    method: 'POST',
    path: '/trade/v1/orders/signed',
    auth: 'pat',
    scope: 'orders:place_signed',
    action: 'place',
    ipAction: true,
    body: 'json',
    feature: 'signed_orders',
    handler: placeSignedOne,
  },
  {
    method: 'POST',
    path: '/trade/v1/orders/signed/batch',
    auth: 'pat',
    scope: 'orders:place_signed',
    action: 'place_batch',
    ipAction: true,
    body: 'json',
    maxBodyBytes: 512 * 1024,
    feature: 'signed_orders',
    handler: placeSignedBatch,
  },
  {
    method: 'GET',
    path: '/trade/v1/orders/by-hash/:order_hash',
    auth: 'pat',
    scope: 'orders:read',
    feature: 'signed_orders',
    handler: orderByHash,
  },
  {
    method: 'POST',
    path: '/trade/v1/orders/list',
    auth: 'pat',
    scope: 'orders:read',
    body: 'optional-json',
    handler: listOrders,
  },
  {
    method: 'POST',
    path: '/trade/v1/orders/cancel-all',
    auth: 'pat',
    scope: 'orders:cancel_all',
    action: 'cancel_all',
    ipAction: true,
    body: 'optional-json',
    handler: cancelAll,
  },
  { method: 'GET', path: '/trade/v1/orders/:order_id', auth: 'pat', scope: 'orders:read', handler: getOrder },
  {
    method: 'DELETE',
    path: '/trade/v1/orders/:order_id',
    auth: 'pat',
    scope: 'orders:cancel',
    action: 'cancel',
    ipAction: true,
    handler: cancelOrder,
  },
  { method: 'GET', path: '/trade/v1/orders/:order_id/trades', auth: 'pat', scope: 'orders:read', handler: orderTrades },
  { method: 'GET', path: '/trade/v1/orderbook/:token_id', auth: 'pat', handler: orderBook },
];
