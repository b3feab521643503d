import type { SimMarket } from '../src/simulator/catalogue/types.ts';
import { ManualClock, startSimulator, type SimulatorHandle, type SimulatorOptions } from '../src/simulator/index.ts';

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
export async function api(sim: SimulatorHandle, method: string, path: string, options: ApiOptions = {}): Promise<ApiResponse> {
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
export async function quietSimulator(options: SimulatorOptions = {}): Promise<{ sim: SimulatorHandle; clock: ManualClock }> {
  const clock = new ManualClock();
  const sim = await startSimulator({
    seed: 11,
    rate: 0,
    clock,
    ...options,
    deployment: { ...options.deployment, limits: { account: false, ipBurst: false, edge: false, ...options.deployment?.limits } },
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
