/**
 * Simulator benchmark: matching-engine orders/s (in-process) and REST requests/s (over loopback).
 * Run: npx tsx bench/simulator.ts   (about 20 s)
 */
import { ManualClock, startSimulator } from '../src/simulator/index.ts';
import { Prng } from '../src/simulator/prng.ts';
import { Venue } from '../src/simulator/venue.ts';

function engineOrdersPerSecond(orders: number): { ordersPerSecond: number; fills: number } {
  const clock = new ManualClock();
  const venue = new Venue({ seed: 1, clock, rate: 0 });
  const market = venue.catalogue.markets.find(
    (m) => venue.catalogue.isAcceptingOrders(m) && m.tickMicro === 10_000n && m.minOrderSizeMicro <= 5_000_000n,
  );
  if (!market) throw new Error('no market');
  const traders = Array.from(
    { length: 8 },
    (_, i) => venue.createAccount(`bench-${i}`, 1_000_000_000_000_000n).account.id,
  );
  const rng = new Prng(42);
  const start = performance.now();
  let fills = 0;
  venue.events.on('account', (e) => void (e.kind === 'fill' && fills++));
  for (let i = 0; i < orders; i++) {
    const outcome = rng.pick(market.outcomes);
    // Prices around the middle so a good share of orders cross and trade.
    const price = BigInt(rng.int(40, 60)) * 10_000n;
    const order = venue.exchange.place(rng.pick(traders), {
      tokenId: outcome.tokenId,
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      postOnly: false,
      priceMicro: price,
      sharesMicro: BigInt(rng.int(5, 50)) * 1_000_000n,
      collateralAmountMicro: undefined,
      expirationUnixSeconds: undefined,
    });
    venue.exchange.processDue();
    if (rng.chance(0.3) && order.status === 'LIVE') venue.exchange.cancel(order.accountId, order.id);
  }
  const seconds = (performance.now() - start) / 1000;
  return { ordersPerSecond: orders / seconds, fills };
}

function traderStepsPerSecond(steps: number): number {
  const clock = new ManualClock();
  const venue = new Venue({ seed: 1, clock, rate: 0 });
  const start = performance.now();
  for (let i = 0; i < steps; i++) venue.traders.step();
  return steps / ((performance.now() - start) / 1000);
}

async function restRequestsPerSecond(
  path: (token: string) => string,
  seconds: number,
  concurrency: number,
): Promise<number> {
  const sim = await startSimulator({
    seed: 1,
    rate: 20,
    deployment: { limits: { account: false, ipBurst: false, edge: false } },
  });
  const token = sim.demoToken;
  const url = `${sim.url}${path(sim.venue.catalogue.markets.find((m) => sim.venue.catalogue.isAcceptingOrders(m))?.outcomes[0].tokenId ?? '')}`;
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const rate = done / ((performance.now() - start) / 1000);
  await sim.close();
  return rate;
}

const engine = engineOrdersPerSecond(100_000);
console.log(
  `matching engine: ${Math.round(engine.ordersPerSecond).toLocaleString('en')} orders/s (100,000 limit orders, ${engine.fills.toLocaleString('en')} fill records, 30% of resting orders cancelled)`,
);
console.log(
  `synthetic traders: ${Math.round(traderStepsPerSecond(50_000)).toLocaleString('en')} steps/s (each a requote or a take, with its submissions)`,
);
const book = await restRequestsPerSecond((token) => `/trade/v1/orderbook/${token}`, 5, 16);
console.log(
  `REST GET /trade/v1/orderbook/{token}: ${Math.round(book).toLocaleString('en')} requests/s (16 concurrent keep-alive clients, traders running at 20/s)`,
);
const events = await restRequestsPerSecond(() => '/api/v1/events?limit=20', 5, 16);
console.log(`REST GET /api/v1/events?limit=20: ${Math.round(events).toLocaleString('en')} requests/s (same load)`);
console.log(`ratio orderbook reads / event pages: ${(book / events).toFixed(1)}`);
