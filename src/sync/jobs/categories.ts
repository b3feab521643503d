import { ENDPOINTS, endpointName } from '../../api/endpoints.ts';
import { NotFoundError } from '../../api/errors.ts';
import type { Category, EventsResponse } from '../../api/schemas/index.ts';
import type { BusRecord, Json } from '../../bus/record.ts';
import { runPass } from '../pass.ts';
import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/**
 * The category forest, with its history. The interface names one category read, GET
 * /categories/{slug} (no version prefix, shape not shown, §4.2 and §9.1), and no list of
 * categories: the slugs come from what it does show. The job pages GET /api/v1/events to its end
 * (public) for each event's `primary_category`, then reads every slug it knows — those, the ones
 * known from earlier passes (the job's state), and every slug an answer names (`root_slug`,
 * `path[]`, `parent`, `children[]`: read when present) — so the roots and inner nodes of every
 * tree an event sits in are reached. One `category` record per read, published again only when
 * its content changed (the rows of a slug are its history). A known slug answered 404
 * `category_not_found` is a `category` record with no answer (gone), and is not asked again.
 */
export async function syncCategories(run: JobRun): Promise<void> {
  const { deps } = run;
  const known = readKnown(run.checkpoint.state);
  const listed = new Set<string>(known);
  await runPass(run, {
    name: 'category-seeds',
    endpoint: endpointName(ENDPOINTS.events),
    key: 'events',
    items: (page: EventsResponse) => page.events,
    fetch: (cursor, signal) =>
      deps.venue.catalogue.catalogue.eventsPage({ limit: deps.tuning.pageSize.events }, cursor, signal),
    handle: async (items) => {
      for (const { value } of items) if (value.primary_category?.slug) listed.add(value.primary_category.slug);
      return { records: [], state: writeKnown(listed) };
    },
    finish: () => writeKnown(listed),
  });
  const queue = [...listed];
  const seen = new Set<string>(queue);
  const found = new Set<string>();
  const records: BusRecord[] = [];
  const origin = run.origin(undefined);
  while (queue.length > 0) {
    const slug = queue.shift() as string;
    let answer;
    try {
      answer = await deps.venue.catalogue.catalogue.category(slug, run.signal);
    } catch (error) {
      if (!(error instanceof NotFoundError) || error.code !== 'category_not_found') throw error;
      records.push(syncRecord('category', slug, { slug, answer: null }, undefined, undefined, origin));
      continue;
    }
    found.add(slug);
    records.push(syncRecord('category', slug, { slug, answer: answer.value }, answer.raw, undefined, origin));
    for (const named of namedSlugs(answer.value)) {
      if (seen.has(named)) continue;
      seen.add(named);
      queue.push(named);
    }
  }
  await run.commit(records, { pass: undefined, state: writeKnown(found) });
}

/** Every category slug an answer names: its root, its path, its parent and children (fields not shown by the interface,
 * read when present). */
function namedSlugs(category: Category): string[] {
  const c = category as Record<string, unknown>;
  const slugOf = (value: unknown): string | undefined =>
    typeof value === 'object' && value !== null && typeof (value as { slug?: unknown }).slug === 'string'
      ? (value as { slug: string }).slug
      : undefined;
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const slugs = [
    typeof c.root_slug === 'string' ? c.root_slug : undefined,
    slugOf(c.parent),
    ...list(c.path).map(slugOf),
    ...list(c.children).map(slugOf),
  ];
  return slugs.filter((slug): slug is string => slug !== undefined && slug !== '');
}

function readKnown(state: Json | undefined): string[] {
  const slugs = (state as { slugs?: unknown } | undefined)?.slugs;
  return Array.isArray(slugs) ? slugs.filter((slug): slug is string => typeof slug === 'string') : [];
}

function writeKnown(slugs: Iterable<string>): Json {
  return { slugs: [...slugs].sort() };
}
