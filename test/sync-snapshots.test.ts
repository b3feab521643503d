import { afterEach, describe, expect, it } from 'vitest';
import { ExchangeUnavailableError, PermissionError } from '../src/api/errors.ts';
import { counterpartOf, openPositions, renderPosition, renderSummary } from '../src/simulator/wire/render/portfolio.ts';
import { classifyFailure } from '../src/sync/failure.ts';
import { positionOf, type Checkpoint } from '../src/sync/checkpoint.ts';
import { unobservedBuckets } from '../src/sync/jobs/pnl.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { createSyncVenue } from '../src/sync/venue.ts';
import { Secret } from '../src/util/secret.ts';
import { asWire, harness, type Harness } from './sync-fixtures.ts';

const MINUTE = 60_000;

describe('snapshot resources', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('summary, positions and rebates: what the simulator holds for the account at the time of the read', async () => {
    h = await harness({ warmUpMs: 20_000 });
    for (const job of ['portfolio_summary', 'positions', 'rebates'] as const) await runSyncJob(h.deps, job);
    const { venue } = h.sim;
    const account = venue.demo.account;
    const now = venue.options.clock.now();
    expect(h.bus.of('portfolio_summary').map((r) => r.payload)).toEqual([asWire(renderSummary(venue, account, now))]);
    const [positions] = h.bus.of('position');
    const truth = openPositions(account).map((p) => renderPosition(venue, p, counterpartOf(venue, account, p)));
    expect(truth.length).toBeGreaterThan(0);
    expect((positions?.payload as { positions: unknown }).positions).toEqual(asWire(truth));
    expect(h.bus.of('rebates').map((r) => r.payload)).toEqual([
      asWire({
        lp_incentive_micro: account.lpIncentivesMicro,
        maker_rebate_micro: account.makerRebatesMicro,
        vip_rebate_micro: account.vipRebatesMicro,
        total_micro: account.lpIncentivesMicro + account.makerRebatesMicro + account.vipRebatesMicro,
      }),
    ]);
  });

  it('positions the venue reports unavailable are not published, and the job is retried', async () => {
    h = await harness({ sim: { deployment: { positionsUnavailableRate: 1 } } });
    const failure = await runSyncJob(h.deps, 'positions').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExchangeUnavailableError);
    expect(classifyFailure(failure)).toMatchObject({ retryable: true });
    expect(h.bus.of('position')).toEqual([]);
  });

  it('settled PnL: waits out pnl_not_ready, then one record per bucket', async () => {
    h = await harness();
    const first = await runSyncJob(h.deps, 'pnl');
    expect(first.records).toBe(1);
    expect(h.logLines.some((line) => line.code === 'pnl_not_ready' && line.msg === 'venue asked to retry')).toBe(true);
    await runSyncJob(h.deps, 'pnl');
    h.sim.advance(MINUTE);
    await runSyncJob(h.deps, 'pnl');
    const buckets = h.bus.of('pnl_settled').map((r) => (r.payload as { bucket_at: string }).bucket_at);
    const history = h.sim.venue.pnl
      .history(h.sim.venue.demo.account.id)
      .map((b) => new Date(b.bucketAtMs).toISOString());
    expect(buckets).toEqual(history);
    expect(buckets).toHaveLength(2);
  });

  it('settled PnL: each bucket the venue served while the job was down or got pnl_unavailable is a capture gap, none while it read twice per mark', async () => {
    h = await harness();
    const run = () => runSyncJob(h.deps, 'pnl').catch((error: unknown) => error);
    // The venue marks on its ticks: time moves a second at a time.
    const pass = (ms: number) => {
      for (let t = 0; t < ms; t += 1_000) h.sim.advance(1_000);
    };
    const every = async (ms: number, count: number) => {
      for (let i = 0; i < count; i += 1) {
        pass(ms);
        await run();
      }
    };
    await run();
    await every(MINUTE / 2, 4); // the schedule's pace: the cadence is learnt, nothing missed
    const gaps = () =>
      h.bus.of('capture_gap').map(
        (r) =>
          r.payload as {
            channel: string;
            subject: string;
            reason: string;
            gap_start: string;
            gap_end: string;
            detail: string;
          },
      );
    expect(gaps()).toEqual([]);
    const before = h.bus.of('pnl_settled').length;
    pass(5 * MINUTE); // the job is down for five minutes
    await run();
    const [down] = gaps();
    const buckets = h.sim.venue.pnl
      .history(h.sim.venue.demo.account.id)
      .map((b) => new Date(b.bucketAtMs).toISOString());
    const seen = h.bus.of('pnl_settled').map((r) => (r.payload as { bucket_at: string }).bucket_at);
    expect(seen).toHaveLength(before + 1);
    const missed = buckets.filter((b) => !seen.includes(b));
    expect(missed).toHaveLength(4);
    expect(down).toMatchObject({
      channel: 'pnl',
      subject: 'demo',
      reason: 'buckets_not_observed',
      gap_start: seen.at(-2),
      gap_end: seen.at(-1),
      detail: expect.stringContaining('4 bucket(s)'),
    });
    expect(missed.every((b) => b > down!.gap_start && b < down!.gap_end)).toBe(true);

    h.sim.faults.inject({
      kind: 'rest_server_error',
      strategy: 'none',
      code: 'pnl_unavailable',
      path_prefix: '/trade/v1/portfolio/pnl',
      duration_ms: 2 * MINUTE + 10_000,
    });
    await every(MINUTE / 2, 4); // 503 pnl_unavailable: the client stops at once, the job fails without retry
    expect(h.bus.of('pnl_settled')).toHaveLength(before + 1);
    await every(MINUTE / 2, 1);
    const after = h.bus.of('pnl_settled').map((r) => (r.payload as { bucket_at: string }).bucket_at);
    const unseen = h.sim.venue.pnl
      .history(h.sim.venue.demo.account.id)
      .map((b) => new Date(b.bucketAtMs).toISOString())
      .filter((b) => b > seen.at(-1)! && b < after.at(-1)!);
    expect(unseen.length).toBeGreaterThan(0);
    expect(gaps()).toHaveLength(2);
    expect(gaps()[1]).toMatchObject({
      reason: 'buckets_not_observed',
      gap_start: seen.at(-1),
      gap_end: after.at(-1),
      detail: expect.stringMatching(new RegExp(`${unseen.length} bucket\\(s\\).*pnl_unavailable`)),
    });
  });

  it('an endpoint not offered here is recorded as a gap and asked again only after the retry interval', async () => {
    h = await harness({ sim: { deployment: { features: { withdrawals: 'absent', lp_incentives: 'unconfigured' } } } });
    const assets = await runSyncJob(h.deps, 'withdrawal_assets');
    const lp = await runSyncJob(h.deps, 'lp_incentives');
    expect([assets.outcome, lp.outcome]).toEqual(['unavailable', 'unavailable']);
    expect(assets.checkpoint?.unavailable).toMatchObject({ code: 'route_not_found' });
    expect(lp.checkpoint?.unavailable).toMatchObject({ code: 'feature_not_configured' });
    const gaps = h.bus.of('capture_gap').map((r) => r.payload as Record<string, string>);
    expect(gaps.map((g) => [g.channel, g.reason, g.subject])).toEqual([
      ['withdrawal_assets', 'endpoint_not_offered', 'demo'],
      ['lp_incentives', 'endpoint_not_offered', 'demo'],
    ]);
    const asked = h.requests.sent.length;

    h.sim.advance(10 * MINUTE);
    expect(await runSyncJob(h.deps, 'withdrawal_assets')).toMatchObject({ outcome: 'unavailable', skipped: true });
    expect(h.requests.sent.length).toBe(asked);

    h.sim.advance(25 * MINUTE);
    expect(await runSyncJob(h.deps, 'withdrawal_assets')).toMatchObject({ outcome: 'unavailable', skipped: false });
    expect(h.requests.sent.length).toBe(asked + 1);
    const [firstGap, secondGap] = h.bus
      .of('capture_gap')
      .filter((r) => (r.payload as { channel: string }).channel === 'withdrawal_assets')
      .map((r) => r.payload as Record<string, string>);
    expect(secondGap?.gap_start).toBe(firstGap?.gap_end);
    expect(Date.parse(secondGap?.gap_end ?? '') - Date.parse(secondGap?.gap_start ?? '')).toBe(35 * MINUTE);
  });

  it('the LP incentives and withdrawal assets of the account, one record per read', async () => {
    h = await harness();
    await runSyncJob(h.deps, 'lp_incentives');
    await runSyncJob(h.deps, 'withdrawal_assets');
    const [lp] = h.bus.of('lp_incentive');
    expect((lp?.payload as { markets: unknown[] }).markets.length).toBeGreaterThan(0);
    const [assets] = h.bus.of('withdrawal_assets');
    expect((assets?.payload as { wallet_address: string }).wallet_address).toBe(h.sim.venue.demo.account.walletAddress);
  });

  it('a token without the scope fails the job with no retry (strategy none)', async () => {
    h = await harness();
    const reader = h.sim.venue.createAccount('reader', 0n, ['orders:read']);
    const venue = createSyncVenue({
      baseUrl: h.sim.url,
      token: new Secret(reader.token.secret),
      clock: h.clock,
      logger: h.deps.logger,
    });
    try {
      const failure = await runSyncJob({ ...h.deps, venue }, 'portfolio_summary').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(PermissionError);
      expect(classifyFailure(failure)).toMatchObject({ retryable: false, type: 'forbidden_scope' });
      expect((failure as PermissionError).attempts).toBe(1);
      expect(await h.store.load('portfolio_summary', 'demo')).toMatchObject({ status: 'failed' });
    } finally {
      await venue.close();
    }
  });
});

describe('the catalogue', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('every listed event, the detail of each with its markets, then only what may have changed', async () => {
    h = await harness({ sim: { rate: 0 } });
    await runSyncJob(h.deps, 'catalogue');
    const { catalogue } = h.sim.venue;
    const events = h.bus.of('event');
    const isDetail = (payload: unknown): boolean => Array.isArray((payload as { markets?: unknown }).markets);
    const listings = events.filter((r) => !isDetail(r.payload));
    const details = events.filter((r) => isDetail(r.payload));
    const listed = catalogue.events
      .filter((e) => e.archivedAtMs === undefined)
      .map((e) => e.id)
      .sort();
    expect(listings.map((r) => r.key).sort()).toEqual(listed);
    expect(details.map((r) => r.key).sort()).toEqual(listed);
    const published = new Set(h.bus.of('market').map((r) => (r.payload as { id: string }).id));
    for (const event of catalogue.events.filter(
      (e) => e.archivedAtMs === undefined && e.eventType !== 'RECURRING_PROPOSITION',
    )) {
      for (const market of catalogue.marketsOf(event)) expect(published.has(market.id)).toBe(true);
    }
    expect(h.bus.of('market').every((r) => typeof (r.payload as { event_id?: unknown }).event_id === 'string')).toBe(
      true,
    );

    const detailReads = h.requests.count('GET /api/v1/events/');
    await runSyncJob(h.deps, 'catalogue');
    const recurring = listings.filter(
      (r) => (r.payload as { event_type?: string }).event_type === 'RECURRING_PROPOSITION',
    ).length;
    expect(recurring).toBeGreaterThan(0);
    expect(h.requests.count('GET /api/v1/events/') - detailReads).toBe(recurring);
  });

  it('keeps fingerprints of the events the last full pass listed only, and heartbeats none of them', async () => {
    h = await harness({ sim: { rate: 0 } });
    const first = await runSyncJob(h.deps, 'catalogue');
    const prints = (cp: Checkpoint | undefined) =>
      Object.keys((cp?.state as { fingerprints: Record<string, string> }).fingerprints).sort();
    const listed = () =>
      h.sim.venue.catalogue.events
        .filter((e) => e.archivedAtMs === undefined)
        .map((e) => e.id)
        .sort();
    expect(prints(first.checkpoint)).toEqual(listed());
    // An event leaves the listing (archived): the next full pass forgets it.
    const gone = h.sim.venue.catalogue.events.find(
      (e) => e.archivedAtMs === undefined && e.eventType !== 'RECURRING_PROPOSITION',
    )!;
    gone.archivedAtMs = h.clock.now();
    // Past the CDN cache of the public listing (§8.4), which still lists it for a moment.
    h.sim.advance(2_000);
    const second = await runSyncJob(h.deps, 'catalogue');
    expect(prints(second.checkpoint)).toEqual(listed());
    expect(prints(second.checkpoint)).not.toContain(gone.id);
    // What a Temporal activity heartbeats: the version and the pass position, not the state.
    const beat = JSON.stringify(positionOf(second.checkpoint!));
    expect(beat).not.toContain('fingerprints');
    expect(beat).toContain(`"version":${second.checkpoint!.version}`);
  });
});

describe('settled-PnL continuity', () => {
  it('settled PnL before the cadence is known: the first spacing waits for a second one, then both are judged at the cadence they teach', () => {
    const first = { bucketAtMs: 60_000, markAtMs: 60_100, lastReadMs: 60_200 };
    // Read early in the second bucket's life and late in the first's: no guess, it waits.
    const waiting = unobservedBuckets(first, { bucketAtMs: 120_000, markAtMs: 120_100 });
    expect(waiting).toEqual({ gaps: [], unjudged: [{ fromMs: 60_000, toMs: 120_000, lastReadMs: 60_200 }] });
    // The next bucket a minute later: the cadence is a minute, and nothing was missed.
    const second = { bucketAtMs: 120_000, markAtMs: 120_100, lastReadMs: 150_000, unjudged: waiting.unjudged };
    expect(unobservedBuckets(second, { bucketAtMs: 180_000, markAtMs: 180_100 })).toEqual({
      gaps: [],
      cadenceMs: 60_000,
    });
    // A first spacing of five minutes, judged when a one-minute spacing follows: four buckets, published then.
    const paused = {
      bucketAtMs: 360_000,
      markAtMs: 360_100,
      lastReadMs: 390_000,
      unjudged: [{ fromMs: 60_000, toMs: 360_000, lastReadMs: 60_200, error: 'pnl_unavailable' }],
    };
    expect(unobservedBuckets(paused, { bucketAtMs: 420_000, markAtMs: 420_100 })).toEqual({
      gaps: [{ fromMs: 60_000, toMs: 360_000, lastReadMs: 60_200, error: 'pnl_unavailable', buckets: 4 }],
      cadenceMs: 60_000,
    });
    expect(unobservedBuckets({ ...first, cadenceMs: 60_000 }, { bucketAtMs: 600_000, markAtMs: 600_100 })).toEqual({
      gaps: [{ fromMs: 60_000, toMs: 600_000, lastReadMs: 60_200, buckets: 8 }],
      cadenceMs: 60_000,
    });
  });
});
