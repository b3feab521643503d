import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Availability } from '../src/api/availability.ts';
import { VenueClient } from '../src/api/client.ts';
import { itemsOf } from '../src/api/paging.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import { ManualClock, startSimulator, type SimulatorHandle } from '../src/simulator/index.ts';
import { Secret } from '../src/util/secret.ts';
import { nowMicros, type Clock } from '../src/util/clock.ts';

/**
 * The client against the venue simulator, which was written independently from the interface
 * document: every read endpoint must parse, and every paged one must be followed to its end.
 */
describe('the client against the simulator', () => {
  let sim: SimulatorHandle;
  let client: VenueClient;
  const logLines: string[] = [];

  beforeAll(async () => {
    const venueTime = new ManualClock();
    sim = await startSimulator({ seed: 11, rate: 50, clock: venueTime });
    // Let the synthetic traders trade for a while so the demo account has history.
    for (let i = 0; i < 60; i += 1) sim.advance(500);
    // One virtual time for both sides: when the client waits (pacing, backoff), the venue's time
    // moves by as much, so its buckets refill exactly as they would in real time.
    const clock: Clock = {
      now: () => venueTime.now(),
      sleep: async (ms) => sim.advance(Math.ceil(ms)),
      epochMicros: nowMicros,
    };
    client = new VenueClient({
      baseUrl: sim.url,
      token: new Secret(sim.demoToken),
      clock,
      limiter: new RateLimiter({ ipLimits: new IpLimits(), clock }),
      availability: new Availability(),
      logger: pino(
        { level: 'debug' },
        new Writable({ write: (chunk: Buffer, _encoding, done) => (logLines.push(chunk.toString()), done()) }),
      ),
    });
  });

  afterAll(async () => {
    await client.close();
    await sim.close();
  });

  async function count(iterable: AsyncIterable<unknown>): Promise<number> {
    let n = 0;
    for await (const _ of iterable) n += 1;
    return n;
  }

  it('catalogue: every event page, an event detail with markets, sports_live sections, a category', async () => {
    const events = [];
    for await (const event of itemsOf(client.catalogue.eventPages({ limit: 7, include_markets: true }), 'events'))
      events.push(event.value);
    expect(events.length).toBeGreaterThan(7);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const slug = events.find((e) => e.slug)?.slug as string;
    const detail = await client.catalogue.event(slug);
    expect(detail.value.markets?.length).toBeGreaterThan(0);
    expect(Array.isArray((await client.catalogue.sportsLive()).value.sections)).toBe(true);
    const tokenId = detail.value.markets?.[0]?.outcomes?.[0]?.token_id as string;
    const book = await client.orders.orderbook(tokenId);
    for (const level of [...book.value.bids, ...book.value.asks]) expect(typeof level.shares_micro).toBe('bigint');
  });

  it('account: orders, open orders, trades, activities (both), positions, summary, pnl, rebates, assets, LP incentives', async () => {
    const orders = [];
    for await (const order of itemsOf(client.orders.orderPages({ limit: 2 }), 'orders')) orders.push(order.value);
    expect(orders.length).toBeGreaterThan(0);
    const first = orders[0];
    if (first) {
      expect((await client.orders.order(first.internal_id)).value.internal_id).toBe(first.internal_id);
      await client.orders.orderTrades(first.internal_id);
    }
    await count(client.orders.openOrderPages());
    await count(client.portfolio.tradePages());
    const activityIds = [];
    for await (const activity of itemsOf(client.portfolio.activityPages({ limit: 3 }), 'activities'))
      activityIds.push(activity.value.id);
    expect(activityIds.length).toBeGreaterThan(3);
    expect(new Set(activityIds).size).toBe(activityIds.length);
    expect(await count(client.portfolio.activityListPages({ limit: 500 }))).toBeGreaterThan(0);
    expect((await client.portfolio.positions()).value.unavailable_exchanges ?? []).not.toContain('SERVICE');
    expect((await client.portfolio.summary()).value.summaries[0]?.exchange).toBe('SERVICE');
    expect(typeof (await client.portfolio.pnl()).value.lifetime_pnl_micro).toBe('bigint');
    expect(typeof (await client.portfolio.rebates()).value.total_micro).toBe('bigint');
    await client.portfolio.withdrawalSupportedAssets();
    await client.portfolio.lpIncentives({ sort_by: 'reward_pool', sort_order: 'desc' });
  });

  it('paced by the client alone, the simulator never had to refuse a request', () => {
    const statuses = logLines
      .map((line) => (JSON.parse(line) as { status?: number }).status)
      .filter((status) => status !== undefined);
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
  });
});
