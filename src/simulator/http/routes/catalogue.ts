import type { SimEvent } from '../../catalogue/types.ts';
import { Rejection } from '../../problems.ts';
import type { RequestContext, Reply, RouteSpec } from '../context.ts';
import { fingerprint } from '../cursor.ts';
import { listPage } from '../list-page.ts';
import { ListingIndex, matchingEvents, sortKeyOf, type EventsFilter } from '../events-query.ts';
import { QueryReader } from '../query.ts';
import { renderEventDetail, renderEventListItem } from '../../wire/render/event.ts';

const indexes = new WeakMap<object, ListingIndex>();

function listingIndex(ctx: RequestContext): ListingIndex {
  let index = indexes.get(ctx.venue);
  if (!index) {
    index = new ListingIndex(ctx.venue, ctx.deployment.listingRefreshMs);
    indexes.set(ctx.venue, index);
  }
  return index;
}

function readFilter(q: QueryReader): EventsFilter {
  return {
    category: q.string('category'),
    root: q.string('root'),
    eventTypeBucket: q.oneOf('event_type_bucket', ['games', 'props'] as const),
    filter: q.oneOf('filter', ['sports_live', 'sports_futures'] as const),
    source: q.oneOf('source', ['SERVICE'] as const),
    excludeEnded: q.bool('exclude_ended', false),
    resolution: q.oneOf('resolution', ['all', 'active', 'proposed', 'disputed', 'resolved'] as const),
    sort: q.oneOf('sort', ['time', 'volume', 'markets'] as const),
  };
}

function listEvents(ctx: RequestContext): Reply {
  const q = new QueryReader(ctx.query);
  const filter = readFilter(q);
  const limit = q.int('limit', { min: 1, max: 100, fallback: 20 });
  const includeMarkets = q.bool('include_markets', false);
  q.done();
  const events = matchingEvents(ctx.venue, filter);
  const index = listingIndex(ctx);
  const render = (e: SimEvent): Record<string, unknown> => renderEventListItem(ctx.venue, e, includeMarkets);

  if (filter.filter === 'sports_live') {
    // Sections by leaf category, every live event at once: no pagination.
    const ordered = [...events].sort((a, b) => a.startMs - b.startMs || a.ordinal - b.ordinal);
    const sections = new Map<string, { category: { slug: string; label: string }; event_ids: string[] }>();
    for (const e of ordered) {
      const leaf = ctx.venue.catalogue.tree.get(e.categoryKeys[0] ?? '');
      const section = sections.get(leaf.key) ?? { category: { slug: leaf.slug, label: leaf.label }, event_ids: [] };
      section.event_ids.push(e.id);
      sections.set(leaf.key, section);
    }
    return { status: 200, body: { events: ordered.map(render), sections: [...sections.values()] } };
  }

  const print = fingerprint({ ...filter, includeMarkets });
  const { page, nextCursor } = listPage(
    ctx,
    events,
    (e) => sortKeyOf(e, filter.sort, index, ctx.nowMs),
    q.string('cursor'),
    limit,
    print,
  );
  return {
    status: 200,
    body: { events: page.map(render), pagination: { next_cursor: nextCursor, limit }, sections: [] },
  };
}

function groupRoot(ctx: RequestContext): SimEvent {
  const slug = ctx.params.slug ?? '';
  const event = ctx.venue.catalogue.groupRootBySlug(slug);
  if (!event || event.archivedAtMs !== undefined) throw new Rejection('event_not_found', `No event ${slug}.`);
  return event;
}

function eventDetail(ctx: RequestContext): Reply {
  return { status: 200, body: renderEventDetail(ctx.venue, groupRoot(ctx)) };
}

/** Slug resolution: the category-rooted URL of the group root. */
function resolveSlug(ctx: RequestContext): Reply {
  const event = groupRoot(ctx);
  const leaf = ctx.venue.catalogue.tree.get(event.categoryKeys[0] ?? '');
  return {
    status: 200,
    body: {
      slug: event.slug,
      requested_slug: ctx.params.slug,
      url: `/${leaf.path.map((p) => p.slug).join('/')}/${event.slug}`,
    },
  };
}

function categoryDetail(ctx: RequestContext): Reply {
  const q = new QueryReader(ctx.query);
  const root = q.string('root');
  q.done();
  const tree = ctx.venue.catalogue.tree;
  const found = tree.findBySlug(ctx.params.slug ?? '', root);
  const category = found[0];
  if (!category) throw new Rejection('category_not_found', `No category ${ctx.params.slug}.`);
  const parent = category.parentKey ? tree.get(category.parentKey) : undefined;
  const eventCount = ctx.venue.catalogue.events.filter(
    (e) => e.archivedAtMs === undefined && e.categoryKeys.some((k) => tree.isWithin(k, category.key)),
  ).length;
  return {
    status: 200,
    body: {
      slug: category.slug,
      label: category.label,
      root_slug: category.rootSlug,
      is_root: parent === undefined,
      is_leaf: category.isLeaf,
      parent: parent ? { slug: parent.slug, label: parent.label } : undefined,
      path: category.path,
      children: tree.children(category.key).map((c) => ({ slug: c.slug, label: c.label })),
      also_in_roots: tree
        .findBySlug(category.slug)
        .filter((c) => c.key !== category.key)
        .map((c) => c.rootSlug),
      event_count: eventCount,
    },
  };
}

function categoryTree(ctx: RequestContext): Reply {
  const tree = ctx.venue.catalogue.tree;
  const node = (key: string): Record<string, unknown> => {
    const c = tree.get(key);
    return {
      slug: c.slug,
      label: c.label,
      root_slug: c.rootSlug,
      children: tree.children(key).map((child) => node(child.key)),
    };
  };
  return { status: 200, body: { categories: tree.roots().map((r) => node(r.key)) } };
}

export const catalogueRoutes: RouteSpec[] = [
  { method: 'GET', path: '/api/v1/events', auth: 'none', handler: listEvents },
  { method: 'GET', path: '/api/v1/events/:slug', auth: 'none', handler: eventDetail },
  { method: 'GET', path: '/api/v1/events/:slug/resolve', auth: 'none', handler: resolveSlug },
  { method: 'GET', path: '/api/v1/categories', auth: 'none', handler: categoryTree },
  { method: 'GET', path: '/categories/:slug', auth: 'none', handler: categoryDetail },
];
