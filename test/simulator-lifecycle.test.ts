import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent, SimMarket } from '../src/simulator/catalogue/types.ts';
import type { ManualClock, SimulatorHandle } from '../src/simulator/index.ts';
import {
  api,
  quietSimulator,
  settle,
  unbackedEscrow,
  unbalancedAccounts,
  venueImbalanceMicro,
  USDC,
} from './simulator-helpers.ts';
import { StreamClient, type Frame } from './simulator-stream-helpers.ts';

let sim: SimulatorHandle;
let clock: ManualClock;
const clients: StreamClient[] = [];
const FAST = { haltEveryMs: 0, endEventEveryMs: 0, proposeAfterMs: 1_000, challengeMs: 1_000, redeemDelayMs: 500 };

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await sim.close();
});

function recurringEvent(): { event: SimEvent; live: SimMarket } {
  const event = sim.venue.catalogue.events.find((e) => e.eventType === 'RECURRING_PROPOSITION') as SimEvent;
  return { event, live: sim.venue.catalogue.marketById(event.mainMarketId) as SimMarket };
}

/** An open non-recurring event whose markets all trade, and one of its markets on the cent grid. */
function endableEvent(): { event: SimEvent; market: SimMarket } {
  const { catalogue } = sim.venue;
  for (const event of catalogue.events) {
    if (event.eventType === 'RECURRING_PROPOSITION' || (event.state !== 'ACTIVE' && event.state !== 'LIVE')) continue;
    const markets = catalogue.marketsOf(event);
    const market = markets.find(
      (m) => m.tickMicro === 10_000n && m.minOrderSizeMicro <= 5_000_000n && m.negRiskId === undefined,
    );
    if (market && markets.every((m) => catalogue.isAcceptingOrders(m))) return { event, market };
  }
  throw new Error('no endable event');
}

async function subscribeStatus(ids: { condition_ids?: string[]; event_ids?: string[] }): Promise<StreamClient> {
  const client = await StreamClient.connect(sim);
  clients.push(client);
  await client.subscribe(['market_status'], ids);
  return client;
}

const kinds = (c: StreamClient): string[] => c.of('market_status').map((f) => f.data.kind as string);

describe('market lifecycle', () => {
  it('announces all eight market_status kinds, future changes only, event-scoped kinds to event subscribers only', async () => {
    ({ sim, clock } = await quietSimulator({ lifecycle: FAST, venue: { catalogue: { recurringCadenceSeconds: 60 } } }));
    const { catalogue } = sim.venue;
    const { event: series, live } = recurringEvent();
    const { event, market } = endableEvent();
    catalogue.halt(market.conditionId, 'before anyone listened', clock.now());
    const byCondition = await subscribeStatus({ condition_ids: [market.conditionId, live.conditionId] });
    const byEvent = await subscribeStatus({ event_ids: [event.id, series.id] });

    catalogue.resume(market.conditionId, clock.now());
    catalogue.halt(market.conditionId, 'review', clock.now());
    catalogue.resume(market.conditionId, clock.now());
    // A split resolution, driven directly: it arrives only as payouts_* kinds.
    const resolution = sim.venue.lifecycle?.resolution;
    if (!resolution) throw new Error('lifecycle is on');
    const split = [300_000n, 700_000n] as const;
    resolution.close(market, clock.now());
    resolution.propose(market, split, 1, clock.now());
    resolution.resolve(market, split, clock.now());
    resolution.complete(market, split, undefined, resolution.redeem(market, clock.now()), clock.now());
    // The recurring series rolls at the end of its live cycle, then resolves the closed one.
    for (let t = clock.now(); t <= live.closeMs + 3_000; t += 500) sim.advance(500);
    await byCondition.sync();
    await byEvent.sync();

    expect(kinds(byCondition)).toEqual([
      'market_resumed',
      'market_halted',
      'market_resumed',
      'payouts_proposed',
      'payouts_resolved',
      'outcome_proposed',
      'market_resolved',
    ]);
    expect(kinds(byEvent)).toEqual([
      'market_resumed',
      'market_halted',
      'market_resumed',
      'payouts_proposed',
      'payouts_resolved',
      'market_resolution_completed',
      'current_market_changed',
      'outcome_proposed',
      'market_resolved',
      'market_resolution_completed',
    ]);
    const data = (kind: string, c = byEvent): Frame[] => c.of('market_status', kind).map((f) => f.data as Frame);
    const payouts = [
      { token_id: market.outcomes[0].tokenId, outcome: market.outcomes[0].label, payout_micro: '300000' },
      { token_id: market.outcomes[1].tokenId, outcome: market.outcomes[1].label, payout_micro: '700000' },
    ];
    for (const kind of ['payouts_proposed', 'payouts_resolved']) {
      expect(data(kind)[0]).toMatchObject({
        condition_id: market.conditionId,
        market_id: market.id,
        event_id: event.id,
        payouts,
      });
      expect(data(kind)[0]).not.toHaveProperty('winning_token_id');
    }
    expect(data('market_halted')[0]).toMatchObject({ condition_id: market.conditionId, reason: 'review' });
    const next = catalogue.marketById(series.mainMarketId) as SimMarket;
    expect(next.id).not.toBe(live.id);
    expect(data('current_market_changed')[0]).toMatchObject({
      event_id: series.id,
      market_id: next.id,
      condition_id: next.conditionId,
      previous_market_id: live.id,
      previous_condition_id: live.conditionId,
      outcomes: next.outcomes.map((o) => ({ outcome_id: o.id, token_id: o.tokenId, label: o.label })),
    });
    const winner = live.outcomes.find((o) => o.resolutionPriceMicro === 1_000_000n);
    expect(data('market_resolved')[0]).toMatchObject({
      condition_id: live.conditionId,
      winning_token_id: winner?.tokenId,
      winning_outcome: winner?.label,
    });
    expect(data('market_resolution_completed')[1]).toMatchObject({
      market_id: live.id,
      resolution: 'winner',
      winning_token_id: winner?.tokenId,
      replacement: { market_id: next.id },
    });
    expect(data('market_resolution_completed')[0]).toMatchObject({
      market_id: market.id,
      resolution: 'payouts',
      payouts,
      replacement: null,
    });
  });

  it('takes an ended event through CLOSED, PROPOSED, DISPUTED and RESOLVED in REST, then redeems its positions exactly', async () => {
    ({ sim, clock } = await quietSimulator({ lifecycle: { ...FAST, disputeRate: 1, splitRate: 0 } }));
    const { event, market } = endableEvent();
    const [yes, no] = market.outcomes.map((o) => o.tokenId) as [string, string];
    const alice = sim.venue.createAccount('alice', USDC(10_000));
    const bob = sim.venue.createAccount('bob', USDC(10_000));
    const place = async (who: string, token: string, cents: number, shares: number): Promise<Frame> => {
      const res = await api(sim, 'POST', '/trade/v1/orders', {
        token: who,
        body: {
          token_id: token,
          side: 'BUY',
          type: 'LIMIT',
          price_micro: String(cents * 10_000),
          shares_micro: String(shares * 1_000_000),
        },
      });
      await settle();
      return res.json as Frame;
    };
    await place(alice.token.secret, yes, 40, 25);
    await place(bob.token.secret, no, 60, 20);
    const resting = await place(alice.token.secret, yes, 30, 10);
    const detail = async (): Promise<Frame> => (await api(sim, 'GET', `/api/v1/events/${event.slug}`)).json as Frame;
    const restMarket = async (): Promise<Frame> =>
      ((await detail()).markets as Frame[]).find((m) => m.id === market.id) as Frame;

    sim.venue.lifecycle?.endEvent(event, clock.now());
    expect((await detail()).state).toBe('ENDED');
    expect(await restMarket()).toMatchObject({
      state: 'CLOSED',
      is_accepting_orders: false,
      resolution_status: 'ACTIVE',
    });
    expect(
      (await api(sim, 'GET', `/trade/v1/orders/${resting.internal_id}`, { token: alice.token.secret })).json.status,
    ).toBe('CANCELLED');
    expect((await api(sim, 'GET', `/trade/v1/orderbook/${yes}`, { token: alice.token.secret })).json.bids).toEqual([]);

    const states: string[] = [];
    for (let i = 0; i < 8; i++) {
      sim.advance(500);
      const d = await detail();
      if (states.at(-1) !== `${d.state}/${d.resolution_status}`) states.push(`${d.state}/${d.resolution_status}`);
    }
    expect(states).toEqual([
      'ENDED/ACTIVE',
      'PROPOSED/proposed',
      'DISPUTED/DISPUTED',
      'PROPOSED/proposed',
      'CLOSED/RESOLVED',
    ]);
    const resolved = await restMarket();
    expect(resolved).toMatchObject({
      state: 'RESOLVED',
      resolution_status: 'RESOLVED',
      resolved_at: expect.any(String),
    });
    const prices = (resolved.outcomes as Frame[]).map((o) => o.resolution_price_micro).sort();
    expect(prices).toEqual(['0', '1000000']);

    const positionsOf = async (who: string): Promise<Frame[]> =>
      (await api(sim, 'POST', '/trade/v1/portfolio/positions/list', { token: who, body: {} })).json
        .positions as Frame[];
    const before = (await positionsOf(alice.token.secret)).find((p) => p.token_id === yes) as Frame;
    expect(before).toMatchObject({ shares_micro: '20000000', redeemable: true });
    const cashBefore = alice.account.collateralMicro;
    sim.advance(500);
    expect((await positionsOf(alice.token.secret)).filter((p) => p.condition_id === market.conditionId)).toEqual([]);
    const yesWon = market.outcomes[0].resolutionPriceMicro === 1_000_000n;
    expect(alice.account.collateralMicro - cashBefore).toBe(yesWon ? 20_000_000n : 0n);
    expect(unbalancedAccounts(sim.venue)).toEqual([]);
    expect(venueImbalanceMicro(sim.venue)).toBe(0n);
    expect(sim.venue.exchange.venue.escrowByCondition.get(market.conditionId)).toBe(0n);
  });

  it('rolls recurring events to their next cycle on the clock, many times in a few seconds, with REST following', async () => {
    ({ sim, clock } = await quietSimulator({ lifecycle: FAST, venue: { catalogue: { recurringCadenceSeconds: 5 } } }));
    const { catalogue } = sim.venue;
    const { event, live } = recurringEvent();
    const stateCount = (state: string): number => catalogue.marketsOf(event).filter((m) => m.state === state).length;
    const upcoming = stateCount('DRAFT') + stateCount('PROVISIONED');
    const mains = new Set([live.id]);
    for (let i = 0; i < 60; i++) {
      sim.advance(1_000);
      mains.add(event.mainMarketId);
    }
    expect(mains.size).toBe(13);
    expect(stateCount('ACTIVE')).toBe(1);
    expect(stateCount('PROVISIONED')).toBe(1);
    expect(stateCount('DRAFT') + stateCount('PROVISIONED')).toBe(upcoming);
    expect(live).toMatchObject({ state: 'RESOLVED' });
    const detail = (await api(sim, 'GET', `/api/v1/events/${event.slug}`)).json as Frame;
    expect(detail.main_market_id).toBe(event.mainMarketId);
    const main = (detail.markets as Frame[]).find((m) => m.id === event.mainMarketId);
    // The live cycle reads DRAFT while it accepts orders, as §2.9 shows it.
    expect(main).toMatchObject({ state: 'DRAFT', is_accepting_orders: true });
  });

  it('keeps every account and the venue balanced to the micro through many halts, resolutions and redemptions under trading', async () => {
    ({ sim, clock } = await quietSimulator({
      rate: 80,
      lifecycle: {
        haltEveryMs: 3_000,
        haltDurationMs: 2_000,
        endEventEveryMs: 5_000,
        proposeAfterMs: 1_000,
        challengeMs: 1_500,
        disputeRate: 0.3,
        splitRate: 0.3,
        redeemDelayMs: 500,
      },
      venue: { catalogue: { recurringCadenceSeconds: 10 } },
    }));
    const statuses: string[] = [];
    let redemptions = 0;
    sim.venue.events.on('market_status', (e) => statuses.push(e.kind));
    sim.venue.events.on('account', (e) => void (e.kind === 'redemption' && redemptions++));
    for (let i = 0; i < 1_800; i++) sim.advance(100);
    expect(statuses.filter((k) => k === 'market_resolved').length).toBeGreaterThan(20);
    expect(statuses.filter((k) => k === 'payouts_resolved').length).toBeGreaterThan(0);
    expect(statuses.filter((k) => k === 'market_halted').length).toBeGreaterThan(20);
    expect(redemptions).toBeGreaterThan(50);
    expect(unbalancedAccounts(sim.venue)).toEqual([]);
    expect(venueImbalanceMicro(sim.venue)).toBe(0n);
    expect(unbackedEscrow(sim.venue)).toEqual([]);
  });
});
