import { describe, expect, it } from 'vitest';
import { requireService, KAFKA_BROKERS, TEMPORAL_ADDRESS } from '../integration/services.ts';
import { describeFigures, mustBeZero, runFaultSuite, type Mode } from './suite.ts';

/**
 * The short form of the fault suite (`npm run test:faults`, in CI): each mode gets every kind of
 * venue fault, its SIGKILLs (and in the Kafka mode a broker and a Temporal restart) within a
 * few minutes, then a calm end; every count that must be zero is asserted zero and the figures
 * are printed. The three modes run at the same time, each against its own simulator (about 6 min).
 * The scale-out mode has a script of its own (scale-out-plan.ts): loaders joining and leaving, a
 * warehouse outage past the rebalance timeout, a restore from backup, a Kafka outage.
 * The long form is `npm run soak -- --minutes N`.
 */
const FAULT_MS = 150_000;
const SETTLE_MS = 70_000;

// The scale-out script runs about four minutes on its own; its calm end needs only a few sync rounds.
const SCALEOUT_SETTLE_MS = 40_000;

async function suite(mode: Mode) {
  const settleMs = mode === 'scaleout' ? SCALEOUT_SETTLE_MS : SETTLE_MS;
  const figures = await runFaultSuite({
    mode,
    seed: 5,
    rate: 15,
    faultMs: FAULT_MS,
    settleMs,
    log: (line) => console.log(line),
  });
  console.log(describeFigures(figures));
  return figures;
}

describe.concurrent('the pipeline under combined faults, against the ground truth', () => {
  it('embedded mode: nothing lost outside recorded gaps, nothing doubled, books equal to the truth', async () => {
    const figures = await suite('embedded');
    expect(mustBeZero(figures)).toEqual(Object.fromEntries(Object.keys(mustBeZero(figures)).map((k) => [k, 0])));
    expect(figures.faults.sigkill_run).toBeGreaterThanOrEqual(1);
    expect(figures.verdict.trades.storedOnce).toBeGreaterThan(500);
    expect(figures.verdict.trades.inGaps).toBeGreaterThan(0);
    expect(figures.verdict.books.compared).toBeGreaterThanOrEqual(200);
    expect(figures.verdict.fills.expected).toBeGreaterThan(0);
    expect(figures.verdict.gaps.caused).toBeGreaterThan(5);
    // The interface's cases met on the way: trades of several fills, orders judged against activities.
    expect(figures.verdict.trades.multiFillTrades).toBeGreaterThan(0);
    expect(figures.verdict.activities.ordersJudged).toBeGreaterThan(0);
  }, 600_000);

  it('Kafka/Temporal mode: the same, through SIGKILLs of capture, loader and worker and restarts of Kafka and Temporal', async () => {
    await requireService('Kafka', KAFKA_BROKERS[0]!);
    await requireService('Temporal', TEMPORAL_ADDRESS);
    const figures = await suite('kafka');
    expect(mustBeZero(figures)).toEqual(Object.fromEntries(Object.keys(mustBeZero(figures)).map((k) => [k, 0])));
    for (const fault of ['sigkill_capture', 'sigkill_load', 'sigkill_worker', 'kafka_restart', 'temporal_restart'])
      expect(figures.faults[fault], fault).toBeGreaterThanOrEqual(1);
    expect(figures.verdict.trades.storedOnce).toBeGreaterThan(500);
    expect(figures.verdict.books.compared).toBeGreaterThanOrEqual(200);
    expect(figures.verdict.fills.expected).toBeGreaterThan(0);
    expect(figures.verdict.trades.multiFillTrades).toBeGreaterThan(0);
    expect(figures.verdict.activities.ordersJudged).toBeGreaterThan(0);
  }, 600_000);

  it('scale-out mode: loaders joining and leaving, a warehouse outage and a restore, Kafka away — no row twice, none missing, no false gap', async () => {
    await requireService('Kafka', KAFKA_BROKERS[0]!);
    await requireService('Temporal', TEMPORAL_ADDRESS);
    const figures = await suite('scaleout');
    expect(mustBeZero(figures)).toEqual(Object.fromEntries(Object.keys(mustBeZero(figures)).map((k) => [k, 0])));
    for (const fault of [
      'loader_joins',
      'loader_leaves',
      'loader_leaves_during_outage',
      'loader_joins_during_outage',
      'warehouse_restored_from_backup',
      'kafka_outage_during_sync',
    ])
      expect(figures.faults[fault], fault).toBeGreaterThanOrEqual(1);
    expect(figures.verdict.trades.storedOnce).toBeGreaterThan(500);
    expect(figures.verdict.books.compared).toBeGreaterThanOrEqual(200);
    expect(figures.verdict.fills.expected).toBeGreaterThan(0);
    // Its script runs about four minutes alone, longer next to the other two modes on two cores.
  }, 900_000);
});
