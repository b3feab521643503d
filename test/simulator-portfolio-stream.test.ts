import { afterEach, describe, expect, it } from 'vitest';
import { api, settle, tradingSimulator, USDC, type TradingSetup } from './simulator-helpers.ts';
import { SseClient, until } from './simulator-stream-helpers.ts';

let t: TradingSetup;
const clients: SseClient[] = [];

async function sse(path: string, token?: string): Promise<SseClient> {
  const client = await SseClient.connect(`${t.sim.url}${path}`, token);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await t.sim.close();
});

describe('portfolio stream (SSE)', () => {
  it('syncs the full positions and summary on connect, after every change of the account, and periodically', async () => {
    t = await tradingSimulator({ streams: { heartbeatMs: 1_000, portfolioSyncMs: 5_000 } });
    const client = await sse('/trade/v1/portfolio/stream', t.alice);
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toBe('text/event-stream');
    await until(() => client.events.length === 1, 'the first sync');
    const first = client.events[0];
    expect(first).toMatchObject({ event: 'portfolio.sync', id: '1' });
    expect(first?.data).toMatchObject({
      type: 'portfolio.sync',
      seq: '1',
      stream_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      positions: { positions: [], unavailable_exchanges: [], as_of: expect.any(String) },
      summary: { summaries: [{ exchange: 'SERVICE', cash_balance_micro: String(USDC(10_000)) }] },
    });

    await api(t.sim, 'POST', '/trade/v1/orders', {
      token: t.bob,
      body: { token_id: t.no, side: 'BUY', type: 'LIMIT', price_micro: '400000', shares_micro: '10000000' },
    });
    await settle();
    await api(t.sim, 'POST', '/trade/v1/orders', {
      token: t.alice,
      body: { token_id: t.yes, side: 'BUY', type: 'LIMIT', price_micro: '600000', shares_micro: '10000000' },
    });
    await settle();
    t.sim.advance(50);
    await until(() => client.events.length === 2, 'a sync after the fill');
    const afterFill = client.events[1]?.data;
    expect(afterFill).toMatchObject({ seq: '2', stream_id: first?.data.stream_id });
    expect(afterFill?.positions.positions).toEqual([
      expect.objectContaining({ token_id: t.yes, shares_micro: '10000000' }),
    ]);
    const rest = (await api(t.sim, 'GET', '/trade/v1/portfolio/summary', { token: t.alice })).json.summaries[0];
    expect(afterFill?.summary.summaries[0].cash_balance_micro).toBe(rest.cash_balance_micro);

    for (let i = 0; i < 10; i++) t.sim.advance(500);
    await until(() => client.events.length === 3 && client.comments.length >= 5, 'the periodic sync and heartbeats');
    expect(client.events[2]?.data.seq).toBe('3');
    expect(client.comments.every((c) => /^ ?heartbeat \d{4}-/.test(c))).toBe(true);

    const second = await sse('/trade/v1/portfolio/stream', t.alice);
    await until(() => second.events.length === 1, 'a second stream');
    expect(second.events[0]?.data.seq).toBe('1');
    expect(second.events[0]?.data.stream_id).not.toBe(first?.data.stream_id);
  });

  it('refuses a request without credentials or without portfolio:read', async () => {
    t = await tradingSimulator();
    const none = await sse('/trade/v1/portfolio/stream');
    expect(none).toMatchObject({ status: 401, body: { code: 'credentials_missing' } });
    const ordersOnly = t.sim.venue.createAccount('orders-only', USDC(1), ['orders:read']).token.secret;
    expect(await sse('/trade/v1/portfolio/stream', ordersOnly)).toMatchObject({
      status: 403,
      body: { code: 'forbidden_scope' },
    });
  });
});

describe('price streams', () => {
  it('answer 503 price_stream_not_configured where the deployment offers none', async () => {
    t = await tradingSimulator();
    for (const path of ['/api/v1/prices/stream', '/api/v1/prices/oracle-pro/stream']) {
      const client = await sse(path);
      expect(client.status).toBe(503);
      expect(client.headers.get('content-type')).toBe('application/problem+json');
      expect(client.body).toMatchObject({
        code: 'price_stream_not_configured',
        type: 'urn:service:problem:price-stream-not-configured',
      });
    }
  });

  it('send a price per symbol every interval where configured, and 422 price_feed_not_found for an unknown symbol', async () => {
    t = await tradingSimulator({ streams: { priceStreams: 'on', priceIntervalMs: 1_000 } });
    const client = await sse('/api/v1/prices/stream?symbols=BTC');
    const oracle = await sse('/api/v1/prices/oracle-pro/stream');
    for (let i = 0; i < 3; i++) t.sim.advance(1_000);
    await until(() => client.events.length >= 3 && oracle.events.length >= 6, 'prices');
    expect(client.events.map((e) => e.data.symbol)).toEqual(['BTC', 'BTC', 'BTC']);
    expect(client.events[0]).toMatchObject({
      event: 'price',
      data: { type: 'price', price: expect.stringMatching(/^\d+\.\d{2}$/), source: 'SERVICE' },
    });
    expect(new Set(oracle.events.map((e) => e.data.symbol))).toEqual(new Set(['BTC', 'ETH']));
    expect(oracle.events[0]?.data.source).toBe('oracle-pro');
    expect(await sse('/api/v1/prices/stream?symbols=DOGE')).toMatchObject({
      status: 422,
      body: { code: 'price_feed_not_found' },
    });
    // The oracle quotes 8 decimals: more than micro-units keep.
    expect(oracle.events[0]?.data.price).toMatch(/^\d+\.\d{8}$/);
  });

  it('answer 404 route_not_found where the deployment routes none', async () => {
    t = await tradingSimulator({ streams: { priceStreams: 'absent' } });
    for (const path of ['/api/v1/prices/stream', '/api/v1/prices/oracle-pro/stream']) {
      expect(await sse(path)).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
    }
  });

  it('answer 503 price_stream_capacity_exceeded (strategy retry) past the shared symbol budget, and admit what still fits', async () => {
    t = await tradingSimulator({ streams: { priceStreams: 'on', priceSymbolCapacity: 3 } });
    await sse('/api/v1/prices/stream?symbols=BTC,ETH');
    const refused = await sse('/api/v1/prices/oracle-pro/stream?symbols=BTC,ETH');
    expect(refused).toMatchObject({
      status: 503,
      body: { code: 'price_stream_capacity_exceeded', recovery: { strategy: 'retry' } },
    });
    expect(await sse('/api/v1/prices/oracle-pro/stream?symbols=ETH')).toMatchObject({ status: 200 });
  });
});
