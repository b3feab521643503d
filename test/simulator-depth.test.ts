import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, startSimulator, type SimulatorHandle } from '../src/simulator/index.ts';

let sim: SimulatorHandle | undefined;
afterEach(async () => sim?.close());

/** Levels a side of every market accepting orders, outcome 0's book. */
function depths(s: SimulatorHandle): Array<{ bids: number; asks: number; spreadTicks: number }> {
  const { catalogue, exchange } = s.venue;
  return catalogue.markets
    .filter((m) => catalogue.isAcceptingOrders(m))
    .map((m) => {
      const { bids, asks } = exchange.book(m).ladderFor(0);
      const spread =
        bids[0] && asks[0] ? Number(asks[0].priceMicro - bids[0].priceMicro) / Number(m.tickMicro) : Number.NaN;
      return { bids: bids.length, asks: asks.length, spreadTicks: spread };
    });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('resting depth behind the market makers', () => {
  it("makes books as deep as a real venue's, and keeps them so as fair values move", async () => {
    sim = await startSimulator({ seed: 9, rate: 40, clock: new ManualClock() });
    for (let t = 0; t < 60_000; t += 500) sim.advance(500);
    const early = depths(sim);
    expect(early.length).toBeGreaterThan(20);
    // Up to 47 ticks a side (4 to 50 from the fair value), fewer where the price range ends: a
    // market at 0.25 has 21 ticks below it. The makers alone make 3 to 7 levels.
    expect(median(early.map((d) => d.bids + d.asks))).toBeGreaterThan(45);
    for (let t = 0; t < 300_000; t += 500) sim.advance(500);
    const later = depths(sim);
    expect(median(later.map((d) => d.bids + d.asks))).toBeGreaterThan(45);
    // The makers still quote inside the depth: the touch stays a few ticks wide.
    expect(median(later.filter((d) => Number.isFinite(d.spreadTicks)).map((d) => d.spreadTicks))).toBeLessThanOrEqual(
      6,
    );
    const depthAccount = sim.traders.find((t) => t.account.label === 'depth');
    expect(depthAccount).toBeDefined();
  }, 60_000);

  it("leaves only the makers' quotes with depthTicks 0, and an empty book with no order flow", async () => {
    sim = await startSimulator({ seed: 9, rate: 40, clock: new ManualClock(), venue: { depthTicks: 0 } });
    for (let t = 0; t < 60_000; t += 500) sim.advance(500);
    expect(Math.max(...depths(sim).map((d) => d.bids + d.asks))).toBeLessThan(20);
    await sim.close();
    sim = await startSimulator({ seed: 9, rate: 0, clock: new ManualClock() });
    for (let t = 0; t < 10_000; t += 500) sim.advance(500);
    expect(depths(sim).every((d) => d.bids + d.asks === 0)).toBe(true);
  });
});
