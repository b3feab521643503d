import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal } from '../src/simulator/orders.ts';
import { ManualClock, type SimulatorHandle } from '../src/simulator/index.ts';
import { Venue } from '../src/simulator/venue.ts';
import { api, quietSimulator, unbackedEscrow, unbalancedAccounts, venueImbalanceMicro } from './simulator-helpers.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Four minutes before a UTC midnight, so an LP-incentive epoch closes and pays out during the run.
const START = Date.UTC(2025, 0, 6, 23, 56, 0);
const RUN_MS = 6 * 60_000;

let sim: SimulatorHandle;

beforeAll(async () => {
  ({ sim } = await quietSimulator({ rate: 80, clock: new ManualClock(START) }));
  for (let t = 0; t < RUN_MS; t += 100) sim.advance(100);
});
afterAll(async () => {
  await sim.close();
});

describe('accounting after a long seeded run', () => {
  it('balances every account to the micro', () => {
    const { venue } = sim;
    expect(venue.traders.stats.steps).toBeGreaterThan(25_000);
    expect(unbalancedAccounts(venue)).toEqual([]);
    for (const account of venue.accounts.all()) {
      const openOrders = account.orders.filter((o) => !isTerminal(o.status));
      expect(account.reservedCollateralMicro).toBe(openOrders.reduce((s, o) => s + o.reservedCollateralMicro, 0n));
      expect(account.freeCollateralMicro()).toBeGreaterThanOrEqual(0n);
      for (const p of account.positions.values()) {
        expect(p.sharesMicro).toBeGreaterThanOrEqual(p.reservedSharesMicro);
        expect(p.reservedSharesMicro).toBeGreaterThanOrEqual(0n);
      }
    }
    const traded = venue.accounts.all().filter((a) => a.fills.length > 0);
    expect(traded.length).toBeGreaterThanOrEqual(5);
    expect(venue.accounts.all().some((a) => a.lpIncentivesMicro > 0n)).toBe(true);
  });

  it('keeps the venue whole: collateral, escrow and fees add up to deposits, and escrow backs complete sets', () => {
    expect(venueImbalanceMicro(sim.venue)).toBe(0n);
    expect(unbackedEscrow(sim.venue)).toEqual([]);
  });

  it('reports the same figures over REST', async () => {
    const account = sim.venue.demo.account;
    const token = sim.demoToken;
    const summary = (await api(sim, 'GET', '/trade/v1/portfolio/summary', { token })).json.summaries[0];
    const positions = (await api(sim, 'POST', '/trade/v1/portfolio/positions/list', { token })).json
      .positions as Json[];
    const rebates = (await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token })).json;
    const pnl = (await api(sim, 'GET', '/trade/v1/portfolio/pnl', { token })).json;
    const sum = (key: string): bigint => positions.reduce((s, p) => s + BigInt(p[key]), 0n);
    expect(String(sum('current_value_micro'))).toBe(summary.positions_value_micro);
    expect(String(sum('open_cost_basis_micro'))).toBe(summary.open_cost_basis_micro);
    expect(String(sum('profit_loss_micro'))).toBe(summary.open_unrealized_pnl_micro);
    expect(BigInt(summary.portfolio_value_micro)).toBe(
      BigInt(summary.cash_balance_micro) + BigInt(summary.positions_value_micro),
    );
    expect(summary.cash_balance_micro).toBe(String(account.collateralMicro));
    expect(rebates.maker_rebate_micro).toBe(String(account.makerRebatesMicro));
    // The latest settled bucket: lifetime PnL = collateral + positions value − inflow + outflow.
    expect(BigInt(pnl.lifetime_pnl_micro)).toBe(
      BigInt(pnl.collateral_micro) +
        BigInt(pnl.positions_value_micro) -
        BigInt(pnl.cumulative_inflow_micro) +
        BigInt(pnl.cumulative_outflow_micro),
    );
    const fees = (await api(sim, 'GET', '/trade/v1/portfolio/trades?limit=500', { token })).json.trades as Json[];
    expect(fees.length).toBeGreaterThan(0);
  });
});

describe('seeded order flow', () => {
  function fingerprintOf(seed: number): string {
    const clock = new ManualClock(START);
    const venue = new Venue({ seed, clock, rate: 50 });
    for (let i = 0; i < 300; i++) {
      clock.advance(100);
      venue.tick();
    }
    const fills = venue.accounts
      .all()
      .flatMap((a) => a.fills.map((f) => `${f.fillId}:${f.tokenId}:${f.priceMicro}:${f.sharesMicro}:${f.feeMicro}`));
    return createHash('sha256').update(fills.sort().join('\n')).digest('hex');
  }

  it('is the same for the same seed and differs for another', () => {
    expect(fingerprintOf(3)).toBe(fingerprintOf(3));
    expect(fingerprintOf(4)).not.toBe(fingerprintOf(3));
  });
});
