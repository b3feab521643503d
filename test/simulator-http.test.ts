import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type Scope } from '../src/simulator/accounts/registry.ts';
import type { ManualClock, SimulatorHandle } from '../src/simulator/index.ts';
import { api, quietSimulator, settle, tradableMarket, USDC, type ApiResponse } from './simulator-helpers.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let sim: SimulatorHandle;
let clock: ManualClock;
let full: string;

beforeAll(async () => {
  ({ sim, clock } = await quietSimulator({ rate: 40 }));
  // A minute of synthetic trading so accounts have orders, fills and activities.
  for (let i = 0; i < 600; i++) sim.advance(100);
  full = sim.venue.createAccount('full', USDC(10_000)).token.secret;
});
afterAll(async () => {
  await sim.close();
});

function expectProblem(res: { status: number; headers: Headers; json: Json }, status: number, code: string): void {
  expect({ status: res.status, code: res.json.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.json.type).toBe(`urn:service:problem:${code.replace(/_/g, '-')}`);
  expect(res.json.status).toBe(status);
  expect(res.json.request_id).toBe(res.headers.get('x-request-id'));
  expect(res.json.recovery.strategy).toEqual(expect.any(String));
}

describe('request errors', () => {
  it('answers malformed, oversized, mistyped and misrouted requests with problem+json', async () => {
    expectProblem(
      await api(sim, 'POST', '/trade/v1/orders', {
        token: full,
        rawBody: '{"side":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'malformed_json',
    );
    expectProblem(
      await api(sim, 'POST', '/trade/v1/orders', {
        token: full,
        rawBody: 'side=BUY',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
    expectProblem(
      await api(sim, 'POST', '/trade/v1/orders', { token: full, body: { pad: 'x'.repeat(70_000) } }),
      413,
      'request_body_too_large',
    );
    expectProblem(await api(sim, 'GET', '/trade/v1/nothing/here', { token: full }), 404, 'route_not_found');
    const wrongMethod = await api(sim, 'GET', '/trade/v1/orders/cancel-all', { token: full });
    expectProblem(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expectProblem(await api(sim, 'PUT', '/api/v1/events'), 405, 'method_not_allowed');
    expectProblem(await api(sim, 'GET', '/trade/v1/orders/not-a-uuid', { token: full }), 400, 'invalid_path_parameter');
    expectProblem(
      await api(sim, 'GET', '/trade/v1/orders/00000000-0000-4000-8000-000000000000', { token: full }),
      404,
      'order_not_found',
    );
    expectProblem(await api(sim, 'GET', '/trade/v1/orderbook/123', { token: full }), 404, 'token_not_found');
  });

  it('answers 410 on the retired merge-all and redeem paths', async () => {
    for (const path of [
      '/trade/v1/positions/merge-all',
      '/trade/v1/positions/redeem',
      '/trade/v1/positions/redeem-all',
    ]) {
      expectProblem(await api(sim, 'POST', path, { token: full }), 410, 'endpoint_retired');
    }
  });
});

describe('authentication', () => {
  it('tells a missing, unknown or wrong-kind credential apart', async () => {
    expectProblem(await api(sim, 'GET', '/trade/v1/portfolio/rebates'), 401, 'credentials_missing');
    expectProblem(
      await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: 'pat_nope' }),
      401,
      'invalid_personal_access_token',
    );
    const identity = sim.venue.accounts.issueIdentityToken(sim.venue.demo.account.id, clock.now() + 60_000).secret;
    expectProblem(
      await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: identity }),
      401,
      'wrong_credential_type',
    );
    expectProblem(
      await api(sim, 'DELETE', `/trade/v1/auth/tokens/${sim.venue.demo.token.id}`, { token: full }),
      401,
      'wrong_credential_type',
    );
  });

  it('refuses each named scope to a token without it', async () => {
    const market = tradableMarket(sim);
    const probes: Array<[Scope, string, string, unknown]> = [
      ['orders:read', 'POST', '/trade/v1/orders/list', {}],
      [
        'orders:place',
        'POST',
        '/trade/v1/orders',
        {
          token_id: market.outcomes[0].tokenId,
          side: 'BUY',
          type: 'LIMIT',
          price_micro: '100000',
          shares_micro: '5000000',
        },
      ],
      ['orders:place_signed', 'POST', '/trade/v1/orders/signed', {}],
      ['orders:cancel_all', 'POST', '/trade/v1/orders/cancel-all', {}],
      ['portfolio:read', 'GET', '/trade/v1/portfolio/summary', undefined],
      ['batches:submit', 'POST', '/trade/v1/batches', {}],
    ];
    for (const [scope, method, path, body] of probes) {
      const lacking = sim.venue.createAccount(
        `lacks-${scope}`,
        USDC(100),
        ALL_SCOPES.filter((s) => s !== scope),
      ).token.secret;
      const res = await api(sim, method, path, { token: lacking, body });
      expectProblem(res, 403, 'forbidden_scope');
    }
    // The demo token reads but cannot trade.
    expectProblem(
      await api(sim, 'POST', '/trade/v1/orders/cancel-all', { token: sim.demoToken }),
      403,
      'forbidden_scope',
    );
    expect((await api(sim, 'GET', '/trade/v1/portfolio/summary', { token: sim.demoToken })).status).toBe(200);
  });

  it('creates and revokes personal access tokens with a browser identity token', async () => {
    const owner = sim.venue.createAccount('owner', USDC(10));
    const identity = sim.venue.accounts.issueIdentityToken(owner.account.id, clock.now() + 60_000).secret;
    const created = await api(sim, 'POST', '/trade/v1/auth/tokens', {
      token: identity,
      body: { scopes: ['portfolio:read'] },
    });
    expect(created.status).toBe(201);
    expect((await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: created.json.token })).status).toBe(200);
    const revoked = await api(sim, 'DELETE', `/trade/v1/auth/tokens/${created.json.id}`, { token: identity });
    expect(revoked.json).toEqual({ id: created.json.id, revoked_at: new Date(clock.now()).toISOString() });
    expectProblem(
      await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: created.json.token }),
      401,
      'invalid_personal_access_token',
    );
    const expired = sim.venue.accounts.issueIdentityToken(owner.account.id, clock.now() - 1).secret;
    const res = await api(sim, 'POST', '/trade/v1/auth/tokens', { token: expired, body: {} });
    expectProblem(res, 401, 'identity_token_expired');
    expect(res.json.recovery.strategy).toBe('refresh_identity_token');
  });
});

describe('features per deployment', () => {
  it('answers route_not_found for an absent feature and feature_not_configured for an unconfigured one', async () => {
    const { sim: other } = await quietSimulator({
      deployment: { features: { signed_orders: 'absent', account_batches: 'unconfigured' } },
    });
    try {
      const token = other.traders[0]?.token.secret;
      expectProblem(await api(other, 'POST', '/trade/v1/orders/signed', { token, body: {} }), 404, 'route_not_found');
      expectProblem(await api(other, 'GET', '/trade/v1/batches/0xabc', { token }), 503, 'feature_not_configured');
    } finally {
      await other.close();
    }
  });
});

async function pageToEnd(method: 'GET' | 'POST', path: string, listKey: string, limit: number): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse =
      method === 'GET'
        ? await api(sim, 'GET', `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { token: sim.demoToken })
        : await api(sim, 'POST', path, { token: sim.demoToken, body: { limit, ...(cursor ? { cursor } : {}) } });
    expect(res.status).toBe(200);
    items.push(...res.json[listKey]);
    cursor = res.json.pagination.next_cursor;
  } while (cursor);
  return items;
}

describe('portfolio and orders of the demo account', () => {
  it('pages orders, trades and activities to the end, each item once', async () => {
    const account = sim.venue.demo.account;
    expect(account.fills.length).toBeGreaterThan(10);
    const orders = await pageToEnd('POST', '/trade/v1/orders/list', 'orders', 7);
    expect(orders.map((o) => o.internal_id).sort()).toEqual(account.orders.map((o) => o.id).sort());
    expect(orders[0]).toMatchObject({
      exchange: 'SERVICE',
      is_terminal: expect.any(Boolean),
      created_at: expect.any(String),
    });
    const trades = await pageToEnd('GET', '/trade/v1/portfolio/trades', 'trades', 9);
    expect(new Set(trades.map((t) => t.fill_id)).size).toBe(account.fills.length);
    const viaGet = await pageToEnd('GET', '/trade/v1/portfolio/activities', 'activities', 11);
    const viaPost = await pageToEnd('POST', '/trade/v1/portfolio/activities/list', 'activities', 13);
    expect(viaGet.map((a) => a.id)).toEqual(viaPost.map((a) => a.id));
    expect(viaGet).toHaveLength(account.activities.length);
    expect(viaGet.find((a) => a.type === 'ORDER')).toMatchObject({
      order_id: expect.any(String),
      fill_status: expect.stringMatching(/^(NONE|PARTIAL|FULL)$/),
      fees_micro: expect.any(String),
    });
    expect((await api(sim, 'GET', '/trade/v1/portfolio/activities?limit=501', { token: sim.demoToken })).status).toBe(
      422,
    );
  });

  it('serves summary, positions, open orders with lookup maps, rebates and withdrawal assets', async () => {
    const summary = (await api(sim, 'GET', '/trade/v1/portfolio/summary', { token: sim.demoToken })).json.summaries[0];
    expect(Object.keys(summary).sort()).toEqual([
      'accounting_status',
      'as_of',
      'cash_balance_micro',
      'exchange',
      'free_cash_micro',
      'open_cost_basis_micro',
      'open_unrealized_pnl_micro',
      'portfolio_value_micro',
      'positions_value_micro',
    ]);
    const positions = (await api(sim, 'POST', '/trade/v1/portfolio/positions/list', { token: sim.demoToken })).json;
    expect(positions.unavailable_exchanges).toEqual([]);
    expect(positions.positions.length).toBeGreaterThan(0);
    const value = positions.positions.reduce((s: bigint, p: Json) => s + BigInt(p.current_value_micro), 0n);
    expect(String(value)).toBe(summary.positions_value_micro);
    expect(positions.positions[0]).toMatchObject({
      exchange: 'SERVICE',
      accounting_status: 'AVAILABLE',
      mergeable: expect.any(Boolean),
      event: { slug: expect.any(String) },
    });
    const open = (await api(sim, 'POST', '/trade/v1/portfolio/open-orders/list', { token: sim.demoToken, body: {} }))
      .json;
    for (const o of open.orders) {
      expect(o.is_terminal).toBe(false);
      expect(open.markets[o.token_id]).toMatchObject({
        market_id: expect.any(String),
        outcome_name: expect.any(String),
      });
      expect(open.events[open.markets[o.token_id].event_slug].event_title).toEqual(expect.any(String));
    }
    const rebates = (await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: sim.demoToken })).json;
    expect(BigInt(rebates.total_micro)).toBe(
      BigInt(rebates.lp_incentive_micro) + BigInt(rebates.maker_rebate_micro) + BigInt(rebates.vip_rebate_micro),
    );
    const assets = (
      await api(sim, 'GET', '/trade/v1/portfolio/bridge/withdraw/supported-assets', { token: sim.demoToken })
    ).json;
    expect(assets.supported_assets[0]).toMatchObject({ address_type: 'EVM', token: { decimals: 6, symbol: 'USDC' } });
  });

  it('answers pnl_not_ready until the first mark run, then the settled bucket', async () => {
    const fresh = await quietSimulator();
    try {
      const token = fresh.sim.demoToken;
      const early = await api(fresh.sim, 'GET', '/trade/v1/portfolio/pnl', { token });
      expectProblem(early, 425, 'pnl_not_ready');
      expect(early.json.recovery).toEqual({ strategy: 'retry_after', after_seconds: 60 });
      expect(early.headers.get('retry-after')).toBe('60');
      fresh.sim.advance(60_000);
      const ready = (await api(fresh.sim, 'GET', '/trade/v1/portfolio/pnl', { token })).json;
      expect(ready).toMatchObject({
        chain_id: 137,
        lifetime_pnl_micro: '0',
        collateral_micro: ready.cumulative_inflow_micro,
        mark_run_id: expect.any(String),
      });
    } finally {
      await fresh.sim.close();
    }
  });

  it('reports the exchange unavailable in positions when the deployment says so', async () => {
    const flaky = await quietSimulator({ deployment: { positionsUnavailableRate: 1 } });
    try {
      const res = (await api(flaky.sim, 'POST', '/trade/v1/portfolio/positions/list', { token: flaky.sim.demoToken }))
        .json;
      expect(res).toMatchObject({ positions: [], unavailable_exchanges: ['SERVICE'] });
    } finally {
      await flaky.sim.close();
    }
  });

  it('lists LP-incentive markets with every sort and filter', async () => {
    const base = (await api(sim, 'GET', '/trade/v1/lp-incentives', { token: sim.demoToken })).json;
    expect(base).toMatchObject({ eligible: true, epoch_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(base.markets.length).toBeGreaterThan(1);
    expect(base.markets.some((m: Json) => m.market_total_score > 0)).toBe(true);
    const field: Record<string, (m: Json) => number | string> = {
      market: (m) => m.question.toLowerCase(),
      close_time: (m) => Date.parse(m.close_time),
      max_spread: (m) => m.max_spread_micro,
      min_shares: (m) => Number(m.min_shares_micro),
      reward_pool: (m) => Number(m.pool_micro),
      my_share: (m) => (m.market_total_score > 0 ? m.epoch_score / m.market_total_score : 0),
      projected_payout: (m) => Number(m.projected_payout_micro),
    };
    for (const [sortBy, read] of Object.entries(field)) {
      for (const order of ['asc', 'desc']) {
        const rows = (
          await api(sim, 'GET', `/trade/v1/lp-incentives?sort_by=${sortBy}&sort_order=${order}`, {
            token: sim.demoToken,
          })
        ).json.markets.map(read);
        const sorted = [...rows].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(rows, `${sortBy} ${order}`).toEqual(order === 'asc' ? sorted : sorted.reverse());
      }
    }
    const crypto = (await api(sim, 'GET', '/trade/v1/lp-incentives?category=crypto', { token: sim.demoToken })).json
      .markets;
    expect(crypto.length).toBeLessThan(base.markets.length);
    const word = (base.markets[0].event_title as string).split(' ')[0]?.toUpperCase() ?? '';
    const found = (
      await api(sim, 'GET', `/trade/v1/lp-incentives?search=${encodeURIComponent(word)}`, { token: sim.demoToken })
    ).json.markets;
    expect(found.every((m: Json) => `${m.question} ${m.event_title}`.toUpperCase().includes(word))).toBe(true);
    expect(found.length).toBeGreaterThan(0);
    expect((await api(sim, 'GET', '/trade/v1/lp-incentives?sort_by=luck', { token: sim.demoToken })).status).toBe(422);
    expect((await api(sim, 'GET', '/trade/v1/lp-incentives?category=soccer', { token: sim.demoToken })).status).toBe(
      422,
    );
  });
});

describe('signed orders and account batches', () => {
  it('identifies a signed order by its hash and refuses it twice', async () => {
    const market = tradableMarket(sim, 1);
    const envelope = {
      order: {
        token_id: market.outcomes[0].tokenId,
        side: 'BUY',
        type: 'LIMIT',
        price_micro: '100000',
        shares_micro: '10000000',
        salt: 7,
      },
      signature: '0xsig',
    };
    const placed = await api(sim, 'POST', '/trade/v1/orders/signed', { token: full, body: envelope });
    expect(placed.status).toBe(202);
    expect(placed.json.order_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const byHash = await api(sim, 'GET', `/trade/v1/orders/by-hash/${placed.json.order_hash}`, { token: full });
    expect(byHash.json.internal_id).toBe(placed.json.internal_id);
    expectProblem(
      await api(sim, 'POST', '/trade/v1/orders/signed', { token: full, body: envelope }),
      409,
      'duplicate_order',
    );
    const batch = await api(sim, 'POST', '/trade/v1/orders/signed/batch', {
      token: full,
      body: { orders: [{ ...envelope, signature: '0xother' }, envelope] },
    });
    expect(batch.json.results.map((r: Json) => r.status)).toEqual([202, 409]);
    expect(batch.json.results[1].failure.code).toBe('duplicate_order');
  });

  it('runs a split batch, refuses a second in flight, and supersedes a pending one', async () => {
    const market = tradableMarket(sim, 2);
    const op = { kind: 'SPLIT', condition_id: market.conditionId, market_id: market.id, shares_micro: 10_000_000 };
    const deadline = Math.floor(clock.now() / 1000) + 600;
    const first = await api(sim, 'POST', '/trade/v1/batches', {
      token: full,
      body: { deadline_unix_seconds: deadline, ops: [op], signature: '0x1' },
    });
    expect(first.status).toBe(201);
    expect(first.json.batch).toMatchObject({ status: 'PENDING', seq: 1 });
    expectProblem(
      await api(sim, 'POST', '/trade/v1/batches', {
        token: full,
        body: { deadline_unix_seconds: deadline, ops: [op], signature: '0x2' },
      }),
      409,
      'batch_in_flight',
    );
    const sup = await api(sim, 'POST', `/trade/v1/batches/${first.json.batch.batch_hash}/supersede`, {
      token: full,
      body: { deadline_unix_seconds: deadline, ops: [{ ...op, shares_micro: 20_000_000 }], signature: '0x3' },
    });
    expect(sup.json).toMatchObject({ outcome: 'SUPERSEDED', batch: { status: 'PENDING', seq: 1 } });
    const old = (await api(sim, 'GET', `/trade/v1/batches/${first.json.batch.batch_hash}`, { token: full })).json;
    expect(old).toMatchObject({ status: 'SUPERSEDED', superseded_by_batch_hash: sup.json.batch.batch_hash });
    sim.advance(2_000);
    await settle();
    expect(
      (await api(sim, 'GET', `/trade/v1/batches/${sup.json.batch.batch_hash}`, { token: full })).json,
    ).toMatchObject({
      status: 'EXECUTED',
      tx_hash: expect.stringMatching(/^0x/),
    });
    const positions = (
      await api(sim, 'POST', '/trade/v1/portfolio/positions/list', {
        token: full,
        body: { condition_ids: [market.conditionId] },
      })
    ).json.positions;
    expect(positions.map((p: Json) => [p.shares_micro, p.open_cost_basis_micro, p.mergeable_shares_micro])).toEqual([
      ['20000000', '10000000', '20000000'],
      ['20000000', '10000000', '20000000'],
    ]);
  });
});
