import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOPICS } from '../src/bus/topics.ts';
import { startLoaders } from '../src/load/index.ts';
import type { FillPayload } from '../src/records/index.ts';
import type { LookupPayload } from '../src/records/index.ts';
import { lookupMaps } from '../src/simulator/wire/render/lookups.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { createLogger } from '../src/util/log.ts';
import { drained } from './load-fixtures.ts';
import { harness, type Harness } from './sync-fixtures.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * Issue 22 (points 2, 3, 8): what the sync jobs read of the venue, from the simulator through the
 * embedded bus into chDB, asked of the tables as a user would.
 */

const log = createLogger('sync-venue-records.test', 'silent');
let w: TestWarehouse;
let h: Harness;
let group = 0;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
});

afterEach(async () => {
  await h?.close();
});

/** Loads everything the harness's bus holds into the warehouse (a fresh consumer group each time). */
async function load(): Promise<void> {
  group += 1;
  const loaders = await startLoaders({
    bus: h.bus,
    warehouse: w.warehouse,
    group: `venue-records-${group}`,
    topics: TOPICS.topics.map((t) => t.name),
    batch: { maxDelayMs: 100 },
    log,
  });
  await drained(loaders);
  await loaders.stop();
}

const query = <T = Record<string, unknown>>(sql: string): Promise<T[]> => rows<T>(w.warehouse.client, sql);

describe('order_trades and an order its fills read does not find', () => {
  it("records a data_quality row and reads the other orders' fills; the next run does not ask again", async () => {
    h = await harness({ warmUpMs: 20_000 });
    const orders = (await h.venue.client.orders.ordersPage({}, undefined)).value.orders;
    const gone = orders.find((o) => (o.size_matched_micro ?? 0n) > 0n);
    expect(gone).toBeDefined();
    const id = gone!.internal_id;
    h.sim.faults.inject({ kind: 'order_not_visible', path_prefix: `/trade/v1/orders/${id}`, duration_ms: 3_600_000 });

    const first = await runSyncJob(h.deps, 'order_trades');
    expect(first.outcome).toBe('done');
    const findings = h.bus.of('data_quality');
    expect(findings.map((r) => r.payload)).toEqual([
      expect.objectContaining({ problem: 'order_not_found', stream: 'sync', order_id: id }),
    ]);
    const fills = h.bus.of('fill').map((r) => r.payload as FillPayload);
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.some((f) => f.order_id === id)).toBe(false);

    await runSyncJob(h.deps, 'order_trades');
    expect(h.bus.of('data_quality')).toHaveLength(1);
    expect(h.requests.count(`GET /trade/v1/orders/${id}/trades`)).toBe(1);

    await load();
    const stored = await query<{ problem: string; condition_id: string; detail: string }>(
      `SELECT problem, condition_id, detail FROM tapehouse.data_quality WHERE problem = 'order_not_found'`,
    );
    expect(stored).toEqual([
      { problem: 'order_not_found', condition_id: gone!.condition_id ?? '', detail: expect.stringContaining(id) },
    ]);
  });
});

describe('lookup maps of the account lists', () => {
  it('every entry of the markets, events and conditions maps is stored, as the venue sent it, and published again only when it changes', async () => {
    h = await harness({ warmUpMs: 20_000 });
    for (const job of ['open_orders', 'portfolio_trades', 'activities'] as const)
      expect((await runSyncJob(h.deps, job)).outcome).toBe('done');
    const lookups = h.bus.of('lookup').map((r) => r.payload as LookupPayload);
    const tokens = new Set(
      [...h.bus.of('order'), ...h.bus.of('fill'), ...h.bus.of('activity')]
        .map((r) => (r.payload as { token_id?: string }).token_id)
        .filter((t) => t !== undefined),
    );
    expect(tokens.size).toBeGreaterThan(0);
    // What the venue holds for those tokens, in the interface's shape.
    const truth = lookupMaps(h.sim.venue, tokens);
    const stored = (map: string) =>
      Object.fromEntries(lookups.filter((l) => l.map === map).map((l) => [l.key, l.entry]));
    expect(stored('markets')).toEqual(truth.markets);
    expect(stored('events')).toEqual(truth.events);
    expect(stored('conditions')).toEqual(truth.conditions);
    expect(new Set(lookups.filter((l) => l.map === 'conditions').map((l) => l.list))).toEqual(new Set(['activities']));

    // Nothing changed: the next pass publishes no entry again.
    await runSyncJob(h.deps, 'open_orders');
    expect(h.bus.of('lookup')).toHaveLength(lookups.length);

    await load();
    const rowsByMap = await query<{ map: string; n: string; titled: string }>(
      `SELECT map, count() AS n, countIf(market_title != '' OR event_title != '') AS titled FROM tapehouse.lookups_latest WHERE account = 'demo' GROUP BY map ORDER BY map`,
    );
    expect(rowsByMap).toEqual(
      ['conditions', 'events', 'markets'].map((map) => ({
        map,
        n: String(Object.keys(truth[map as keyof typeof truth]).length),
        titled: String(Object.keys(truth[map as keyof typeof truth]).length),
      })),
    );
    const [token] = [...tokens];
    const [market] = await query<{ outcome_name: string; display: string }>(
      `SELECT outcome_name, display FROM tapehouse.lookups_latest WHERE map = 'markets' AND lookup_key = '${token}'`,
    );
    const entry = truth.markets[token!] as { outcome_name: string; display: unknown };
    expect(market).toEqual({ outcome_name: entry.outcome_name, display: JSON.stringify(entry.display) });
  });
});

describe("the catalogue's categories and live sports sections", () => {
  it('sports_sections: every section of a filter=sports_live read, and its events, stored; the newest read is sports_sections_latest', async () => {
    h = await harness({ warmUpMs: 20_000 });
    const live = h.sim.venue.catalogue.events.filter(
      (e) => e.isLive && e.archivedAtMs === undefined && e.categoryKeys.some((k) => k.startsWith('sports')),
    );
    expect(live.length).toBeGreaterThan(0);
    expect((await runSyncJob(h.deps, 'sports_sections')).outcome).toBe('done');
    const [read] = h.bus.of('sports_sections');
    const sections = (read!.payload as { sections: Array<{ category: { slug: string }; event_ids: string[] }> })
      .sections;
    // Every live sports event in exactly one section, the section its leaf category names (§4.2: leaf-category
    // sections).
    expect(sections.flatMap((s) => s.event_ids).sort()).toEqual(live.map((e) => e.id).sort());
    for (const section of sections) {
      for (const id of section.event_ids)
        expect(h.sim.venue.catalogue.tree.get(live.find((e) => e.id === id)!.categoryKeys[0]!).slug).toBe(
          section.category.slug,
        );
    }
    expect(new Set(h.bus.of('event').map((r) => r.key))).toEqual(new Set(live.map((e) => e.id)));

    await load();
    expect(await query(`SELECT section_count, event_count FROM tapehouse.sports_section_reads`)).toEqual([
      { section_count: sections.length, event_count: live.length },
    ]);
    const latest = await query<{ category_slug: string; event_ids: string[] }>(
      `SELECT category_slug, event_ids FROM tapehouse.sports_sections_latest ORDER BY position`,
    );
    expect(latest).toEqual(sections.map((s) => ({ category_slug: s.category.slug, event_ids: s.event_ids })));
    const [joined] = await query<{ n: string }>(
      `SELECT count() AS n FROM tapehouse.sports_sections_latest ARRAY JOIN event_ids AS id WHERE id IN (SELECT event_id FROM tapehouse.events_latest WHERE is_live)`,
    );
    expect(Number(joined!.n)).toBe(live.length);
  });

  it('categories: the forest of every tree an event sits in, from /categories/{slug}; a change is a new row, the latest is categories_latest', async () => {
    h = await harness();
    expect((await runSyncJob(h.deps, 'categories')).outcome).toBe('done');
    const tree = h.sim.venue.catalogue.tree;
    const withEvents = new Set(
      h.sim.venue.catalogue.events
        .filter((e) => e.archivedAtMs === undefined)
        .map((e) => tree.get(e.categoryKeys[0]!).rootSlug),
    );
    // Every category of those trees, reached by slug (a slug in two trees is read once: /categories/{slug} takes no
    // root).
    const expected = new Set(
      tree
        .all()
        .filter((c) => withEvents.has(c.rootSlug))
        .map((c) => c.slug),
    );
    const read = h.bus.of('category').map((r) => (r.payload as { slug: string }).slug);
    expect(new Set(read)).toEqual(expected);
    expect(read).toHaveLength(expected.size);
    expect(h.requests.count('GET /api/v1/categories')).toBe(0);

    // Nothing changed: nothing published again. A renamed category: one new row.
    await runSyncJob(h.deps, 'categories');
    expect(h.bus.of('category')).toHaveLength(expected.size);
    const soccer = tree.findBySlug('soccer')[0]!;
    (soccer as { label: string }).label = 'Football';
    h.sim.advance(10 * 60_000); // past the CDN's cache of the answer (src/simulator/http/cdn-cache.ts)
    await runSyncJob(h.deps, 'categories');
    // Ten minutes on, event counts moved too: those categories changed as well.
    const changed = h.bus
      .of('category')
      .slice(expected.size)
      .map((r) => r.payload as { slug: string; answer: { label: string } });
    expect(changed.find((c) => c.slug === 'soccer')?.answer.label).toBe('Football');
    expect(changed.length).toBeLessThan(expected.size);

    await load();
    const history = await query<{ label: string }>(
      `SELECT label FROM tapehouse.categories WHERE slug = 'soccer' ORDER BY observed_at, _offset`,
    );
    expect(history.map((r) => r.label)).toEqual(['Soccer', 'Football']);
    const [rows] = await query<{ n: string }>(`SELECT count() AS n FROM tapehouse.categories`);
    expect(Number(rows!.n)).toBe(expected.size + changed.length);
    const forest = await query<{ slug: string; parent_slug: string; root_slug: string }>(
      `SELECT slug, parent_slug, root_slug FROM tapehouse.categories_latest WHERE found ORDER BY slug`,
    );
    expect(forest).toHaveLength(expected.size);
    const nba = forest.find((c) => c.slug === 'nba');
    expect(nba).toEqual({ slug: 'nba', parent_slug: 'basketball', root_slug: 'sports' });
    expect(
      forest
        .filter((c) => c.parent_slug === '')
        .map((c) => c.slug)
        .sort(),
    ).toEqual([...withEvents].sort());
  });
});

describe('account batches and their withdrawals', () => {
  it('finds the hashes in the activities, reads each batch until its outcome is known, and keeps every withdrawal state', async () => {
    h = await harness({ warmUpMs: 5_000 });
    const venue = h.sim.venue;
    const account = venue.demo.account;
    const market = venue.catalogue.events
      .flatMap((e) => venue.catalogue.marketsOf(e))
      .find((m) => m.state === 'ACTIVE')!;
    const submit = (ops: Parameters<typeof venue.batches.submit>[1]) =>
      venue.batches.submit(
        account,
        ops,
        Math.floor(venue.options.clock.now() / 1000) + 600,
        'sig',
        venue.options.clock.now(),
      );
    const split = submit([
      { kind: 'SPLIT', conditionId: market.conditionId, marketId: market.id, sharesMicro: 1_000_000n },
    ]);
    h.sim.advance(3_000);
    const withdraw = submit([
      { kind: 'WITHDRAW', conditionId: '', marketId: '', sharesMicro: 2_000_000n, chainId: 137 },
    ]);
    h.sim.advance(3_000);
    expect([split.status, withdraw.status]).toEqual(['EXECUTED', 'EXECUTED']);

    expect((await runSyncJob(h.deps, 'account_batches')).outcome).toBe('done');
    const read = () =>
      h.bus
        .of('account_batch')
        .map((r) => r.payload as { batch_hash: string; status: string; withdrawal?: { state: string } });
    expect(read().map((b) => [b.batch_hash, b.status, b.withdrawal?.state])).toEqual(
      expect.arrayContaining([
        [split.hash, 'EXECUTED', undefined],
        [withdraw.hash, 'EXECUTED', 'IN_TRANSIT'],
      ]),
    );
    expect(read()).toHaveLength(2);

    // The withdrawal is delivered a batch delay later: read again until then, the split never again.
    h.sim.advance(3_000);
    await runSyncJob(h.deps, 'account_batches');
    await runSyncJob(h.deps, 'account_batches');
    expect(read().map((b) => b.withdrawal?.state)).toEqual(expect.arrayContaining(['IN_TRANSIT', 'COMPLETED']));
    expect(h.requests.count(`GET /trade/v1/batches/${split.hash}`)).toBe(1);
    expect(h.requests.count(`GET /trade/v1/batches/${withdraw.hash}`)).toBe(2);

    await load();
    const states = await query<{
      state: string;
      source_status: string;
      destination_status: string;
      destination_path: string;
    }>(
      `SELECT state, source_status, destination_status, destination_path FROM tapehouse.withdrawal_states WHERE batch_hash = '${withdraw.hash}' ORDER BY observed_at`,
    );
    expect(states).toEqual([
      {
        state: 'IN_TRANSIT',
        source_status: 'CONFIRMED',
        destination_status: 'WAITING',
        destination_path: 'SPOKE_POOL',
      },
      {
        state: 'COMPLETED',
        source_status: 'CONFIRMED',
        destination_status: 'DELIVERED',
        destination_path: 'SPOKE_POOL',
      },
    ]);
    const latest = await query<{ batch_hash: string; status: string; op_kinds: string[]; withdrawal_state: string }>(
      `SELECT batch_hash, status, op_kinds, withdrawal_state FROM tapehouse.account_batches_latest ORDER BY seq`,
    );
    expect(latest).toEqual([
      { batch_hash: split.hash, status: 'EXECUTED', op_kinds: ['SPLIT'], withdrawal_state: '' },
      { batch_hash: withdraw.hash, status: 'EXECUTED', op_kinds: ['WITHDRAW'], withdrawal_state: 'COMPLETED' },
    ]);
  });

  it('a deployment without account batches: a gap of the job, not a failure', async () => {
    h = await harness({ sim: { deployment: { features: { account_batches: 'unconfigured' } } } });
    const venue = h.sim.venue;
    // Reading the venue's own state: a hash the activities name (batches cannot be submitted here).
    venue.activities.record(venue.demo.account, 'SPLIT', venue.options.clock.now(), { batchHash: '0xfeed' });
    const report = await runSyncJob(h.deps, 'account_batches');
    expect(report.outcome).toBe('unavailable');
    expect(h.bus.of('capture_gap').map((r) => r.payload)).toEqual([
      expect.objectContaining({ reason: 'endpoint_not_offered', channel: 'account_batches' }),
    ]);
    await load();
    const [gap] = await query<{ reason: string; _sync_job: string }>(
      `SELECT reason, _sync_job FROM tapehouse.capture_gaps WHERE channel = 'account_batches'`,
    );
    expect(gap).toEqual({ reason: 'endpoint_not_offered', _sync_job: 'account_batches' });
  });
});
