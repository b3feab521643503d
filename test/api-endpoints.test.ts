import { describe, expect, it } from 'vitest';
import {
  batchPayload,
  eventDetailPayload,
  fillPayload,
  JSON_HEADERS,
  orderbookPayload,
  orderPayload,
  stubVenue,
  summaryPayload,
  supportedAssetsPayload,
} from './api-fixtures.ts';

describe('typed reads of the §4 endpoints', () => {
  it('event detail: the slug is URL-encoded and the detail shape parsed', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ path: '/api/v1/events/rain%2Fparis' })
      .reply(200, eventDetailPayload, { headers: JSON_HEADERS });
    const event = await venue.client.catalogue.event('rain/paris');
    expect(event.value.markets?.[0]?.volume_micro).toBe(125_000_000_000n);
  });

  it('category: no version prefix, unknown shape kept', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ path: '/categories/tennis' })
      .reply(200, { slug: 'tennis', label: 'Tennis', children: ['atp'] }, { headers: JSON_HEADERS });
    const category = await venue.client.catalogue.category('tennis');
    expect(category.value).toEqual({ slug: 'tennis', label: 'Tennis', children: ['atp'] });
  });

  it('order by id, by hash, and its trades', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ path: `/trade/v1/orders/${orderPayload.internal_id}` })
      .reply(200, orderPayload, { headers: JSON_HEADERS });
    venue.pool
      .intercept({ path: '/trade/v1/orders/by-hash/0xabc' })
      .reply(200, orderPayload, { headers: JSON_HEADERS });
    venue.pool
      .intercept({ path: `/trade/v1/orders/${orderPayload.internal_id}/trades` })
      .reply(200, { as_of: '2025-11-20T14:05:00Z', trades: [fillPayload] }, { headers: JSON_HEADERS });
    expect((await venue.client.orders.order(orderPayload.internal_id)).value.status).toBe('MATCHED');
    expect((await venue.client.orders.orderByHash('0xabc')).value.internal_id).toBe(orderPayload.internal_id);
    expect((await venue.client.orders.orderTrades(orderPayload.internal_id)).value.trades[0]?.fee_micro).toBe(0n);
  });

  it('order book and account batch', async () => {
    const venue = stubVenue();
    venue.pool.intercept({ path: '/trade/v1/orderbook/42' }).reply(200, orderbookPayload, { headers: JSON_HEADERS });
    venue.pool.intercept({ path: '/trade/v1/batches/0xbatch01' }).reply(200, batchPayload, { headers: JSON_HEADERS });
    expect((await venue.client.orders.orderbook('42')).value.asks[0]?.price_micro).toBe(550_000n);
    expect((await venue.client.orders.batch('0xbatch01')).value.seq).toBe(42);
  });

  it('portfolio summary and withdrawal supported assets', async () => {
    const venue = stubVenue();
    venue.pool.intercept({ path: '/trade/v1/portfolio/summary' }).reply(200, summaryPayload, { headers: JSON_HEADERS });
    venue.pool
      .intercept({ path: '/trade/v1/portfolio/bridge/withdraw/supported-assets' })
      .reply(200, supportedAssetsPayload, { headers: JSON_HEADERS });
    expect((await venue.client.portfolio.summary()).value.summaries[0]?.free_cash_micro).toBe(986_537_500n);
    expect((await venue.client.portfolio.withdrawalSupportedAssets()).value.supported_assets[0]?.chain_name).toBe(
      'Base',
    );
  });

  it('the raw body travels with the parsed value, exact strings included', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ path: `/trade/v1/orders/${orderPayload.internal_id}` })
      .reply(200, orderPayload, { headers: { ...JSON_HEADERS, 'x-request-id': 'req-1' } });
    const order = await venue.client.orders.order(orderPayload.internal_id);
    expect(order.raw).toEqual(orderPayload);
    expect(order.requestId).toBe('req-1');
  });

  it('a body that breaks the interface names the field and keeps the body', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({ path: '/trade/v1/orderbook/42' })
      .reply(200, { ...orderbookPayload, bids: [{ price_micro: 0.53, size_micro: '1' }] }, { headers: JSON_HEADERS });
    await expect(venue.client.orders.orderbook('42')).rejects.toThrow(
      'unexpected response from GET /trade/v1/orderbook/{token_id}: bids[0].price_micro: expected a decimal string, received number',
    );
  });
});
