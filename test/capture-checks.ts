import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tradeKey } from '../src/api/trade-key.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { bookRowsOf, replayBook } from '../src/capture/books/replay.ts';
import { isoToMicros } from '../src/capture/frames/frame.ts';
import type { GapScope } from '../src/capture/coverage/gaps.ts';
import { readGroundTruth, type GroundTruth, type GtBook } from '../src/simulator/ground-truth-reader.ts';
import type { SimulatorOptions } from '../src/simulator/index.ts';
import { steppedRun, type SteppedRun } from './capture-helpers.ts';

/** The checks of capture against the simulator's ground truth, shared by the ground-truth and Kafka suites. */

export interface Gap {
  reason: string;
  startUs: bigint;
  endUs: bigint | null;
  scope: GapScope;
}

/**
 * The coverage gaps of a stream's records. Markets capture chose to leave out (`not_captured`:
 * gaps of no length naming why) are a listing choice, not a loss of coverage: only with `leftOut`.
 */
export function gapsOf(records: readonly ReceivedRecord[], stream = 'market', leftOut = false): Gap[] {
  return records
    .filter((r) => r.kind === 'capture_gap' && (r.payload as { stream: string }).stream === stream)
    .filter((r) => leftOut || (r.payload as { reason: string }).reason !== 'not_captured')
    .map((r) => {
      const p = r.payload as unknown as { reason: string; gap_start: string; gap_end: string | null; scope: GapScope };
      return {
        reason: p.reason,
        startUs: isoToMicros(p.gap_start)!,
        endUs: p.gap_end === null ? null : isoToMicros(p.gap_end)!,
        scope: p.scope,
      };
    });
}

/** Whether an instant of a token's (or condition's) channel lies inside a recorded gap. */
export function inGap(
  gaps: readonly Gap[],
  channel: string,
  tokenIds: readonly string[],
  conditionId: string,
  atUs: bigint,
): boolean {
  return gaps.some(
    (g) =>
      g.startUs <= atUs &&
      (g.endUs === null || atUs <= g.endUs) &&
      (g.scope.all ||
        ((g.scope.channels.length === 0 || g.scope.channels.includes(channel)) &&
          (g.scope.condition_ids.includes(conditionId) || tokenIds.some((t) => g.scope.token_ids.includes(t))))),
  );
}

export interface TradeCheck {
  expected: number;
  capturedOnce: number;
  inGaps: number;
  /** Ground-truth trades neither captured nor inside a gap. */
  missing: string[];
  /** Trades recorded more than once. */
  doubled: string[];
}

/**
 * Every ground-truth public fill between `fromMs` and `toMs` (by its natural key, trade and fill
 * id): captured exactly once, or inside a gap of its scope.
 */
export function checkTrades(
  gt: GroundTruth,
  records: readonly ReceivedRecord[],
  gaps: readonly Gap[],
  tokensOf: (conditionId: string) => string[],
  fromMs: number,
  toMs: number,
): TradeCheck {
  const counts = new Map<string, number>();
  for (const r of records) {
    if (r.kind !== 'trade') continue;
    const id = tradeKey(r.payload as Record<string, unknown>) ?? '';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const result: TradeCheck = {
    expected: 0,
    capturedOnce: 0,
    inGaps: 0,
    missing: [],
    doubled: [...counts].filter(([, n]) => n > 1).map(([id]) => id),
  };
  for (const t of gt.trades) {
    if (t.atMs < fromMs || t.atMs > toMs) continue;
    result.expected += 1;
    const n = counts.get(tradeKey(t) ?? '') ?? 0;
    if (n === 1) result.capturedOnce += 1;
    else if (n === 0 && inGap(gaps, 'trades', tokensOf(t.condition_id), t.condition_id, BigInt(t.atMs) * 1000n))
      result.inGaps += 1;
    else if (n === 0)
      result.missing.push(
        `${t.trade_id}${t.fill_id ? `/${t.fill_id}` : ''} at ${new Date(t.atMs).toISOString()} on ${t.condition_id}`,
      );
  }
  return result;
}

export interface BookCheck {
  sampled: number;
  mismatches: string[];
}

const levelsOf = (ls: GtBook['bids']): Array<[number, string]> =>
  ls.map((l) => [Number(l.price_micro), l.shares_micro.toString()]);

/**
 * Books replayed from the records at instants outside gaps equal the ground truth: one sample per
 * ground-truth change (the instant just before the token's next change), up to `limit` per token.
 */
export function checkBooks(
  gt: GroundTruth,
  records: readonly ReceivedRecord[],
  gaps: readonly Gap[],
  fromMs: number,
  toMs: number,
  limit = 20,
): BookCheck {
  const byToken = new Map<string, GtBook[]>();
  for (const b of gt.books) {
    const list = byToken.get(b.token_id) ?? [];
    list.push(b);
    byToken.set(b.token_id, list);
  }
  const result: BookCheck = { sampled: 0, mismatches: [] };
  for (const [tokenId, states] of byToken) {
    const rows = bookRowsOf(records, tokenId);
    if (rows.snapshots.length === 0) continue;
    let taken = 0;
    for (let i = 0; i < states.length && taken < limit; i++) {
      const state = states[i]!;
      const next = states[i + 1];
      // The state holds until the next change; sample the end of its last millisecond.
      if (next && next.atMs === state.atMs) continue;
      if (state.atMs < fromMs || state.atMs > toMs) continue;
      const atUs = BigInt(state.atMs) * 1000n + 999n;
      if (inGap(gaps, 'orderbook', [tokenId], state.condition_id, atUs)) continue;
      const replayed = replayBook(rows.snapshots, rows.changes, atUs);
      if (!replayed) continue;
      taken += 1;
      result.sampled += 1;
      const { bids, asks } = replayed.ladder.levels();
      const got = {
        bids: bids.map((l) => [l.priceMicro, l.sizeMicro]),
        asks: asks.map((l) => [l.priceMicro, l.sizeMicro]),
      };
      const want = { bids: levelsOf(state.bids), asks: levelsOf(state.asks) };
      if (JSON.stringify(got) !== JSON.stringify(want))
        result.mismatches.push(
          `${tokenId} at ${new Date(state.atMs).toISOString()}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
        );
    }
  }
  return result;
}

export const TEST_LIFECYCLE = {
  haltEveryMs: 40_000,
  haltDurationMs: 10_000,
  endEventEveryMs: 45_000,
  proposeAfterMs: 5_000,
  challengeMs: 10_000,
  redeemDelayMs: 3_000,
};

export interface GroundTruthRun {
  run: SteppedRun;
  gt: GroundTruth;
  /** The span checked: from full coverage to a second before the end. */
  fromMs: number;
  toMs: number;
  tokensOf(conditionId: string): string[];
}

/** Capture against a simulator writing its ground truth, for `ms` of venue time once covered. */
export async function groundTruthRun(ms: number, simulator: SimulatorOptions, stepMs = 1_000): Promise<GroundTruthRun> {
  const dir = mkdtempSync(join(tmpdir(), 'capture-gt-'));
  const bus = new EmbeddedBus();
  const run = await steppedRun({
    bus,
    warmupMs: 5_000,
    simulator: {
      seed: 21,
      lifecycle: TEST_LIFECYCLE,
      ...simulator,
      venue: { catalogue: { recurringCadenceSeconds: 30, ...simulator.venue?.catalogue } },
      groundTruth: { dir },
    },
    capture: { catalogueRefreshMs: 15_000, dropGraceMs: 20_000, anchorEveryMs: 60_000 },
  });
  await run.untilCovered();
  const fromMs = run.sim.venue.options.clock.now() + 1;
  await run.run(ms, stepMs);
  const toMs = run.sim.venue.options.clock.now() - 1_000;
  await run.stop();
  await bus.close();
  const gt = readGroundTruth(dir);
  rmSync(dir, { recursive: true, force: true });
  const tokensOf = (conditionId: string): string[] =>
    run.sim.venue.catalogue.marketByCondition(conditionId)?.outcomes.map((o) => o.tokenId) ?? [];
  return { run, gt, fromMs, toMs, tokensOf };
}
