import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountEvent } from '../src/simulator/events.ts';
import type { SimMarket } from '../src/simulator/catalogue/types.ts';
import type { ManualClock, SimulatorHandle } from '../src/simulator/index.ts';
import { api, quietSimulator, settle, tradableMarket, USDC, type ApiResponse } from './simulator-helpers.ts';

let sim: SimulatorHandle;
let clock: ManualClock;
let market: SimMarket;
let yes: string;
let no: string;
let alice: string;
let bob: string;
let frames: AccountEvent[];

async function setup(submissionDelayMs = 0): Promise<void> {
  ({ sim, clock } = await quietSimulator({ venue: { exchange: { submissionDelayMs } } }));
  market = tradableMarket(sim);
  [yes, no] = market.outcomes.map((o) => o.tokenId) as [string, string];
  alice = sim.venue.createAccount('alice', USDC(10_000)).token.secret;
  bob = sim.venue.createAccount('bob', USDC(10_000)).token.secret;
  frames = [];
  sim.venue.events.on('account', (e) => frames.push(e));
}

function limit(
  token: string,
  side: 'BUY' | 'SELL',
  price: number,
  shares: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    token_id: token,
    side,
    type: 'LIMIT',
    price_micro: String(price * 10_000),
    shares_micro: String(shares * 1_000_000),
    ...extra,
  };
}

async function place(as: string, body: Record<string, unknown>): Promise<ApiResponse> {
  const res = await api(sim, 'POST', '/trade/v1/orders', { token: as, body });
  await settle();
  return res;
}

async function order(as: string, id: unknown): Promise<Record<string, unknown>> {
  return (await api(sim, 'GET', `/trade/v1/orders/${String(id)}`, { token: as })).json;
}

afterEach(async () => {
  await sim.close();
});

describe('matching', () => {
  beforeEach(() => setup());

  it('matches a BUY on one outcome with a BUY on the other at the complementary price', async () => {
    const maker = await place(alice, limit(no, 'BUY', 40, 10));
    expect(maker.status).toBe(202);
    expect(maker.json.status).toBe('PENDING');
    expect((await order(alice, maker.json.internal_id)).status).toBe('LIVE');

    const yesBook = (await api(sim, 'GET', `/trade/v1/orderbook/${yes}`, { token: alice })).json;
    expect(yesBook.asks).toEqual([{ price_micro: '600000', shares_micro: '10000000' }]);
    const noBook = (await api(sim, 'GET', `/trade/v1/orderbook/${no}`, { token: alice })).json;
    expect(noBook.bids).toEqual([{ price_micro: '400000', shares_micro: '10000000' }]);

    const taker = await place(bob, limit(yes, 'BUY', 60, 10));
    const takerOrder = await order(bob, taker.json.internal_id);
    expect(takerOrder).toMatchObject({
      status: 'MATCHED',
      is_terminal: true,
      size_matched_micro: '10000000',
      avg_fill_price_micro: '600000',
    });
    expect((await order(alice, maker.json.internal_id)).status).toBe('MATCHED');

    const takerTrades = (
      await api(sim, 'GET', `/trade/v1/orders/${String(taker.json.internal_id)}/trades`, { token: bob })
    ).json.trades;
    const makerTrades = (
      await api(sim, 'GET', `/trade/v1/orders/${String(maker.json.internal_id)}/trades`, { token: alice })
    ).json.trades;
    // Taker fee: 1% × min(0.6, 0.4) × 10 shares = 0.04; the maker pays none.
    expect(takerTrades).toMatchObject([
      {
        side: 'BUY',
        role: 'TAKER',
        token_id: yes,
        price_micro: '600000',
        shares_micro: '10000000',
        fee_micro: '40000',
        exchange: 'SERVICE',
        status: 'MATCHED',
      },
    ]);
    expect(makerTrades).toMatchObject([
      { side: 'BUY', role: 'MAKER', token_id: no, price_micro: '400000', shares_micro: '10000000', fee_micro: '0' },
    ]);
    expect(takerTrades[0].trade_id).toBe(makerTrades[0].trade_id);

    const bobCash = (await api(sim, 'GET', '/trade/v1/portfolio/summary', { token: bob })).json.summaries[0];
    expect(bobCash.cash_balance_micro).toBe(String(USDC(10_000) - 6_000_000n - 40_000n));
    const rebates = (await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: alice })).json;
    expect(rebates).toEqual({
      lp_incentive_micro: '0',
      maker_rebate_micro: '10000',
      vip_rebate_micro: '0',
      total_micro: '10000',
    });
    expect((await api(sim, 'GET', `/trade/v1/orderbook/${yes}`, { token: alice })).json.asks).toEqual([]);
  });

  it('cancels the resting maker of the same account and lets the incoming order go on', async () => {
    const own = await place(alice, limit(yes, 'BUY', 50, 10));
    const other = await place(bob, limit(yes, 'BUY', 49, 10));
    const incoming = await place(alice, limit(no, 'BUY', 50, 10));
    expect((await order(alice, own.json.internal_id)).status).toBe('CANCELLED');
    expect(await order(alice, incoming.json.internal_id)).toMatchObject({ status: 'LIVE', size_matched_micro: '0' });
    expect((await order(bob, other.json.internal_id)).status).toBe('LIVE');
    const stp = frames.filter((f) => f.kind === 'order_cancelled');
    expect(stp).toHaveLength(1);
    expect(stp[0]).toMatchObject({ reason: 'SELF_TRADE_PREVENTION', order: { id: own.json.internal_id } });
    expect(frames.filter((f) => f.kind === 'fill')).toHaveLength(0);
  });

  it('refuses a fill-or-kill order the book cannot fill completely, and fills one it can', async () => {
    await place(bob, limit(no, 'BUY', 45, 5));
    const refused = await place(alice, limit(yes, 'BUY', 55, 10, { time_in_force: 'FOK' }));
    expect(refused.status).toBe(422);
    expect(refused.json.code).toBe('order_not_fillable');
    const filled = await place(alice, limit(yes, 'BUY', 55, 5, { time_in_force: 'FOK' }));
    expect(filled.status).toBe(202);
    expect(await order(alice, filled.json.internal_id)).toMatchObject({
      status: 'MATCHED',
      size_matched_micro: '5000000',
    });
  });

  it('fills a fill-and-kill order partly and drops the rest', async () => {
    await place(bob, limit(no, 'BUY', 45, 5));
    const fak = await place(alice, limit(yes, 'BUY', 56, 12, { time_in_force: 'FAK' }));
    const o = await order(alice, fak.json.internal_id);
    expect(o).toMatchObject({
      status: 'MATCHED',
      is_terminal: true,
      original_size_micro: '12000000',
      size_matched_micro: '5000000',
      avg_fill_price_micro: '550000',
    });
    const summary = (await api(sim, 'GET', '/trade/v1/portfolio/summary', { token: alice })).json.summaries[0];
    expect(summary.free_cash_micro).toBe(summary.cash_balance_micro);
    expect((await api(sim, 'GET', `/trade/v1/orderbook/${yes}`, { token: alice })).json.bids).toEqual([]);
  });

  it('rejects a post-only order that would cross, and rests one that would not', async () => {
    await place(bob, limit(no, 'BUY', 45, 5));
    const crossing = await place(alice, limit(yes, 'BUY', 55, 5, { post_only: true }));
    expect(crossing.status).toBe(422);
    expect(crossing.json).toMatchObject({
      code: 'post_only_would_cross',
      type: 'urn:service:problem:post-only-would-cross',
    });
    const resting = await place(alice, limit(yes, 'BUY', 54, 5, { post_only: true }));
    expect((await order(alice, resting.json.internal_id)).status).toBe('LIVE');
  });

  it('spends a market buy budget including the fee and releases what is left', async () => {
    await place(bob, limit(no, 'BUY', 50, 100));
    const mkt = await place(alice, { token_id: yes, side: 'BUY', type: 'MARKET', collateral_amount_micro: '10000000' });
    const o = await order(alice, mkt.json.internal_id);
    expect(o.status).toBe('MATCHED');
    expect(o.price_micro).toBeUndefined();
    expect(o.original_size_micro).toBeUndefined();
    const fills = (await api(sim, 'GET', `/trade/v1/orders/${String(mkt.json.internal_id)}/trades`, { token: alice }))
      .json.trades;
    const spent = fills.reduce(
      (s: bigint, f: Record<string, string>) =>
        s + (BigInt(f.price_micro ?? 0) * BigInt(f.shares_micro ?? 0)) / 1_000_000n + BigInt(f.fee_micro ?? 0),
      0n,
    );
    expect(spent).toBeLessThanOrEqual(10_000_000n);
    expect(spent).toBeGreaterThan(9_900_000n);
    const summary = (await api(sim, 'GET', '/trade/v1/portfolio/summary', { token: alice })).json.summaries[0];
    expect(BigInt(summary.cash_balance_micro)).toBe(USDC(10_000) - spent);
    expect(summary.free_cash_micro).toBe(summary.cash_balance_micro);
  });

  it('answers each synchronous refusal with its code', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [limit(yes, 'BUY', 1, 5), 'order_value_below_minimum'],
      [limit(yes, 'BUY', 99, 200_000), 'order_value_above_maximum'],
      [{ ...limit(yes, 'BUY', 50, 10), price_micro: '0' }, 'order_price_out_of_range'],
      [{ ...limit(yes, 'BUY', 50, 10), price_micro: '1000000' }, 'order_price_out_of_range'],
      [limit(yes, 'SELL', 50, 10), 'insufficient_shares'],
      [
        limit(yes, 'BUY', 50, 10, {
          time_in_force: 'GTD',
          expiration_unix_seconds: Math.floor(clock.now() / 1000) + 30,
        }),
        'order_expiration_too_soon',
      ],
    ];
    for (const [body, code] of cases) {
      const res = await place(alice, body);
      expect({ code: res.json.code, status: res.status }).toEqual({ code, status: 422 });
    }
    const poor = sim.venue.createAccount('poor', USDC(1)).token.secret;
    expect((await place(poor, limit(yes, 'BUY', 50, 10))).json.code).toBe('insufficient_balance');
  });

  it('lists every bad field of an invalid order in field_errors', async () => {
    const res = await place(alice, {
      token_id: yes,
      side: 'BUY',
      type: 'MARKET',
      time_in_force: 'GTC',
      price_micro: '505000',
      post_only: true,
    });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('validation_failed');
    const paths = res.json.field_errors.map((e: { path: string[] }) => e.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining(['price_micro', 'time_in_force', 'collateral_amount_micro', 'post_only']),
    );
    const offTick = await place(alice, { ...limit(yes, 'BUY', 50, 10), price_micro: '505000' });
    expect(offTick.json.field_errors).toEqual([
      expect.objectContaining({ path: ['price_micro'], code: 'not_on_tick' }),
    ]);
  });

  it('refuses orders on a halted market with market_closed until it resumes', async () => {
    sim.venue.catalogue.halt(market.conditionId, 'review', clock.now());
    expect((await place(alice, limit(yes, 'BUY', 50, 10))).json.code).toBe('market_closed');
    sim.venue.catalogue.resume(market.conditionId, clock.now());
    expect((await place(alice, limit(yes, 'BUY', 50, 10))).status).toBe(202);
  });

  it('removes a resting GTD order once it expires, with an order_cancelled frame of reason USER', async () => {
    const exp = Math.floor(clock.now() / 1000) + 120;
    const gtd = await place(alice, limit(yes, 'BUY', 30, 10, { time_in_force: 'GTD', expiration_unix_seconds: exp }));
    expect(await order(alice, gtd.json.internal_id)).toMatchObject({
      status: 'LIVE',
      expiration: new Date(exp * 1000).toISOString(),
    });
    sim.advance(exp * 1000 - clock.now() - 1_000);
    expect((await order(alice, gtd.json.internal_id)).status).toBe('LIVE');
    sim.advance(2_000);
    expect((await order(alice, gtd.json.internal_id)).status).toBe('CANCELLED');
    expect(frames.filter((f) => f.kind === 'order_cancelled')).toMatchObject([
      { reason: 'USER', order: { id: gtd.json.internal_id } },
    ]);
    const summary = (await api(sim, 'GET', '/trade/v1/portfolio/summary', { token: alice })).json.summaries[0];
    expect(summary.free_cash_micro).toBe(summary.cash_balance_micro);
  });
});

describe('orders between acceptance and the book', () => {
  beforeEach(() => setup(5_000));

  it('ends a post-only order REJECTED when the book moved after its 202', async () => {
    await place(bob, limit(no, 'BUY', 47, 5));
    const late = await place(alice, limit(yes, 'BUY', 53, 5, { post_only: true }));
    expect(late.status).toBe(202);
    sim.advance(5_000);
    const o = await order(alice, late.json.internal_id);
    expect(o).toMatchObject({
      status: 'REJECTED',
      is_terminal: true,
      failure: { code: 'post_only_would_cross', recovery: { strategy: 'none' } },
    });
    expect(frames.filter((f) => f.kind === 'order_rejected')).toHaveLength(1);
  });

  it('cancels PENDING orders silently and resting ones with a frame on cancel-all', async () => {
    const resting = await place(alice, limit(yes, 'BUY', 30, 10));
    sim.advance(5_000);
    const pending = await place(alice, limit(yes, 'BUY', 31, 10));
    const res = await api(sim, 'POST', '/trade/v1/orders/cancel-all', { token: alice });
    expect(res.status).toBe(202);
    expect(Date.parse(res.json.as_of)).toBeGreaterThanOrEqual(clock.now());
    sim.advance(0);
    expect(await order(alice, resting.json.internal_id)).toMatchObject({
      status: 'CANCELLED',
      cancel_requested_at: expect.any(String),
    });
    expect((await order(alice, pending.json.internal_id)).status).toBe('CANCELLED');
    const cancelled = frames.filter((f) => f.kind === 'order_cancelled');
    expect(cancelled.map((f) => f.order.id)).toEqual([resting.json.internal_id]);
  });

  it('cancels a PENDING GTD order at expiry without a frame', async () => {
    const exp = Math.floor(clock.now() / 1000) + 61;
    sim.venue.exchange.config.submissionDelayMs = 600_000;
    const gtd = await place(alice, limit(yes, 'BUY', 30, 10, { time_in_force: 'GTD', expiration_unix_seconds: exp }));
    sim.advance(62_000);
    expect((await order(alice, gtd.json.internal_id)).status).toBe('CANCELLED');
    expect(frames.filter((f) => f.kind === 'order_cancelled')).toHaveLength(0);
  });
});
