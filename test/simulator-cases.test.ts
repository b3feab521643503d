import { afterEach, describe, expect, it } from 'vitest';
import { NARROW_CASES, type SimulatorHandle } from '../src/simulator/index.ts';
import type { PublicTrade } from '../src/simulator/events.ts';
import { api, quietSimulator, settle, tradingSimulator, USDC, type TradingSetup } from './simulator-helpers.ts';

/** The cases the interface allows that the simulator shows by default (src/simulator/cases.ts, README "Interface
 * cases"). */
describe('the simulator shows every case the interface allows', () => {
  let t: TradingSetup | undefined;
  let sim: SimulatorHandle | undefined;
  afterEach(async () => {
    await t?.sim.close();
    await sim?.close();
    t = undefined;
    sim = undefined;
  });

  /** Alice bids the other outcome at three prices (asks of this one at 0.51, 0.52, 0.53); Bob buys through all of them
   * with one order. */
  async function sweep(setup: TradingSetup): Promise<PublicTrade[]> {
    const trades: PublicTrade[] = [];
    setup.sim.venue.events.on('trade', (trade) => trades.push(trade));
    for (const price of ['490000', '480000', '470000']) {
      await api(setup.sim, 'POST', '/trade/v1/orders', {
        token: setup.alice,
        body: { token_id: setup.no, side: 'BUY', type: 'LIMIT', price_micro: price, shares_micro: '10000000' },
      });
      await settle();
    }
    await api(setup.sim, 'POST', '/trade/v1/orders', {
      token: setup.bob,
      body: {
        token_id: setup.yes,
        side: 'BUY',
        type: 'LIMIT',
        time_in_force: 'FAK',
        price_micro: '530000',
        shares_micro: '30000000',
      },
    });
    await settle();
    return trades;
  }

  it('public fills (§2.3, §6.2): a taker meeting three makers is one trade of three fills, each its own id, price and size', async () => {
    t = await tradingSimulator();
    const trades = await sweep(t);
    expect(trades.map((x) => x.priceMicro)).toEqual([510_000n, 520_000n, 530_000n]);
    expect(new Set(trades.map((x) => x.tradeId)).size).toBe(1);
    expect(new Set(trades.map((x) => x.fillId)).size).toBe(3);
    const bob = t.sim.venue.accounts.all().find((a) => a.label === 'bob')!;
    expect(bob.fills.map((f) => f.fillId)).toEqual(trades.map((x) => x.fillId));
    await t.sim.close();
    // The narrow reading: a trade per maker met, no fill id on the public frame.
    t = await tradingSimulator({ cases: NARROW_CASES });
    const narrow = await sweep(t);
    expect(new Set(narrow.map((x) => x.tradeId)).size).toBe(3);
    expect(narrow.every((x) => x.fillId === undefined)).toBe(true);
  });

  it('market states: a recurring live cycle reads DRAFT while it accepts orders; some markets name states outside the documented set; proposals read `proposed`', async () => {
    ({ sim } = await quietSimulator({ lifecycle: { endEventEveryMs: 0, haltEveryMs: 0 } }));
    const recurring = sim.venue.catalogue.events.find((e) => e.eventType === 'RECURRING_PROPOSITION')!;
    const detail = (await api(sim, 'GET', `/api/v1/events/${recurring.slug}`)).json;
    const live = (detail.markets as Array<{ state: string; is_accepting_orders: boolean }>).filter(
      (m) => m.is_accepting_orders,
    );
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((m) => m.state === 'DRAFT')).toBe(true);
    const states = new Set<string>();
    for (const event of sim.venue.catalogue.events.slice(0, 80)) {
      for (const m of (await api(sim, 'GET', `/api/v1/events/${event.slug}`)).json.markets ?? []) states.add(m.state);
    }
    expect(
      [...states].filter((s) => !['DRAFT', 'PROVISIONED', 'ACTIVE', 'CLOSED', 'RESOLVED'].includes(s)).length,
    ).toBeGreaterThan(0);
    const market = sim.venue.catalogue.markets.find((m) => sim!.venue.catalogue.isAcceptingOrders(m) && !m.recurring)!;
    sim.venue.lifecycle!.resolution.close(market, sim.venue.options.clock.now());
    sim.venue.lifecycle!.resolution.propose(market, [1_000_000n, 0n], 1, sim.venue.options.clock.now());
    const event = sim.venue.catalogue.eventOf(market);
    sim.advance(1_000); // past the CDN cache of the detail read above
    const proposed = (
      (await api(sim, 'GET', `/api/v1/events/${event.slug}`)).json.markets as Array<{
        id: string;
        resolution_status: string;
      }>
    ).find((m) => m.id === market.id);
    expect(proposed?.resolution_status).toBe('proposed');
  });

  it('late fills (§3.1): a resting order removed by a cancel-all reads CANCELLED, then MATCHED with a fill executed before the cancel', async () => {
    t = await tradingSimulator({ cases: { lateFillShare: 1, lateFillDelayMs: [2_000, 2_000] } });
    const placed = await api(t.sim, 'POST', '/trade/v1/orders', {
      token: t.alice,
      body: { token_id: t.yes, side: 'BUY', type: 'LIMIT', price_micro: '300000', shares_micro: '10000000' },
    });
    await settle();
    t.clock.advance(1_000);
    const cancelAll = await api(t.sim, 'POST', '/trade/v1/orders/cancel-all', { token: t.alice });
    const cutoffMs = t.clock.now();
    await settle();
    const read = async () =>
      (await api(t!.sim, 'GET', `/trade/v1/orders/${placed.json.internal_id}`, { token: t!.alice })).json;
    const trades = async () =>
      (await api(t!.sim, 'GET', `/trade/v1/orders/${placed.json.internal_id}/trades`, { token: t!.alice })).json.trades;
    expect(await read()).toMatchObject({ status: 'CANCELLED', is_terminal: true, size_matched_micro: '0' });
    expect(await trades()).toEqual([]);
    // as_of is a conservative upper bound of the cutoff, not the cutoff itself (§4.1).
    expect(Date.parse(cancelAll.json.as_of)).toBeGreaterThan(cutoffMs);
    t.sim.advance(2_000);
    expect(await read()).toMatchObject({ status: 'MATCHED', size_matched_micro: '10000000' });
    const [fill] = await trades();
    expect(Date.parse(fill.executed_at)).toBeLessThanOrEqual(cutoffMs);
    const activity = (
      await api(t.sim, 'GET', '/trade/v1/portfolio/activities', { token: t.alice })
    ).json.activities.find((a: { order_id?: string }) => a.order_id === placed.json.internal_id);
    expect(activity).toMatchObject({ status: 'MATCHED', fill_status: 'FULL' });
  });

  it('late fills after a GTD expiry too', async () => {
    t = await tradingSimulator({ cases: { lateFillShare: 1, lateFillDelayMs: [1_000, 1_000] } });
    const expiry = Math.floor(t.clock.now() / 1000) + 120;
    const placed = await api(t.sim, 'POST', '/trade/v1/orders', {
      token: t.alice,
      body: {
        token_id: t.yes,
        side: 'BUY',
        type: 'LIMIT',
        time_in_force: 'GTD',
        expiration_unix_seconds: expiry,
        price_micro: '300000',
        shares_micro: '10000000',
      },
    });
    await settle();
    t.sim.advance(121_000);
    const read = async () =>
      (await api(t!.sim, 'GET', `/trade/v1/orders/${placed.json.internal_id}`, { token: t!.alice })).json;
    expect((await read()).status).toBe('CANCELLED');
    t.sim.advance(1_000);
    expect((await read()).status).toBe('MATCHED');
  });

  it('edge counting settles (§8.3): a burst passes the cap until counted, then waits', async () => {
    ({ sim } = await quietSimulator({
      deployment: { limits: { edge: true, scale: 0.01 } },
      cases: { edgeSettlingMs: 2_000, cdnCacheMs: 0 },
    }));
    // Scale 0.01: 60 requests a minute to /api/v1. All of these land within one settling delay.
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) statuses.push((await api(sim, 'GET', '/api/v1/categories')).status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    sim.advance(2_000);
    expect((await api(sim, 'GET', '/api/v1/categories')).status).toBe(429);
  });

  it('CDN cache (§8.4): a public catalogue GET answered from the cache spends no budget and may be stale', async () => {
    ({ sim } = await quietSimulator({
      deployment: { limits: { edge: true, scale: 0.01 } },
      cases: { edgeSettlingMs: 0, cdnCacheMs: 1_000 },
    }));
    const first = await api(sim, 'GET', '/api/v1/categories');
    expect(first.headers.get('x-cache')).toBe('MISS');
    const hits = [];
    for (let i = 0; i < 100; i++) hits.push(await api(sim, 'GET', '/api/v1/categories'));
    expect(hits.every((h) => h.status === 200 && h.headers.get('x-cache') === 'HIT')).toBe(true);
    expect(hits[0]!.json).toEqual(first.json);
    // With a token the answer is the venue's own, every time.
    expect((await api(sim, 'GET', '/api/v1/categories', { token: sim.demoToken })).headers.get('x-cache')).toBeNull();
    sim.advance(1_000);
    expect((await api(sim, 'GET', '/api/v1/categories')).headers.get('x-cache')).toBe('MISS');
  });

  it('rate-limit headers (§8.2) are optional: some answers carry them, some do not; a 429 always does', async () => {
    ({ sim } = await quietSimulator({
      deployment: { limits: { account: true } },
      cases: { rateLimitHeadersShare: 0.5 },
    }));
    const answers = [];
    for (let i = 0; i < 40; i++)
      answers.push(await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: sim.demoToken }));
    const withHeaders = answers.filter((a) => a.headers.get('x-ratelimit-bucket') !== null).length;
    expect(withHeaders).toBeGreaterThan(5);
    expect(withHeaders).toBeLessThan(35);
    let refused;
    for (let i = 0; i < 200 && !refused; i++) {
      const a = await api(sim, 'GET', '/trade/v1/portfolio/summary', { token: sim.demoToken });
      if (a.status === 429) refused = a;
    }
    expect(refused?.headers.get('x-ratelimit-bucket')).toBe('read');
  });

  it('paging (§4.1): pages shorter than asked keep their cursor; a repeated cursor is injectable', async () => {
    ({ sim } = await quietSimulator({ cases: { shortPageShare: 0.5 } }));
    for (let i = 0; i < 40; i++) sim.venue.deposit(sim.venue.demo.account, USDC(1));
    const sizes: number[] = [];
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (
        await api(sim, 'GET', `/trade/v1/portfolio/activities?limit=5${cursor ? `&cursor=${cursor}` : ''}`, {
          token: sim.demoToken,
        })
      ).json;
      sizes.push(page.activities.length);
      ids.push(...page.activities.map((a: { id: string }) => a.id));
      cursor = page.pagination.next_cursor ?? undefined;
    } while (cursor);
    expect(sizes.slice(0, -1).some((n) => n < 5)).toBe(true);
    expect(new Set(ids).size).toBe(sim.venue.demo.account.activities.length);
    sim.faults.inject({ kind: 'repeat_cursor', path_prefix: '/trade/v1/portfolio/activities', duration_ms: 1_000 });
    const first = (await api(sim, 'GET', '/trade/v1/portfolio/activities?limit=5', { token: sim.demoToken })).json
      .pagination.next_cursor;
    const again = (
      await api(sim, 'GET', `/trade/v1/portfolio/activities?limit=5&cursor=${first}`, { token: sim.demoToken })
    ).json.pagination.next_cursor;
    expect(again).toBe(first);
  });
});
