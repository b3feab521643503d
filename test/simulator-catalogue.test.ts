import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalogue } from '../src/simulator/catalogue/generate.ts';
import type { SimulatorHandle } from '../src/simulator/index.ts';
import { api, quietSimulator } from './simulator-helpers.ts';

let sim: SimulatorHandle;

beforeAll(async () => {
  ({ sim } = await quietSimulator());
});
afterAll(async () => {
  await sim.close();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function allPages(query: string, limit: number): Promise<Json[]> {
  const events: Json[] = [];
  let cursor: string | null = null;
  do {
    const qs: string = `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await api(sim, 'GET', `/api/v1/events?${qs}`);
    expect(res.status).toBe(200);
    expect(res.json.events.length).toBeLessThanOrEqual(limit);
    expect(res.json.pagination.limit).toBe(limit);
    events.push(...res.json.events);
    cursor = res.json.pagination.next_cursor;
  } while (cursor);
  return events;
}

const BUCKETS = ['LIVE', 'ACTIVE', 'ENDED', 'PROPOSED', 'DISPUTED', 'CLOSED'];
const bucketOf = (e: Json): number => BUCKETS.indexOf(e.state === 'DRAFT' ? 'ACTIVE' : e.state);

describe('events list', () => {
  it('pages through every listed event exactly once, in lifecycle buckets, for each sort', async () => {
    const listed = sim.venue.catalogue.events.filter((e) => e.archivedAtMs === undefined);
    for (const sort of ['', 'time', 'volume', 'markets']) {
      const events = await allPages(sort ? `sort=${sort}` : 'x=1', 7);
      const ids = events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(listed.map((e) => e.id).sort());
      const buckets = events.map(bucketOf);
      expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
      if (sort === 'volume') {
        for (let i = 1; i < events.length; i++) {
          if (bucketOf(events[i - 1] as Json) === bucketOf(events[i] as Json)) {
            expect(BigInt(events[i - 1]?.volume_micro)).toBeGreaterThanOrEqual(BigInt(events[i]?.volume_micro));
          }
        }
      }
    }
  });

  it('refuses a cursor used with other filters, and a cursor it never issued', async () => {
    const first = await api(sim, 'GET', '/api/v1/events?limit=5&sort=volume');
    const cursor = encodeURIComponent(first.json.pagination.next_cursor);
    const other = await api(sim, 'GET', `/api/v1/events?limit=5&sort=time&cursor=${cursor}`);
    expect(other.status).toBe(422);
    expect(other.json).toMatchObject({
      code: 'validation_failed',
      field_errors: [{ path: ['cursor'], code: 'cursor_fingerprint_mismatch' }],
    });
    const same = await api(sim, 'GET', `/api/v1/events?limit=9&sort=volume&cursor=${cursor}`);
    expect(same.status).toBe(200);
    const forged = await api(sim, 'GET', '/api/v1/events?cursor=not-a-cursor');
    expect(forged.json.field_errors[0].code).toBe('invalid_cursor');
  });

  it('enforces limit bounds and enumerated values with 422 and field errors', async () => {
    for (const qs of [
      'limit=0',
      'limit=101',
      'sort=random',
      'resolution=maybe',
      'event_type_bucket=x',
      'exclude_ended=yes',
      'source=OTHER',
      'filter=unknown',
    ]) {
      const res = await api(sim, 'GET', `/api/v1/events?${qs}`);
      expect(res.status, qs).toBe(422);
      expect(res.json.field_errors[0].path).toEqual([qs.split('=')[0]]);
    }
    expect((await api(sim, 'GET', '/api/v1/events')).json.events).toHaveLength(20);
    expect((await api(sim, 'GET', '/api/v1/events?limit=100')).json.pagination.limit).toBe(100);
  });

  it('filters by category with descendants, and by root where a slug stands in two trees', async () => {
    const soccer = await allPages('category=soccer', 50);
    expect(soccer.length).toBeGreaterThan(0);
    expect(soccer.every((e) => ['premier-league', 'la-liga'].includes(e.primary_category.slug))).toBe(true);
    const sportsFutures = await allPages('category=futures&root=sports', 50);
    const cryptoFutures = await allPages('category=futures&root=crypto', 50);
    const anyFutures = await allPages('category=futures', 50);
    expect(sportsFutures.length).toBeGreaterThan(0);
    expect(cryptoFutures.length).toBeGreaterThan(0);
    expect(anyFutures.length).toBe(sportsFutures.length + cryptoFutures.length);
    expect((await api(sim, 'GET', '/api/v1/events?category=nope')).json.code).toBe('category_not_found');
  });

  it('filters by type bucket, resolution and exclude_ended', async () => {
    expect((await allPages('event_type_bucket=games', 50)).every((e) => e.event_type === 'GAME')).toBe(true);
    const props = await allPages('event_type_bucket=props', 50);
    expect(new Set(props.map((e) => e.event_type))).toEqual(
      new Set(['PROPOSITION', 'RECURRING_PROPOSITION', 'MULTI_OUTCOME']),
    );
    const resolved = await allPages('resolution=resolved', 50);
    expect(resolved.length).toBeGreaterThan(0);
    expect(resolved.every((e) => ['RESOLVED', 'VOID'].includes(e.resolution_status))).toBe(true);
    expect((await allPages('resolution=disputed', 50)).every((e) => e.resolution_status === 'DISPUTED')).toBe(true);
    const open = await allPages('exclude_ended=true', 50);
    expect(open.every((e) => ['LIVE', 'ACTIVE', 'DRAFT'].includes(e.state))).toBe(true);
    expect(open.some((e) => e.event_type === 'RECURRING_PROPOSITION')).toBe(true);
    expect((await allPages('source=SERVICE', 50)).length).toBe((await allPages('x=1', 50)).length);
  });

  it('gives live sports as leaf-category sections without pagination', async () => {
    const res = await api(sim, 'GET', '/api/v1/events?filter=sports_live');
    expect(res.status).toBe(200);
    expect(res.json.pagination).toBeUndefined();
    expect(res.json.events.length).toBeGreaterThan(0);
    expect(res.json.events.every((e: Json) => e.is_live && e.event_type === 'GAME')).toBe(true);
    const sectionIds = res.json.sections.flatMap((s: Json) => s.event_ids);
    expect(sectionIds.sort()).toEqual(res.json.events.map((e: Json) => e.id).sort());
    for (const s of res.json.sections)
      expect(sim.venue.catalogue.tree.findBySlug(s.category.slug)[0]?.isLeaf).toBe(true);
  });

  it('adds lean listing markets to non-GAME events on request', async () => {
    const events = await allPages('include_markets=true&event_type_bucket=props', 50);
    const multi = events.find((e) => e.event_type === 'MULTI_OUTCOME');
    expect(multi?.listing_markets).toHaveLength(2);
    expect(events.find((e) => e.event_type === 'PROPOSITION')?.listing_markets).toHaveLength(1);
    const games = await allPages('include_markets=true&event_type_bucket=games', 50);
    expect(games.every((e) => e.listing_markets === undefined)).toBe(true);
  });
});

describe('event detail', () => {
  it('resolves any slug of a group to the root, and 404s archived events', async () => {
    const recurring = sim.venue.catalogue.events.find((e) => e.eventType === 'RECURRING_PROPOSITION');
    const child = recurring?.childSlugs[3] ?? '';
    const res = await api(sim, 'GET', `/api/v1/events/${child}`);
    expect(res.status).toBe(200);
    expect(res.json.slug).toBe(recurring?.slug);
    expect((await api(sim, 'GET', `/api/v1/events/${child}/resolve`)).json.url).toMatch(
      new RegExp(`^/crypto/bitcoin/${recurring?.slug}$`),
    );
    const archived = sim.venue.catalogue.events.find((e) => e.archivedAtMs !== undefined);
    const gone = await api(sim, 'GET', `/api/v1/events/${archived?.slug}`);
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe('event_not_found');
    expect(gone.json.request_id).toBe(gone.headers.get('x-request-id'));
  });

  it('shows a recurring event as the live cycle plus 50 unsettled, 49 upcoming and 50 settled cycles', async () => {
    const recurring = sim.venue.catalogue.events.find((e) => e.eventType === 'RECURRING_PROPOSITION');
    const markets = (await api(sim, 'GET', `/api/v1/events/${recurring?.slug}`)).json.markets as Json[];
    // The window by the venue's own states (on the wire, the live cycle reads DRAFT and some states are named
    // otherwise).
    const count = (state: string): number =>
      markets.filter((m) => sim.venue.catalogue.marketById(m.id as string)?.state === state).length;
    expect(count('ACTIVE')).toBe(1);
    expect(markets.filter((m) => m.is_accepting_orders).map((m) => m.state)).toEqual(['DRAFT']);
    expect(count('CLOSED')).toBe(50);
    expect(count('PROVISIONED') + count('DRAFT')).toBe(49);
    expect(count('PROVISIONED')).toBe(1);
    expect(count('RESOLVED')).toBe(50);
  });

  it('gives a game its teams, score, three-way group, spreads, totals and tabs', async () => {
    const game = sim.venue.catalogue.events.find((e) => e.game?.hasThreeWay && e.archivedAtMs === undefined);
    const d = (await api(sim, 'GET', `/api/v1/events/${game?.slug}`)).json;
    expect(d).toMatchObject({
      event_type: 'GAME',
      sport_group: 'soccer',
      display: { team_a: { name: game?.game?.teamA.name }, has_three_way_markets: true },
    });
    expect(d.main_market_group.markets.map((m: Json) => m.three_way_role)).toEqual(['home', 'draw', 'away']);
    expect(d.featured_spread_markets.length).toBeGreaterThan(0);
    expect(d.featured_totals_market.source_market_type).toBe('total');
    expect(d.market_tabs[0].sections.map((s: Json) => s.key)).toEqual(['main', 'spreads', 'totals']);
    expect(d.game_state.score.sport).toBe('soccer');
    expect(d.categories[0]).toMatchObject({
      root_slug: 'sports',
      path: [{ slug: 'sports' }, { slug: 'soccer' }, expect.anything()],
    });
    const market = d.markets[0];
    expect(market).toMatchObject({
      exchange: 'SERVICE',
      display_type: 'BINARY',
      engine_config: { tick_size: 1, size_scale: 100, min_price: 1 },
    });
    expect(market.outcomes).toHaveLength(2);
    expect(market.outcomes[0].token_id).toMatch(/^\d{77}$/);
    const tennis = sim.venue.catalogue.events.find(
      (e) => e.game?.sport === 'tennis' && e.game.sets.some((s) => s.tiebreak),
    );
    expect(tennis).toBeDefined();
    const t = (await api(sim, 'GET', `/api/v1/events/${tennis?.slug}`)).json;
    expect(t.game_state.score.sets.some((s: Json) => s.tiebreak)).toBe(true);
  });

  it('serves category metadata and the category tree', async () => {
    const c = (await api(sim, 'GET', '/categories/soccer')).json;
    expect(c).toMatchObject({
      slug: 'soccer',
      root_slug: 'sports',
      is_root: false,
      children: [{ slug: 'premier-league' }, { slug: 'la-liga' }],
    });
    expect((await api(sim, 'GET', '/categories/futures?root=crypto')).json).toMatchObject({
      root_slug: 'crypto',
      also_in_roots: ['sports'],
    });
    expect((await api(sim, 'GET', '/categories/nowhere')).status).toBe(404);
    const tree = (await api(sim, 'GET', '/api/v1/categories')).json.categories;
    expect(tree.map((r: Json) => r.slug)).toEqual(['sports', 'politics', 'crypto', 'economics']);
  });
});

describe('seeded catalogue', () => {
  it('is the same for the same seed and start time, and differs for another seed', () => {
    const a = generateCatalogue(5, 1_700_000_000_000);
    const b = generateCatalogue(5, 1_700_000_000_000);
    const c = generateCatalogue(6, 1_700_000_000_000);
    const ids = (g: typeof a): string[] => g.markets.map((m) => `${m.id}:${m.outcomes[0].tokenId}`);
    expect(ids(a)).toEqual(ids(b));
    expect(ids(c)).not.toEqual(ids(a));
    expect(new Set(a.events.map((e) => e.eventType))).toEqual(
      new Set(['GAME', 'PROPOSITION', 'RECURRING_PROPOSITION', 'MULTI_OUTCOME']),
    );
  });
});
