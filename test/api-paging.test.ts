import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/api/errors.ts';
import { CursorLoopError, itemsOf } from '../src/api/paging.ts';
import {
  activityPayload,
  eventListItemPayload,
  fillPayload,
  JSON_HEADERS,
  orderPayload,
  stubVenue,
} from './api-fixtures.ts';

interface Seen {
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
}

/** A paged resource: `pages[i]` answers the request whose cursor is `c{i}` (no cursor = page 0). */
function pagedResource(
  venue: ReturnType<typeof stubVenue>,
  method: 'GET' | 'POST',
  route: string,
  pages: Array<(next: string | null) => object>,
) {
  const seen: Seen[] = [];
  venue.pool
    .intercept({ method, path: (path) => path === route || path.startsWith(`${route}?`) })
    .reply((options) => {
      const url = new URL(options.path, 'http://x');
      const body = typeof options.body === 'string' ? (JSON.parse(options.body) as Record<string, unknown>) : undefined;
      seen.push({ path: url.pathname, query: url.searchParams, body });
      const cursor = (body?.cursor as string | undefined) ?? url.searchParams.get('cursor');
      const index = cursor === null || cursor === undefined ? 0 : Number(cursor.slice(1));
      const next = index + 1 < pages.length ? `c${index + 1}` : null;
      return {
        statusCode: 200,
        data: JSON.stringify((pages[index] as (next: string | null) => object)(next)),
        responseOptions: { headers: JSON_HEADERS },
      };
    })
    .persist();
  return seen;
}

const ordersPage = (ids: string[]) => (next: string | null) => ({
  as_of: '2025-11-20T14:05:00Z',
  orders: ids.map((id) => ({ ...orderPayload, internal_id: id })),
  markets: {},
  events: {},
  pagination: { limit: 2, next_cursor: next },
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('cursor paging to the end', () => {
  it('orders/list: every page, cursor in the body beside unchanged filters', async () => {
    const venue = stubVenue();
    const seen = pagedResource(venue, 'POST', '/trade/v1/orders/list', [
      ordersPage(['o1', 'o2']),
      ordersPage(['o3', 'o4']),
      ordersPage(['o5']),
    ]);
    const orders = await collect(itemsOf(venue.client.orders.orderPages({ limit: 2, status: 'MATCHED' }), 'orders'));
    expect(orders.map((o) => o.value.internal_id)).toEqual(['o1', 'o2', 'o3', 'o4', 'o5']);
    expect(orders[4]?.raw).toMatchObject({ internal_id: 'o5', price_micro: '540000' });
    expect(seen.map((s) => s.body)).toEqual([
      { limit: 2, status: 'MATCHED' },
      { limit: 2, status: 'MATCHED', cursor: 'c1' },
      { limit: 2, status: 'MATCHED', cursor: 'c2' },
    ]);
  });

  it('open-orders/list with token_ids', async () => {
    const venue = stubVenue();
    const seen = pagedResource(venue, 'POST', '/trade/v1/portfolio/open-orders/list', [
      ordersPage(['o1']),
      ordersPage(['o2']),
    ]);
    const pages = await collect(venue.client.orders.openOrderPages({ token_ids: ['t1', 't2'] }));
    expect(pages.flatMap((p) => p.value.orders.map((o) => o.internal_id))).toEqual(['o1', 'o2']);
    expect(seen[1]?.body).toEqual({ token_ids: ['t1', 't2'], cursor: 'c1' });
  });

  it('activities (GET): limit and cursor in the query, to the last page', async () => {
    const venue = stubVenue();
    const page = (ids: string[]) => (next: string | null) => ({
      activities: ids.map(activityPayload),
      as_of: 'x',
      conditions: {},
      events: {},
      markets: {},
      pagination: { limit: 500, next_cursor: next },
    });
    const seen = pagedResource(venue, 'GET', '/trade/v1/portfolio/activities', [
      page(['a1', 'a2']),
      page(['a3']),
      page([]),
    ]);
    const activities = await collect(itemsOf(venue.client.portfolio.activityPages({ limit: 500 }), 'activities'));
    expect(activities.map((a) => a.value.id)).toEqual(['a1', 'a2', 'a3']);
    expect(seen.map((s) => s.query.toString())).toEqual(['limit=500', 'limit=500&cursor=c1', 'limit=500&cursor=c2']);
  });

  it('activities/list (POST): filters and cursor in the body', async () => {
    const venue = stubVenue();
    const page = (ids: string[]) => (next: string | null) => ({
      activities: ids.map(activityPayload),
      pagination: { next_cursor: next },
    });
    const seen = pagedResource(venue, 'POST', '/trade/v1/portfolio/activities/list', [page(['a1']), page(['a2'])]);
    const activities = await collect(
      itemsOf(venue.client.portfolio.activityListPages({ limit: 1, type: 'ORDER' }), 'activities'),
    );
    expect(activities.map((a) => a.value.id)).toEqual(['a1', 'a2']);
    expect(seen[1]?.body).toEqual({ limit: 1, type: 'ORDER', cursor: 'c1' });
  });

  it('portfolio trades (GET): pages followed while a cursor comes back', async () => {
    const venue = stubVenue();
    const page = (id: string) => (next: string | null) => ({
      trades: [{ ...fillPayload, trade_id: id }],
      pagination: { next_cursor: next },
    });
    pagedResource(venue, 'GET', '/trade/v1/portfolio/trades', [page('t1'), page('t2')]);
    const trades = await collect(itemsOf(venue.client.portfolio.tradePages(), 'trades'));
    expect(trades.map((t) => t.value.trade_id)).toEqual(['t1', 't2']);
  });

  it('events: the fingerprint parameters stay identical on every page; only the cursor moves', async () => {
    const venue = stubVenue();
    const page = (ids: string[]) => (next: string | null) => ({
      events: ids.map(eventListItemPayload),
      pagination: { next_cursor: next, limit: 2 },
    });
    const seen = pagedResource(venue, 'GET', '/api/v1/events', [page(['e1', 'e2']), page(['e3', 'e4']), page(['e5'])]);
    const query = {
      category: 'tennis',
      root: 'sports',
      resolution: 'active',
      sort: 'volume',
      exclude_ended: true,
      limit: 2,
      include_markets: true,
    } as const;
    const events = await collect(itemsOf(venue.client.catalogue.eventPages({ ...query }), 'events'));
    expect(events.map((e) => e.value.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    const fingerprints = seen.map((s) => {
      const params = new URLSearchParams(s.query);
      params.delete('cursor');
      return params.toString();
    });
    expect(new Set(fingerprints)).toEqual(
      new Set([
        'category=tennis&root=sports&resolution=active&sort=volume&exclude_ended=true&limit=2&include_markets=true',
      ]),
    );
    expect(seen.map((s) => s.query.get('cursor'))).toEqual([null, 'c1', 'c2']);
  });

  it('pages shorter than asked, even empty, that still carry a cursor are followed to the end', async () => {
    const venue = stubVenue();
    const seen = pagedResource(venue, 'POST', '/trade/v1/orders/list', [
      ordersPage(['o1']),
      ordersPage([]),
      ordersPage(['o2', 'o3']),
      ordersPage([]),
    ]);
    const orders = await collect(itemsOf(venue.client.orders.orderPages({ limit: 2 }), 'orders'));
    expect(orders.map((o) => o.value.internal_id)).toEqual(['o1', 'o2', 'o3']);
    expect(seen).toHaveLength(4);
  });

  it('a cursor handed back after another page in between is refused as well, naming the path and the cursor', async () => {
    const venue = stubVenue();
    let calls = 0;
    venue.pool
      .intercept({ method: 'POST', path: '/trade/v1/orders/list' })
      .reply(() => ({
        statusCode: 200,
        data: JSON.stringify(ordersPage([`o${calls}`])(['a', 'b', 'a'][calls++ % 3]!)),
        responseOptions: { headers: JSON_HEADERS },
      }))
      .persist();
    const error = await collect(venue.client.orders.orderPages()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CursorLoopError);
    expect(error).toMatchObject({ endpoint: 'POST /trade/v1/orders/list', cursor: 'a' });
    expect(calls).toBe(3);
  });

  it('a cursor handed back twice stops paging with an error instead of looping', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ method: 'POST', path: '/trade/v1/orders/list' })
      .reply(200, ordersPage(['o1'])('same'), { headers: JSON_HEADERS })
      .persist();
    await expect(collect(venue.client.orders.orderPages())).rejects.toBeInstanceOf(CursorLoopError);
  });
});

describe('sports_live sections', () => {
  it('one answer with sections; the pager refuses that filter', async () => {
    const venue = stubVenue();
    venue.pool.intercept({ path: '/api/v1/events', query: { filter: 'sports_live', category: 'tennis' } }).reply(
      200,
      {
        events: [eventListItemPayload('e1')],
        sections: [{ category: { slug: 'atp', label: 'ATP' }, event_ids: ['e1'] }],
      },
      { headers: JSON_HEADERS },
    );
    const live = await venue.client.catalogue.sportsLive({ category: 'tennis' });
    expect(live.value.sections?.[0]).toEqual({ category: { slug: 'atp', label: 'ATP' }, event_ids: ['e1'] });
    expect(() => venue.client.catalogue.eventPages({ filter: 'sports_live' })).toThrow(InvalidArgumentError);
  });
});

describe('page-size bounds are enforced before sending (§8.6)', () => {
  // No interceptor is registered: any request would fail with a MockNotMatchedError instead.
  it.each([0, 101, 2.5])('events limit %s', (limit) => {
    const venue = stubVenue();
    expect(() => venue.client.catalogue.eventPages({ limit })).toThrow(/limit must be an integer from 1 to 100/);
  });

  it.each([0, 501])('activities limit %s', (limit) => {
    const venue = stubVenue();
    expect(() => venue.client.portfolio.activityPages({ limit })).toThrow(/limit must be an integer from 1 to 500/);
    expect(() => venue.client.portfolio.activityListPages({ limit })).toThrow(InvalidArgumentError);
  });

  it('order lists only need a positive integer (their bounds are not shown)', () => {
    const venue = stubVenue();
    expect(() => venue.client.orders.orderPages({ limit: -1 })).toThrow(InvalidArgumentError);
    expect(() => venue.client.orders.openOrderPages({ limit: 1000 })).not.toThrow();
  });
});
