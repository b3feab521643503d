import { afterEach, describe, expect, it } from 'vitest';
import { isReported } from '../src/simulator/orders.ts';
import { renderActivity } from '../src/simulator/wire/render/portfolio.ts';
import { renderFill, renderOrder } from '../src/simulator/wire/render/order.ts';
import { PublishedMemory } from '../src/sync/publisher.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { asWire, harness, latestBy, type Harness } from './sync-fixtures.ts';

/**
 * The job's pacing moves the venue's clock: with trading going on, what the account does after the
 * job read its last page is the next run's. These tests compare one run with the account's whole
 * history, so the order flow stops after the warm-up.
 */
function stopTrading(h: Harness): void {
  h.sim.venue.traders.rate = 0;
}

describe('account lists paged into the bus', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('activities: every activity of the account once, cursor followed to the end', async () => {
    h = await harness({
      warmUpMs: 30_000,
      tuning: { pageSize: { events: 100, orders: 500, openOrders: 500, trades: 500, activities: 7 } },
    });
    stopTrading(h);
    const report = await runSyncJob(h.deps, 'activities');
    const truth = h.sim.venue.demo.account.activities;
    expect(truth.length).toBeGreaterThan(20);
    // Pages may come shorter than asked (a case the interface allows): at least this many.
    // Every activity, and the entries of the pages' lookup maps (test/sync-venue-records.test.ts).
    expect(report).toMatchObject({ outcome: 'done', records: truth.length + h.bus.of('lookup').length });
    expect(report.pages).toBeGreaterThanOrEqual(Math.ceil(truth.length / 7));
    const published = h.bus.of('activity').map((r) => (r.payload as { id: string }).id);
    expect(published.sort()).toEqual(truth.map((a) => a.id).sort());
    const latest = latestBy(h.bus.of('activity'), (p) => p.id as string);
    for (const activity of truth)
      expect(latest.get(activity.id)).toEqual(asWire(renderActivity(h.sim.venue, activity)));
  });

  it("orders, their fills, and the account trades equal the simulator's own records", async () => {
    h = await harness({ warmUpMs: 30_000 });
    stopTrading(h);
    for (const job of ['orders', 'order_trades', 'portfolio_trades'] as const)
      expect((await runSyncJob(h.deps, job)).outcome).toBe('done');
    const account = h.sim.venue.demo.account;
    const orders = latestBy(h.bus.of('order'), (p) => p.internal_id as string);
    expect([...orders.keys()].sort()).toEqual(account.orders.map((o) => o.id).sort());
    for (const order of account.orders) expect(orders.get(order.id)).toEqual(asWire(renderOrder(order)));
    const fills = latestBy(h.bus.of('fill'), (p) => p.fill_id as string);
    // A late fill (§3.1) is listed only once the venue reports it.
    const listed = account.fills.filter((f) => isReported(f, h.sim.venue.options.clock.now()));
    expect(listed.length).toBeGreaterThan(0);
    expect([...fills.keys()].sort()).toEqual(listed.map((f) => f.fillId).sort());
    for (const fill of listed) expect(fills.get(fill.fillId)).toEqual(asWire(renderFill(fill)));
  });

  it('orders: a memory smaller than the history forgets, and a later pass still lists every order in its latest state', async () => {
    h = await harness({ warmUpMs: 30_000 });
    // The memory keeps an unchanged order off the bus; a forgotten one costs a re-publish, never a skip.
    const deps = { ...h.deps, memory: new PublishedMemory(16) };
    expect((await runSyncJob(deps, 'orders')).outcome).toBe('done');
    const account = h.sim.venue.demo.account;
    const before = new Map(account.orders.map((o) => [o.id, JSON.stringify(asWire(renderOrder(o)))]));
    expect(before.size).toBeGreaterThan(16 * 4);
    for (let t = 0; t < 20_000; t += 500) h.sim.advance(500);
    stopTrading(h);
    const published = h.bus.records.length;
    expect((await runSyncJob(deps, 'orders')).outcome).toBe('done');
    const second = h.bus.records.slice(published).filter((r) => r.kind === 'order');
    const changed = account.orders.filter((o) => before.get(o.id) !== JSON.stringify(asWire(renderOrder(o))));
    expect(changed.length).toBeGreaterThan(0);
    // Every order new or changed since the first pass is in the second: the order list is followed to its end (§4.1).
    const secondIds = new Set(second.map((r) => (r.payload as { internal_id: string }).internal_id));
    for (const order of changed) expect(secondIds.has(order.id)).toBe(true);
    // And the forgotten ones came again: more than the memory could have kept off the bus.
    expect(second.length).toBeGreaterThan(changed.length);
    const orders = latestBy(h.bus.of('order'), (p) => p.internal_id as string);
    expect([...orders.keys()].sort()).toEqual(account.orders.map((o) => o.id).sort());
    for (const order of account.orders) expect(orders.get(order.id)).toEqual(asWire(renderOrder(order)));
  });
});
