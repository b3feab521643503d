import { describe, expect, it } from 'vitest';
import { readBookUpdates } from '../src/records/index.ts';
import { checkBooks, checkTrades, gapsOf, groundTruthRun } from './capture-checks.ts';
import { SMALL_CATALOGUE } from './capture-helpers.ts';

/** Capture against the simulator's ground truth without faults (the heavy-fault run is in test/integration). */
describe('capture against the ground truth, no faults', () => {
  it('records no gap but the markets it let go, no data-quality finding, every trade once, books equal to the truth', async () => {
    const { run, gt, fromMs, toMs, tokensOf } = await groundTruthRun(60_000, {
      rate: 40,
      venue: { catalogue: SMALL_CATALOGUE },
    });
    const gaps = gapsOf(run.records, 'market', true);
    const resolvedBefore = (conditionId: string, atUs: bigint) =>
      gt.statuses.some(
        (s) =>
          s.condition_id === conditionId &&
          ['market_resolved', 'payouts_resolved'].includes(s.kind) &&
          BigInt(s.atMs) * 1000n <= atUs,
      );
    // A market let go had resolved, or had stopped trading and left the event's window of cycles.
    const letGo = (c: string, atUs: bigint) =>
      resolvedBefore(c, atUs) || run.sim.venue.catalogue.marketByCondition(c)?.state !== 'ACTIVE';
    // Markets left out (a recurring event's announced cycles, resolved ones) are named once, with no length.
    const leftOut = gaps.filter((g) => g.reason === 'not_captured');
    expect(leftOut.every((g) => g.endUs === null)).toBe(true);
    expect(
      gaps.filter(
        (g) =>
          g.reason !== 'not_captured' &&
          (g.reason !== 'unsubscribed' || !g.scope.condition_ids.every((c) => letGo(c, g.startUs))),
      ),
    ).toEqual([]);
    expect(gapsOf(run.records, 'account')).toEqual([]);
    expect(gapsOf(run.records, 'portfolio')).toEqual([]);
    expect(run.records.filter((r) => r.kind === 'data_quality')).toEqual([]);
    const trades = checkTrades(gt, run.records, gaps, tokensOf, fromMs, toMs);
    expect(trades.expected).toBeGreaterThan(100);
    // Public fills (§6.2): trades that met several makers arrive as several fills of one trade id.
    const fillsPerTrade = new Map<string, number>();
    for (const t of gt.trades) fillsPerTrade.set(t.trade_id, (fillsPerTrade.get(t.trade_id) ?? 0) + 1);
    expect([...fillsPerTrade.values()].filter((n) => n > 1).length).toBeGreaterThan(10);
    expect(trades.capturedOnce).toBe(trades.expected);
    const books = checkBooks(gt, run.records, gaps, fromMs, toMs);
    expect(books.mismatches).toEqual([]);
    expect(books.sampled).toBeGreaterThanOrEqual(200);
  }, 120_000);

  it('replays books to the truth from delta frames as well', async () => {
    const { run, gt, fromMs, toMs } = await groundTruthRun(30_000, {
      rate: 40,
      streams: { bookFrames: 'delta' },
      venue: { catalogue: SMALL_CATALOGUE },
    });
    expect(
      run.records.some(
        (r) => r.kind === 'book_change' && readBookUpdates(r).some((u) => u.update === 'delta' && u.raw !== null),
      ),
    ).toBe(true);
    const books = checkBooks(gt, run.records, gapsOf(run.records), fromMs, toMs);
    expect(books.mismatches).toEqual([]);
    expect(books.sampled).toBeGreaterThanOrEqual(200);
  }, 120_000);
});
