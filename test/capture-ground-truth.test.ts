import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded.ts';
import { readGroundTruth } from '../src/simulator/ground-truth-reader.ts';
import { checkBooks, checkTrades, gapsOf } from './capture-checks.ts';
import { steppedRun } from './capture-helpers.ts';

const LIFECYCLE = { haltEveryMs: 40_000, haltDurationMs: 10_000, endEventEveryMs: 45_000, proposeAfterMs: 5_000, challengeMs: 10_000, redeemDelayMs: 3_000 };

async function groundTruthRun(faults: 'none' | 'heavy', minutes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'capture-gt-'));
  const bus = new EmbeddedBus();
  const run = await steppedRun({
    bus,
    warmupMs: 5_000,
    simulator: { seed: 21, faults, lifecycle: LIFECYCLE, venue: { catalogue: { recurringCadenceSeconds: 60 } }, groundTruth: { dir } },
    capture: { catalogueRefreshMs: 15_000, dropGraceMs: 20_000, anchorEveryMs: 60_000 },
  });
  // Coverage starts once every socket is acknowledged.
  while (run.capture.stats().openGaps > 0) await run.run(250);
  const fromMs = run.sim.venue.options.clock.now() + 1;
  await run.run(minutes * 60_000);
  const toMs = run.sim.venue.options.clock.now() - 1_000;
  await run.stop();
  await bus.close();
  const gt = readGroundTruth(dir);
  rmSync(dir, { recursive: true, force: true });
  const tokensOf = (conditionId: string): string[] => run.sim.venue.catalogue.marketByCondition(conditionId)?.outcomes.map((o) => o.tokenId) ?? [];
  return { run, gt, fromMs, toMs, tokensOf };
}

describe('capture against the ground truth', () => {
  it('under the heavy fault profile: each public trade captured once or inside a gap; books replay to the truth outside gaps', async () => {
    const { run, gt, fromMs, toMs, tokensOf } = await groundTruthRun('heavy', 4);
    const gaps = gapsOf(run.records);
    const trades = checkTrades(gt, run.records, gaps, tokensOf, fromMs, toMs);
    const count = (xs: string[]) => xs.reduce<Record<string, number>>((a, x) => ((a[x] = (a[x] ?? 0) + 1), a), {});
    console.log({ gaps: count(gaps.map((g) => g.reason)), trades: { ...trades, missing: trades.missing.length }, faults: count(gt.faults.map((f) => `${f.kind}:${String(f.params.endpoint ?? '')}:${String(f.params.action ?? f.params.variant ?? '')}`)), stats: run.capture.stats() });
    expect(trades.doubled).toEqual([]);
    expect(trades.missing).toEqual([]);
    expect(trades.capturedOnce).toBeGreaterThan(100);
    expect(trades.inGaps).toBeGreaterThan(0);
    const books = checkBooks(gt, run.records, gaps, fromMs, toMs);
    console.log({ sampled: books.sampled, mismatches: books.mismatches.slice(0, 3) });
    expect(books.mismatches).toEqual([]);
    expect(books.sampled).toBeGreaterThanOrEqual(200);
  }, 240_000);
});

describe('capture against the ground truth, no faults', () => {
  it('records no gap but the markets it let go after their resolution, and no data-quality finding', async () => {
    const { run, gt, fromMs, toMs, tokensOf } = await groundTruthRun('none', 2);
    const gaps = gapsOf(run.records);
    const resolvedBefore = (conditionId: string, atUs: bigint) =>
      gt.statuses.some((s) => s.condition_id === conditionId && ['market_resolved', 'payouts_resolved'].includes(s.kind) && BigInt(s.atMs) * 1000n <= atUs);
    // A market let go had resolved, or had stopped trading and left the event's window of cycles.
    const letGo = (c: string, atUs: bigint) => resolvedBefore(c, atUs) || run.sim.venue.catalogue.marketByCondition(c)?.state !== 'ACTIVE';
    const unexplained = gaps.filter((g) => g.reason !== 'unsubscribed' || !g.scope.condition_ids.every((c) => letGo(c, g.startUs)));
    expect(gaps.length).toBeGreaterThan(0);
    expect(unexplained).toEqual([]);
    expect(gapsOf(run.records, 'account')).toEqual([]);
    expect(gapsOf(run.records, 'portfolio')).toEqual([]);
    expect(run.records.filter((r) => r.kind === 'data_quality')).toEqual([]);
    const trades = checkTrades(gt, run.records, gaps, tokensOf, fromMs, toMs);
    expect(trades.capturedOnce).toBe(trades.expected);
    const books = checkBooks(gt, run.records, gaps, fromMs, toMs);
    expect(books.mismatches).toEqual([]);
    expect(books.sampled).toBeGreaterThanOrEqual(200);
  }, 120_000);
});
