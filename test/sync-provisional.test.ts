import { afterEach, describe, expect, it } from 'vitest';
import type { PlaceRequest } from '../src/simulator/engine/place-request.ts';
import { isReported } from '../src/simulator/orders.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { ProvisionalSince } from '../src/sync/settling.ts';
import { harness, latestBy, type Harness } from './sync-fixtures.ts';

/**
 * §3.1: CANCELLED is provisional — a late fill (the order filled just before the cancel-all
 * reached it, or before its GTD expiry removed it) turns it MATCHED. The simulator reports such an
 * order CANCELLED for a while, then MATCHED with a fill whose `executed_at` lies before.
 */

const MINUTE = 60_000;
const LATE_MS = 3_000;

describe('provisional states in the sync jobs', () => {
  let h: Harness;
  afterEach(async () => h.close());

  /** A resting BUY of the demo account in a market that accepts orders, far from any price. */
  function rest(overrides: Partial<PlaceRequest> = {}): string {
    const { venue } = h.sim;
    const market = venue.catalogue.markets.find(
      (m) => venue.catalogue.isAcceptingOrders(m) && m.tickMicro === 10_000n,
    )!;
    const order = venue.exchange.place(venue.demo.account.id, {
      tokenId: market.outcomes[0].tokenId,
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      postOnly: false,
      priceMicro: 20_000n,
      sharesMicro: 10_000_000n,
      collateralAmountMicro: undefined,
      expirationUnixSeconds: undefined,
      ...overrides,
    });
    h.sim.advance(50);
    return order.id;
  }

  /** Newer activities, so a frontier that passed the old orders would stop above them. */
  function deposit(): void {
    h.sim.venue.deposit(h.sim.venue.demo.account, 1_000_000n);
    h.sim.advance(1_000);
  }

  async function runJobs(): Promise<void> {
    for (const job of ['orders', 'activities', 'portfolio_trades', 'order_trades'] as const)
      expect((await runSyncJob(h.deps, job)).outcome).toBe('done');
  }

  it('orders cancelled long after they were placed, then filled late: activities, orders and fills agree on every order', async () => {
    h = await harness({ sim: { rate: 0, cases: { lateFillShare: 1, lateFillDelayMs: [LATE_MS, LATE_MS] } } });
    const nowS = (): number => Math.floor(h.sim.venue.options.clock.now() / 1000);
    const byCancelAll = rest();
    const byExpiry = rest({ timeInForce: 'GTD', expirationUnixSeconds: nowS() + 30 * 60 + 30 });
    await runJobs();
    // Half an hour of other activity: both orders rest, created well beyond the late-fill grace (10 min) ago.
    for (let i = 0; i < 30; i++) {
      h.sim.advance(MINUTE - 1_000);
      deposit();
      if (i % 5 === 0) await runJobs();
    }
    // One expires (removed at the next tick), the other goes with a cancel-all: each filled just before.
    h.sim.advance(MINUTE);
    h.sim.venue.exchange.cancelAll(h.sim.venue.demo.account.id);
    h.sim.advance(100);
    const { orders } = h.sim.venue.exchange;
    expect([orders.get(byCancelAll)!.reported?.status, orders.get(byExpiry)!.reported?.status]).toEqual([
      'CANCELLED',
      'CANCELLED',
    ]);
    // The passes that see them CANCELLED, newer activities in between.
    await runJobs();
    deposit();
    await runJobs();
    h.sim.advance(LATE_MS);
    deposit();
    await runJobs();
    expect(orders.get(byCancelAll)!.status).toBe('MATCHED');
    expect(orders.get(byCancelAll)!.reported).toBeUndefined();

    const account = h.sim.venue.demo.account;
    const orderRows = latestBy(h.bus.of('order'), (p) => p.internal_id as string);
    const activityRows = latestBy(
      h.bus.of('activity').filter((r) => (r.payload as { order_id?: string }).order_id !== undefined),
      (p) => p.order_id as string,
    );
    expect(orderRows.size).toBe(account.orders.length);
    for (const order of account.orders) {
      const o = orderRows.get(order.id)!;
      const a = activityRows.get(order.id)!;
      expect([a.status, a.filled_shares_micro], order.id).toEqual([o.status, o.size_matched_micro]);
    }
    expect(orderRows.get(byCancelAll)!.status).toBe('MATCHED');
    // Both late fills reached the fills, through the order's trades and the account's trades.
    const fills = new Set(h.bus.of('fill').map((r) => (r.payload as { fill_id: string }).fill_id));
    const lateFills = account.fills.filter((f) => f.orderId === byCancelAll || f.orderId === byExpiry);
    expect(lateFills.length).toBe(2);
    for (const fill of account.fills.filter((f) => isReported(f, h.sim.venue.options.clock.now())))
      expect(fills.has(fill.fillId), fill.fillId).toBe(true);
    const fromPortfolio = new Set(
      h.bus
        .of('fill')
        .filter((r) => (r.source as { job: string }).job === 'portfolio_trades')
        .map((r) => (r.payload as { fill_id: string }).fill_id),
    );
    for (const fill of lateFills)
      expect(fromPortfolio.has(fill.fillId), `${fill.fillId} in portfolio trades`).toBe(true);
  }, 60_000);

  it('times the grace from the first sighting, kept while the item is read, forgotten once it is neither read nor in grace', () => {
    const tuning = { lateFillGraceMs: 10 * MINUTE, openHorizonMs: 24 * 60 * MINUTE };
    const first = new ProvisionalSince(undefined);
    expect(first.observe('a', 'CANCELLED', 0)).toBe(0);
    expect(first.observe('b', 'LIVE', 0)).toBeUndefined();
    const saved = first.saved(0, tuning);
    expect(saved).toEqual({ a: 0 });
    // Read again 20 minutes on: still its first sighting (its grace is over, not started again).
    const later = new ProvisionalSince(saved);
    expect(later.observe('a', 'CANCELLED', 20 * MINUTE)).toBe(0);
    expect(later.saved(20 * MINUTE, tuning)).toEqual({ a: 0 });
    // Not read any more (below the frontier) and past its grace: forgotten. Turned MATCHED: forgotten.
    expect(new ProvisionalSince(saved).saved(20 * MINUTE, tuning)).toEqual({});
    const matched = new ProvisionalSince(saved);
    expect(matched.observe('a', 'MATCHED', MINUTE)).toBeUndefined();
    expect(matched.saved(MINUTE, tuning)).toEqual({});
  });
});
