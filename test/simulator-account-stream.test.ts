import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../src/simulator/index.ts';
import { api, settle, tradingSimulator, USDC, type TradingSetup } from './simulator-helpers.ts';
import { attempt, StreamClient, type Frame } from './simulator-stream-helpers.ts';

let t: TradingSetup;
const clients: StreamClient[] = [];

async function accountStream(token: string): Promise<StreamClient> {
  const client = await StreamClient.connect(t.sim, '/trade/v1/account-stream', token);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await t.sim.close();
});

function limit(
  token: string,
  side: 'BUY' | 'SELL',
  cents: number,
  shares: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    token_id: token,
    side,
    type: 'LIMIT',
    price_micro: String(cents * 10_000),
    shares_micro: String(shares * 1_000_000),
    ...extra,
  };
}

async function place(as: string, body: Record<string, unknown>): Promise<Frame> {
  const res = await api(t.sim, 'POST', '/trade/v1/orders', { token: as, body });
  expect(res.status).toBe(202);
  await settle();
  return res.json as Frame;
}

/** The account frames received, as `kind` or `kind:reason` / `kind:status`. */
async function kinds(client: StreamClient): Promise<string[]> {
  await client.sync();
  return client.of('account_events').map((f) => {
    const d = f.data as Frame;
    if (d.kind === 'order_cancelled') return `order_cancelled:${d.reason}`;
    if (d.kind === 'order_rejected') return `order_rejected:${d.order.status}`;
    if (d.kind === 'collateral_updated') return `collateral_updated:${d.reason}`;
    return d.kind as string;
  });
}

const orderKinds = (list: string[]): string[] => list.filter((k) => k.startsWith('order_') || k === 'fill');

async function setup(options: SimulatorOptions = {}): Promise<void> {
  t = await tradingSimulator(options);
}

describe('account stream: the emission table of §6.3, row by row', () => {
  it('opens subscribed to account_events, and refuses missing credentials and a token without the scope', async () => {
    await setup();
    const client = await accountStream(t.alice);
    await client.sync();
    expect(client.frames[0]).toMatchObject({
      type: 'subscribed',
      seq: 1,
      data: { channels: ['account_events'], connection_id: expect.any(String), as_of: expect.any(String) },
    });
    const none = await attempt(t.sim, '/trade/v1/account-stream');
    expect(none).toMatchObject({
      status: 401,
      headers: { 'content-type': 'application/problem+json' },
      body: { code: 'credentials_missing', status: 401 },
    });
    if (none === 'opened') throw new Error('the venue opened an account stream without credentials');
    expect(none.body.request_id).toBe(none.headers['x-request-id']);
    const noScope = t.sim.venue.createAccount('no-scope', USDC(1), ['portfolio:read']).token.secret;
    expect(await attempt(t.sim, '/trade/v1/account-stream', noScope)).toMatchObject({
      status: 403,
      body: { code: 'forbidden_scope' },
    });
  });

  it('order accepted after PENDING → order_accepted; fill → fill, with the position and collateral that moved', async () => {
    await setup();
    const alice = await accountStream(t.alice);
    const bob = await accountStream(t.bob);
    const maker = await place(t.alice, limit(t.no, 'BUY', 40, 10));
    await place(t.bob, limit(t.yes, 'BUY', 60, 4));
    expect(await kinds(alice)).toEqual(['order_accepted', 'fill', 'position_updated', 'collateral_updated:FILL']);
    expect(await kinds(bob)).toEqual(['order_accepted', 'fill', 'position_updated', 'collateral_updated:FILL']);
    const frames = alice.of('account_events').map((f) => f.data as Frame);
    expect(frames[0]?.order).toMatchObject({ internal_id: maker.internal_id, status: 'SUBMITTING', token_id: t.no });
    expect(frames[1]?.fill).toMatchObject({
      order_id: maker.internal_id,
      role: 'MAKER',
      side: 'BUY',
      price_micro: '400000',
      shares_micro: '4000000',
      exchange: 'SERVICE',
    });
    expect(frames[2]?.position).toMatchObject({
      token_id: t.no,
      shares_micro: '4000000',
      open_cost_basis_micro: '1600000',
    });
    const summary = (await api(t.sim, 'GET', '/trade/v1/portfolio/summary', { token: t.alice })).json.summaries[0];
    expect(frames[3]).toMatchObject({ cash_balance_micro: summary.cash_balance_micro });
    // Maker: pays 0.40 × 4 and earns a quarter of the taker's fee back.
    expect(BigInt(frames[3]?.change_micro)).toBe(BigInt(summary.cash_balance_micro) - USDC(10_000));
  });

  it('self-trade prevention on a resting maker → order_cancelled with reason SELF_TRADE_PREVENTION', async () => {
    await setup();
    const alice = await accountStream(t.alice);
    const own = await place(t.alice, limit(t.yes, 'BUY', 50, 10));
    await place(t.alice, limit(t.no, 'BUY', 50, 10));
    expect(orderKinds(await kinds(alice))).toEqual([
      'order_accepted',
      'order_accepted',
      'order_cancelled:SELF_TRADE_PREVENTION',
    ]);
    expect(alice.of('account_events', 'order_cancelled')[0]?.data.order).toMatchObject({
      internal_id: own.internal_id,
      status: 'CANCELLED',
    });
  });

  it('GTD expiry of a resting order → order_cancelled with reason USER', async () => {
    await setup();
    const alice = await accountStream(t.alice);
    const exp = Math.floor(t.clock.now() / 1000) + 90;
    const gtd = await place(
      t.alice,
      limit(t.yes, 'BUY', 30, 10, { time_in_force: 'GTD', expiration_unix_seconds: exp }),
    );
    t.sim.advance(91_000);
    expect(orderKinds(await kinds(alice))).toEqual(['order_accepted', 'order_cancelled:USER']);
    expect(alice.of('account_events', 'order_cancelled')[0]?.data.order.internal_id).toBe(gtd.internal_id);
  });

  describe('with a delay between acceptance and the book', () => {
    it('post-only failure after acceptance → order_rejected REJECTED; a market halted before submission → order_rejected FAILED', async () => {
      await setup({ venue: { exchange: { submissionDelayMs: 5_000 } } });
      const alice = await accountStream(t.alice);
      await place(t.bob, limit(t.no, 'BUY', 47, 5));
      const late = await place(t.alice, limit(t.yes, 'BUY', 53, 5, { post_only: true }));
      t.sim.advance(5_000);
      await place(t.alice, limit(t.yes, 'BUY', 20, 5));
      t.sim.venue.catalogue.halt(t.market.conditionId, 'review', t.clock.now());
      t.sim.advance(5_000);
      expect(await kinds(alice)).toEqual(['order_rejected:REJECTED', 'order_rejected:FAILED']);
      const [rejected, failed] = alice.of('account_events').map((f) => f.data.order as Frame);
      expect(rejected).toMatchObject({
        internal_id: late.internal_id,
        failure: { code: 'post_only_would_cross', recovery: { strategy: 'none' } },
      });
      expect(failed?.failure.code).toBe('market_closed');
    });

    it('cancel of a PENDING order, by cancel-all or GTD expiry → no frame', async () => {
      await setup({ venue: { exchange: { submissionDelayMs: 600_000 } } });
      const alice = await accountStream(t.alice);
      await place(t.alice, limit(t.yes, 'BUY', 30, 10));
      const exp = Math.floor(t.clock.now() / 1000) + 61;
      const gtd = await place(
        t.alice,
        limit(t.yes, 'BUY', 31, 10, { time_in_force: 'GTD', expiration_unix_seconds: exp }),
      );
      t.sim.advance(62_000);
      expect((await api(t.sim, 'GET', `/trade/v1/orders/${gtd.internal_id}`, { token: t.alice })).json.status).toBe(
        'CANCELLED',
      );
      expect((await api(t.sim, 'POST', '/trade/v1/orders/cancel-all', { token: t.alice })).status).toBe(202);
      t.sim.advance(0);
      expect(await kinds(alice)).toEqual([]);
    });
  });

  it('sends only its own account, stops on unsubscribe, and reports deposits and redemptions with the collateral they move', async () => {
    await setup({
      lifecycle: { haltEveryMs: 0, endEventEveryMs: 0, proposeAfterMs: 0, challengeMs: 0, redeemDelayMs: 0 },
    });
    const alice = await accountStream(t.alice);
    const aliceAccount = t.sim.venue.accounts.tokenBySecret(t.alice)?.accountId ?? '';
    await place(t.bob, limit(t.no, 'BUY', 40, 10));
    await place(t.alice, limit(t.yes, 'BUY', 60, 10));
    t.sim.venue.deposit(t.sim.venue.accounts.get(aliceAccount)!, USDC(5));
    const resolution = t.sim.venue.lifecycle!.resolution;
    resolution.close(t.market, t.clock.now());
    resolution.resolve(t.market, [1_000_000n, 0n], t.clock.now());
    resolution.redeem(t.market, t.clock.now());
    expect(await kinds(alice)).toEqual([
      'order_accepted',
      'fill',
      'position_updated',
      'collateral_updated:FILL',
      'collateral_updated:DEPOSIT',
      'position_redeemed',
      'position_updated',
      'collateral_updated:REDEMPTION',
    ]);
    const redeemed = alice.of('account_events', 'position_redeemed')[0]?.data;
    expect(redeemed).toMatchObject({
      token_id: t.yes,
      condition_id: t.market.conditionId,
      shares_micro: '10000000',
      resolution_price_micro: '1000000',
      payout_micro: '10000000',
    });
    expect(alice.of('account_events', 'collateral_updated').at(-1)?.data.change_micro).toBe('10000000');
    expect(alice.of('account_events', 'position_updated').at(-1)?.data.position).toMatchObject({
      token_id: t.yes,
      shares_micro: '0',
    });

    const ack = await alice.subscribe(['account_events'], {}, 'unsubscribe');
    expect(ack.data.channels).toEqual(['account_events']);
    await place(t.alice, limit(tradable(), 'BUY', 30, 5));
    await alice.sync();
    expect(alice.frames.filter((f) => f.seq > ack.seq && f.type === 'account_events')).toEqual([]);
  });

  it('closes with 4003 when its token is revoked', async () => {
    await setup();
    const account = t.sim.venue.createAccount('revoked', USDC(10));
    const client = await accountStream(account.token.secret);
    const identity = t.sim.venue.accounts.issueIdentityToken(account.account.id, t.clock.now() + 60_000);
    expect(
      (await api(t.sim, 'DELETE', `/trade/v1/auth/tokens/${account.token.id}`, { token: identity.secret })).status,
    ).toBe(200);
    t.sim.advance(50);
    expect((await client.closed).code).toBe(4003);
  });
});

/** A token of another market that still trades (the first one was resolved). */
function tradable(): string {
  const m = t.sim.venue.catalogue.markets.find(
    (x) => t.sim.venue.catalogue.isAcceptingOrders(x) && x.tickMicro === 10_000n && x.minOrderSizeMicro <= 5_000_000n,
  );
  return m?.outcomes[0].tokenId ?? '';
}
