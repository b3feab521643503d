import { accountTotals } from '../src/simulator/engine/valuation.ts';
import type { SimMarket } from '../src/simulator/catalogue/types.ts';
import {
  ManualClock,
  startSimulator,
  type SimulatorHandle,
  type SimulatorOptions,
  type Venue,
} from '../src/simulator/index.ts';

export interface ApiResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface ApiOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One HTTP request to the simulator, JSON in and out. */
export async function api(
  sim: SimulatorHandle,
  method: string,
  path: string,
  options: ApiOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${sim.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

/** A quiet simulator on a manual clock: no synthetic flow, limits off unless asked. */
export async function quietSimulator(
  options: SimulatorOptions = {},
): Promise<{ sim: SimulatorHandle; clock: ManualClock }> {
  const clock = new ManualClock();
  const sim = await startSimulator({
    seed: 11,
    rate: 0,
    clock,
    ...options,
    deployment: {
      ...options.deployment,
      limits: { account: false, ipBurst: false, edge: false, ...options.deployment?.limits },
    },
  });
  return { sim, clock };
}

/** A market that trades, on a cent grid, with a small minimum size. */
export function tradableMarket(sim: SimulatorHandle, skip = 0): SimMarket {
  const markets = sim.venue.catalogue.markets.filter(
    (m) => sim.venue.catalogue.isAcceptingOrders(m) && m.tickMicro === 10_000n && m.minOrderSizeMicro <= 5_000_000n,
  );
  const market = markets[skip];
  if (!market) throw new Error('no tradable market in the catalogue');
  return market;
}

/** Lets the simulator work off what a request queued (it runs right after the response). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export const USDC = (units: number): bigint => BigInt(units) * 1_000_000n;

/** Accounts whose books do not balance to the micro (README, "Accounting"), with the difference. */
export function unbalancedAccounts(venue: Venue): Array<{ label: string; differenceMicro: bigint }> {
  const out: Array<{ label: string; differenceMicro: bigint }> = [];
  for (const account of venue.accounts.all()) {
    const t = accountTotals(venue.catalogue, venue.exchange, account);
    const rebates = account.makerRebatesMicro + account.lpIncentivesMicro + account.vipRebatesMicro;
    // collateral + position value − fees + rebates = deposits + PnL, written with fees and rebates on the PnL side.
    const difference =
      account.collateralMicro +
      t.positionsValueMicro -
      (account.depositsMicro -
        account.withdrawalsMicro +
        account.realisedPnlMicro +
        t.unrealisedPnlMicro -
        account.feesPaidMicro +
        rebates);
    if (difference !== 0n) out.push({ label: account.label, differenceMicro: difference });
  }
  return out;
}

/** Σ collateral + escrow + fee revenue − rebates − incentives − Σ deposits: zero while the venue is whole. */
export function venueImbalanceMicro(venue: Venue): bigint {
  const ledger = venue.exchange.venue;
  const accounts = venue.accounts.all();
  const collateral = accounts.reduce((s, a) => s + a.collateralMicro, 0n);
  const deposits = accounts.reduce((s, a) => s + a.depositsMicro, 0n);
  return (
    collateral +
    ledger.escrowMicro() +
    ledger.feeRevenueMicro -
    ledger.rebatesPaidMicro -
    ledger.lpIncentivesPaidMicro -
    deposits
  );
}

/** Conditions whose escrow is not exactly the shares held of each of its outcomes. */
export function unbackedEscrow(venue: Venue): string[] {
  const accounts = venue.accounts.all();
  const out: string[] = [];
  for (const [conditionId, escrow] of venue.exchange.venue.escrowByCondition) {
    const market = venue.catalogue.marketByCondition(conditionId);
    const held = (index: 0 | 1): bigint =>
      accounts.reduce((s, a) => s + (a.position(market?.outcomes[index].tokenId ?? '')?.sharesMicro ?? 0n), 0n);
    if (held(0) !== escrow || held(1) !== escrow) out.push(conditionId);
  }
  return out;
}

/** A quiet simulator with one tradable market and two funded accounts, for trading scenarios. */
export interface TradingSetup {
  sim: SimulatorHandle;
  clock: ManualClock;
  market: SimMarket;
  yes: string;
  no: string;
  /** Token secrets of two accounts with 10,000 of collateral each. */
  alice: string;
  bob: string;
}

export async function tradingSimulator(options: SimulatorOptions = {}): Promise<TradingSetup> {
  const { sim, clock } = await quietSimulator(options);
  const market = tradableMarket(sim);
  const [yes, no] = market.outcomes.map((o) => o.tokenId) as [string, string];
  return {
    sim,
    clock,
    market,
    yes,
    no,
    alice: sim.venue.createAccount('alice', USDC(10_000)).token.secret,
    bob: sim.venue.createAccount('bob', USDC(10_000)).token.secret,
  };
}
