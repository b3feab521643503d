import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tradeKey } from '../src/api/trade-key.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { readBookUpdates } from '../src/records/index.ts';
import { FileCoverageStore } from '../src/capture/coverage/store.ts';
import { isoToMicros } from '../src/capture/frames/frame.ts';
import type { FaultSpec } from '../src/simulator/index.ts';
import { gapsOf } from './capture-checks.ts';
import {
  SMALL_CATALOGUE,
  steppedRun,
  steppedVenue,
  type SteppedRun,
  type SteppedRunOptions,
} from './capture-helpers.ts';

type Payload = Record<string, unknown>;
const payloads = (records: readonly ReceivedRecord[], kind: ReceivedRecord['kind']): Payload[] =>
  records.filter((r) => r.kind === kind).map((r) => r.payload as Payload);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function covered(options: Partial<SteppedRunOptions> = {}): Promise<SteppedRun> {
  const bus = new EmbeddedBus();
  const run = await steppedRun({
    bus,
    warmupMs: 5_000,
    simulator: { seed: 5, rate: 40, venue: { catalogue: SMALL_CATALOGUE } },
    ...options,
  });
  cleanups.push(async () => {
    await bus.close();
  });
  await run.untilCovered();
  return run;
}

async function inject(run: SteppedRun, spec: FaultSpec): Promise<number> {
  const at = run.sim.venue.options.clock.now();
  run.sim.faults.inject(spec);
  return at;
}

describe('capture under stream faults', () => {
  it('a dropped market socket: a gap over its subjects around the drop, its books re-seeded from REST', async () => {
    const run = await covered();
    await run.run(5_000);
    const droppedAt = await inject(run, { kind: 'drop_connection', endpoint: 'market' });
    await run.run(10_000);
    await run.stop();
    const [gap, ...more] = gapsOf(run.records);
    expect(more).toEqual([]);
    expect(gap).toMatchObject({ reason: 'disconnected' });
    expect(gap!.startUs).toBeLessThanOrEqual(BigInt(droppedAt) * 1000n);
    expect(gap!.endUs).toBeGreaterThan(BigInt(droppedAt) * 1000n);
    expect(gap!.scope.token_ids.length).toBeGreaterThan(0);
    const reseeded = payloads(run.records, 'book_snapshot').filter((p) => p.reason === 'reconnect');
    expect(new Set(reseeded.map((p) => p.token_id))).toEqual(new Set(gap!.scope.token_ids));
    expect(reseeded.every((p) => p.source === 'rest')).toBe(true);
    expect(run.capture.stats().reconnects).toBe(1);
    // Frames and reconnects per stream (the metrics' labels): the market socket was the one dropped.
    const stats = run.capture.stats();
    expect(stats.reconnectsByStream).toEqual({ market: 1 });
    expect(Object.keys(stats.framesByStream).sort()).toEqual(['account', 'market', 'portfolio']);
    expect(Object.values(stats.framesByStream).reduce((a, b) => a + b, 0)).toBe(stats.frames);
  });

  it('silence past the tolerance is a silence gap; a shorter one that swallowed frames is a frames_missed gap on a kept socket', async () => {
    const run = await covered();
    await inject(run, { kind: 'silence', endpoint: 'market', duration_ms: 5_000 });
    await run.run(10_000);
    expect(run.capture.stats().reconnects).toBe(0);
    await inject(run, { kind: 'silence', endpoint: 'market', duration_ms: 40_000 });
    await run.run(45_000, 1_000);
    await run.stop();
    const gaps = gapsOf(run.records);
    expect(gaps.map((g) => g.reason)).toEqual(['frames_missed', 'silence']);
    const missed = run.records.find(
      (r) => r.kind === 'capture_gap' && (r.payload as Payload).reason === 'frames_missed',
    )!.payload as Payload;
    expect(missed.frames_missed).toBeGreaterThan(0);
    // The silence gap runs from the last frame to the acknowledgement on the new socket: at least the tolerance.
    expect(gaps[1]!.endUs! - gaps[1]!.startUs).toBeGreaterThanOrEqual(30_000_000n);
  });

  it('sequence_reset: a gap over the lost frames, then every book of the socket re-seeded with that reason', async () => {
    const run = await covered();
    const at = await inject(run, { kind: 'sequence_reset', endpoint: 'market', gap_ms: 1_000 });
    await run.run(5_000);
    await run.stop();
    // A frame sent after the lost ones and before the reset shows the jump in frame numbers first.
    const gaps = gapsOf(run.records);
    expect(gaps.at(-1)!.reason).toBe('sequence_reset');
    expect(gaps.every((g) => g.reason === 'frames_missed' || g.reason === 'sequence_reset')).toBe(true);
    expect(gaps[0]!.startUs).toBeLessThanOrEqual(BigInt(at) * 1000n);
    expect(gaps.at(-1)!.endUs).toBeGreaterThanOrEqual(BigInt(at + 1_000) * 1000n);
    const reseeded = new Set(
      payloads(run.records, 'book_snapshot')
        .filter((p) => p.reason === 'sequence_reset')
        .map((p) => p.token_id),
    );
    expect(reseeded).toEqual(new Set(gaps.at(-1)!.scope.token_ids));
    expect(run.capture.stats().reconnects).toBe(0);
  });

  it('error frames follow their action: keep records the error only; resubscribe takes the subject up again; reconnect reconnects', async () => {
    const run = await covered();
    await inject(run, { kind: 'error_frame', endpoint: 'market', action: 'keep' });
    await run.run(2_000);
    expect(gapsOf(run.records)).toEqual([]);
    await inject(run, { kind: 'error_frame', endpoint: 'market', action: 'resubscribe' });
    await run.run(2_000);
    await inject(run, { kind: 'error_frame', endpoint: 'market', action: 'reconnect' });
    await run.run(5_000);
    await run.stop();
    const gaps = gapsOf(run.records);
    expect(gaps.map((g) => g.reason)).toEqual(['subscription_dropped', 'reconnect_requested']);
    // The dropped subject is one channel of one token (or event): its gap says so.
    expect(gaps[0]!.scope.channels).toHaveLength(1);
    expect(gaps[0]!.scope.token_ids.length + gaps[0]!.scope.event_ids.length).toBe(1);
    expect(payloads(run.records, 'data_quality').map((p) => p.problem)).toEqual([
      'venue_error',
      'venue_error',
      'venue_error',
    ]);
    expect(run.capture.stats().reconnects).toBe(1);
  });

  it('refused reconnects: Retry-After is honoured across the sockets and the gap counts the refusals', async () => {
    const run = await covered();
    await inject(run, { kind: 'refuse_connections', endpoint: 'market', duration_ms: 20_000 });
    const droppedAt = await inject(run, { kind: 'drop_connection', endpoint: 'market' });
    await run.run(30_000, 1_000);
    // Refused with Retry-After: 60; nobody tries again within the minute.
    const refusals = run.capture.stats().refused429;
    expect(refusals).toBeGreaterThan(0);
    await run.run(40_000, 1_000);
    await run.stop();
    expect(run.capture.stats().refused429).toBe(refusals);
    const [gap] = gapsOf(run.records);
    expect(gap!.endUs! - BigInt(droppedAt) * 1000n).toBeGreaterThanOrEqual(60_000_000n);
    const payload = payloads(run.records, 'capture_gap').find((p) => p.reason !== 'not_captured')!;
    expect(payload.refused_attempts).toBeGreaterThan(0);
  });

  it('malformed frames become data-quality records with their raw text; unknown fields are kept; capture goes on', async () => {
    const run = await covered();
    for (const variant of ['invalid_json', 'wrong_types', 'unknown_kind'] as const)
      await inject(run, { kind: 'malformed_frames', endpoint: 'market', variant });
    await inject(run, { kind: 'malformed_frames', endpoint: 'market', variant: 'oversized', oversized_bytes: 300_000 });
    await inject(run, { kind: 'malformed_frames', endpoint: 'market', variant: 'unknown_fields', count: 3 });
    await run.run(5_000);
    const tradesBefore = run.capture.stats().recordsByKind.trade ?? 0;
    await run.run(10_000);
    await run.stop();
    const quality = run.records.filter((r) => r.kind === 'data_quality');
    const problems = quality.map((r) => (r.payload as Payload).problem);
    expect(problems).toEqual(
      expect.arrayContaining(['invalid_json', 'wrong_types', 'unknown_book_kind', 'malformed_book']),
    );
    expect(quality.every((r) => r.raw !== null && r.raw.length > 0)).toBe(true);
    const oversized = quality.find((r) => (r.payload as Payload).raw_truncated === true)!;
    expect((oversized.payload as Payload).raw_chars).toBeGreaterThan(300_000);
    // Frames with fields we do not know are records like any other, their raw text kept (a book
    // frame's inside its book update).
    const rawTexts = run.records.flatMap((r) =>
      r.kind === 'book_change' ? readBookUpdates(r).map((u) => u.raw) : [r.raw],
    );
    expect(rawTexts.filter((raw) => raw?.includes('x_venue_hint')).length).toBeGreaterThan(0);
    expect(run.capture.stats().recordsByKind.trade ?? 0).toBeGreaterThan(tradesBefore);
    expect(gapsOf(run.records)).toEqual([]);
  });

  it('duplicated frames do not become duplicate records', async () => {
    const run = await covered();
    await inject(run, { kind: 'duplicate_frames', endpoint: 'market', duration_ms: 15_000 });
    await run.run(20_000);
    await run.stop();
    expect(run.capture.stats().duplicatesDropped).toBeGreaterThan(0);
    const tradeKeys = payloads(run.records, 'trade').map((p) => tradeKey(p));
    expect(tradeKeys.length).toBeGreaterThan(0);
    expect(new Set(tradeKeys).size).toBe(tradeKeys.length);
    const changes = run.records
      .filter((r) => r.kind === 'book_change')
      .flatMap((r) => readBookUpdates(r).map((u) => `${u.tokenId}#${u.sequence}`));
    expect(new Set(changes).size).toBe(changes.length);
    const quotes = run.records.filter((r) => r.kind === 'quote').map((r) => r.raw);
    expect(new Set(quotes).size).toBe(quotes.length);
    expect(gapsOf(run.records)).toEqual([]);
  });

  it('account socket and portfolio stream: their records, and a gap of the stream when dropped', async () => {
    const run = await covered();
    await run.run(5_000);
    await inject(run, { kind: 'drop_connection', endpoint: 'account' });
    await inject(run, { kind: 'drop_connection', endpoint: 'portfolio' });
    await run.run(10_000);
    await run.stop();
    expect(payloads(run.records, 'account_event').length).toBeGreaterThan(0);
    expect(payloads(run.records, 'portfolio_sync').length).toBeGreaterThan(0);
    expect(gapsOf(run.records, 'account').map((g) => [g.reason, g.scope.all])).toEqual([['disconnected', true]]);
    expect(gapsOf(run.records, 'portfolio').map((g) => [g.reason, g.scope.all])).toEqual([['disconnected', true]]);
    expect(gapsOf(run.records, 'market')).toEqual([]);
    const account = run.records.filter((r) => r.kind === 'account_event');
    expect(account.every((r) => r.key === 'default' && typeof (r.payload as Payload).kind === 'string')).toBe(true);
  });
});

describe('capture across a restart', () => {
  it('records the time it did not run as a gap from the last instant the previous run covered and published', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capture-marks-'));
    const store = new FileCoverageStore(join(dir, 'coverage.json'));
    const venue = await steppedVenue({
      warmupMs: 5_000,
      simulator: { seed: 5, venue: { catalogue: SMALL_CATALOGUE } },
    });
    const bus = new EmbeddedBus();
    const first = await steppedRun({ bus, venue, capture: { coverageStore: store } });
    await first.untilCovered();
    await first.run(10_000);
    await first.stop(false);
    const lastFirstUs = first.records.reduce((max, r) => (r.receivedAtUs > max ? r.receivedAtUs : max), 0n);
    const stoppedAtUs = BigInt(venue.sim.venue.options.clock.now()) * 1000n;
    venue.advance(30_000);
    const second = await steppedRun({
      bus,
      venue,
      capture: { coverageStore: new FileCoverageStore(join(dir, 'coverage.json')) },
    });
    await second.untilCovered();
    await second.run(5_000);
    await second.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
    expect(gapsOf(first.records)).toEqual([]);
    for (const stream of ['market', 'account', 'portfolio']) {
      const gaps = gapsOf(second.records, stream);
      expect(gaps.map((g) => [g.reason, g.scope.all])).toEqual([['capture_not_running', true]]);
      // From no later than the last record of the first run, to after the restart.
      expect(gaps[0]!.startUs).toBeLessThanOrEqual(lastFirstUs);
      expect(gaps[0]!.startUs).toBeGreaterThan(lastFirstUs - 15_000_000n);
      expect(gaps[0]!.endUs).toBeGreaterThan(stoppedAtUs + 30_000_000n);
    }
    expect(isoToMicros('2025-01-06T12:00:00.000001Z')).toBe(1736164800000001n);
  });
});
