import { describe, expect, it } from 'vitest';
import { checkBooks, checkTrades, gapsOf, groundTruthRun } from '../capture-checks.ts';

/**
 * The long run of capture against the simulator's ground truth under the heavy fault profile
 * (connections dropped and silenced, sequence resets, error frames, refused reconnects, malformed
 * and duplicated frames, REST storms). It needs no service; it lives here for its length.
 */
describe('capture against the ground truth under heavy faults', () => {
  it('captures each public trade once or records it inside a gap of its scope; books replay to the truth outside gaps', async () => {
    // Seed 33 draws every kind of stream fault of the profile within these five minutes.
    const { run, gt, fromMs, toMs, tokensOf } = await groundTruthRun(5 * 60_000, { seed: 33, faults: 'heavy' });
    const gaps = gapsOf(run.records);
    const trades = checkTrades(gt, run.records, gaps, tokensOf, fromMs, toMs);
    const books = checkBooks(gt, run.records, gaps, fromMs, toMs);
    const reasons = [...new Set(gaps.map((g) => g.reason))].sort();
    console.log({
      reasons,
      trades: { ...trades, missing: trades.missing.length },
      books: { sampled: books.sampled, mismatches: books.mismatches.length },
      faults: gt.faults.length,
      stats: run.capture.stats(),
    });
    expect(gt.faults.length).toBeGreaterThan(10);
    for (const reason of [
      'disconnected',
      'frames_missed',
      'reconnect_requested',
      'subscription_dropped',
      'sequence_reset',
    ])
      expect(reasons).toContain(reason);
    expect(trades.doubled).toEqual([]);
    expect(trades.missing).toEqual([]);
    expect(trades.capturedOnce).toBeGreaterThan(1000);
    expect(trades.inGaps).toBeGreaterThan(0);
    expect(books.mismatches).toEqual([]);
    expect(books.sampled).toBeGreaterThanOrEqual(200);
  }, 300_000);
});
