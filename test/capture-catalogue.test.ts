import { describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { EventDetailSchema } from '../src/api/schemas/index.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { CatalogueReader, capturedMarkets } from '../src/capture/market/catalogue.ts';
import { VenueClient } from '../src/api/client.ts';
import { CursorLoopError } from '../src/api/paging.ts';
import { quietSimulator } from './simulator-helpers.ts';
import { gapsOf } from './capture-checks.ts';
import { SMALL_CATALOGUE, steppedRun, steppedVenue } from './capture-helpers.ts';
import { nowMicros } from '../src/util/clock.ts';

type Payload = Record<string, unknown>;
const payloads = (records: readonly ReceivedRecord[], kind: ReceivedRecord['kind']): Payload[] =>
  records.filter((r) => r.kind === kind).map((r) => r.payload as Payload);

describe('capture follows the catalogue', () => {
  it('takes what trades, whatever its state string; leaves out the rest with a reason', () => {
    const market = (id: string, fields: Record<string, unknown>) => ({
      id,
      condition_id: `c-${id}`,
      outcomes: [{ token_id: `${id}-0` }, { token_id: `${id}-1` }],
      ...fields,
    });
    const detail = EventDetailSchema.parse({
      id: 'ev',
      event_type: 'RECURRING_PROPOSITION',
      markets: [
        market('live', { state: 'DRAFT', is_accepting_orders: true }), // §2.9: the live cycle reads DRAFT
        market('next', { state: 'PROVISIONED', is_accepting_orders: false }),
        market('later', { state: 'DRAFT', is_accepting_orders: false, volume_micro: '0' }),
        market('odd', { state: 'SOMETHING_NEW', is_accepting_orders: false, volume_micro: '5000000' }),
        market('halted', {
          state: 'OPEN',
          is_accepting_orders: false,
          outcomes: [{ token_id: 'h-0', best_bid_micro: '450000' }, { token_id: 'h-1' }],
        }),
        market('done', { state: 'SETTLED', resolution_status: 'RESOLVED', is_accepting_orders: false }),
        market('gone', { state: 'CLOSED', archived_at: '2025-01-06T00:00:00Z', is_accepting_orders: false }),
        { id: 'bare', state: 'DRAFT', is_accepting_orders: true, outcomes: [] },
      ],
    });
    const { captured, skipped } = capturedMarkets(detail);
    expect(captured.map((m) => [m.marketId, m.final, m.mayHaveTraded])).toEqual([
      ['live', false, true],
      ['next', false, false],
      ['odd', false, true],
      ['halted', false, true],
      ['done', true, true],
    ]);
    expect(skipped.map((m) => m.marketId)).toEqual(['later', 'gone', 'bare']);
    expect(skipped.map((m) => m.reason)).toEqual([
      expect.stringContaining('announced cycle'),
      expect.stringContaining('archived'),
      expect.stringContaining('nothing to subscribe'),
    ]);
  });

  it('covers a recurring event’s next cycle before it opens, lets resolved markets go, and records halts and resolutions', async () => {
    const bus = new EmbeddedBus();
    const run = await steppedRun({
      bus,
      warmupMs: 2_000,
      simulator: {
        seed: 9,
        rate: 40,
        venue: { catalogue: { ...SMALL_CATALOGUE, recurringCadenceSeconds: 20 } },
        lifecycle: {
          haltEveryMs: 15_000,
          haltDurationMs: 5_000,
          endEventEveryMs: 20_000,
          proposeAfterMs: 3_000,
          challengeMs: 5_000,
          redeemDelayMs: 2_000,
        },
      },
      capture: { catalogueRefreshMs: 10_000, dropGraceMs: 10_000 },
    });
    await run.untilCovered();
    await run.run(60_000, 1_000);
    await run.stop();
    await bus.close();

    const statuses = payloads(run.records, 'market_status');
    const kinds = new Set(statuses.map((s) => s.kind));
    for (const kind of ['market_halted', 'market_resumed', 'current_market_changed']) expect(kinds).toContain(kind);
    expect(kinds.has('market_resolved') || kinds.has('payouts_resolved')).toBe(true);

    // Every new cycle was subscribed before it opened: never late, and its trades were captured.
    const gaps = gapsOf(run.records, 'market', true);
    expect(gaps.filter((g) => g.reason === 'subscribed_late')).toEqual([]);
    const newCycles = new Set(statuses.filter((s) => s.kind === 'current_market_changed').map((s) => s.condition_id));
    expect(payloads(run.records, 'trade').filter((t) => newCycles.has(t.condition_id)).length).toBeGreaterThan(0);
    const rollKeys = run.records
      .filter((r) => r.kind === 'market_status' && (r.payload as Payload).kind === 'current_market_changed')
      .map((r) => r.key);
    expect(rollKeys.every((key) => key === statuses.find((s) => s.kind === 'current_market_changed')!.event_id)).toBe(
      true,
    );

    // Resolved markets are let go: an open-ended gap of their scope, after their resolution.
    const resolved = statuses
      .filter((s) => s.kind === 'market_resolved' || s.kind === 'payouts_resolved')
      .map((s) => s.condition_id as string);
    const letGo = gaps.filter((g) => g.reason === 'unsubscribed');
    expect(letGo.length).toBeGreaterThan(0);
    expect(letGo.every((g) => g.endUs === null)).toBe(true);
    expect(letGo.flatMap((g) => g.scope.condition_ids).filter((c) => resolved.includes(c)).length).toBeGreaterThan(0);
    // Every other listed market left out is named, with why: a recurring event's announced cycles, markets resolved
    // before capture took them.
    const leftOut = gaps.filter((g) => g.reason === 'not_captured');
    expect(leftOut.length).toBeGreaterThan(0);
    expect(gaps.filter((g) => g.reason !== 'unsubscribed' && g.reason !== 'not_captured')).toEqual([]);
  }, 60_000);

  it('records as late, from its first read, an event whose detail the venue would not give at start', async () => {
    const bus = new EmbeddedBus();
    const venue = await steppedVenue({
      warmupMs: 2_000,
      simulator: { seed: 9, rate: 40, venue: { catalogue: SMALL_CATALOGUE }, lifecycle: false },
    });
    const catalogue = venue.sim.venue.catalogue;
    const event = catalogue.events.find(
      (e) => e.eventType !== 'RECURRING_PROPOSITION' && catalogue.marketsOf(e).some((m) => m.state === 'ACTIVE'),
    )!;
    // The event's detail answers 500 (no retry) for the first 25 s of the run; the list does not.
    venue.sim.faults.inject({
      kind: 'rest_server_error',
      strategy: 'none',
      duration_ms: 25_000,
      fraction: 1,
      path_prefix: `/api/v1/events/${event.slug}`,
    });
    const startedUs = BigInt(venue.sim.venue.options.clock.now()) * 1000n;
    const run = await steppedRun({ bus, venue, capture: { catalogueRefreshMs: 10_000 } });
    await run.run(45_000, 1_000);
    await run.stop();
    await bus.close();
    const conditions = catalogue
      .marketsOf(event)
      .filter((m) => m.state === 'ACTIVE')
      .map((m) => m.conditionId);
    const late = gapsOf(run.records).filter(
      (g) => g.reason === 'subscribed_late' && g.scope.condition_ids.some((c) => conditions.includes(c)),
    );
    expect(late.length).toBeGreaterThan(0);
    // From the first read (before: from the read just before the one that succeeded, 10 s too late).
    for (const g of late) expect(g.startUs).toBeLessThanOrEqual(startedUs + 2_000_000n);
    expect(payloads(run.records, 'trade').some((t) => conditions.includes(t.condition_id as string))).toBe(true);
  }, 60_000);

  it('a catalogue listing stopped by a repeated cursor keeps what it read and forgets no event it did not reach', async () => {
    const { sim } = await quietSimulator({
      venue: { catalogue: { games: 0, propositions: 120, multiOutcome: 0, recurring: 0 } },
    });
    try {
      const client = new VenueClient({ baseUrl: sim.url });
      const reader = new CatalogueReader({
        client,
        clock: { now: () => sim.venue.options.clock.now(), sleep: async () => undefined, epochMicros: nowMicros },
      });
      const full = await reader.read();
      expect(full.cursorLoop).toBeUndefined();
      expect(full.events.size).toBeGreaterThan(100); // two pages of 100
      sim.faults.inject({ kind: 'repeat_cursor', path_prefix: '/api/v1/events', duration_ms: 5_000 });
      sim.advance(1_000); // past the CDN cache of the first read's pages
      const cut = await reader.read();
      expect(cut.cursorLoop).toBeInstanceOf(CursorLoopError);
      expect(cut.cursorLoop!.endpoint).toBe('GET /api/v1/events');
      expect(cut.complete).toBe(false);
      expect(cut.events.size).toBe(full.events.size);
    } finally {
      await sim.close();
    }
  });
});
