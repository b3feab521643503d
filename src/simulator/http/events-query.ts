import { bucketRank, hasMarketLeftToTrade, lifecycleBucket } from '../catalogue/lifecycle.ts';
import type { Category, SimEvent } from '../catalogue/types.ts';
import { Rejection } from '../problems.ts';
import type { Venue } from '../venue.ts';
import type { SortKey } from './cursor.ts';

export interface EventsFilter {
  category: string | undefined;
  root: string | undefined;
  eventTypeBucket: 'games' | 'props' | undefined;
  filter: 'sports_live' | 'sports_futures' | undefined;
  source: 'SERVICE' | undefined;
  excludeEnded: boolean;
  resolution: 'all' | 'active' | 'proposed' | 'disputed' | 'resolved' | undefined;
  sort: 'time' | 'volume' | 'markets' | undefined;
}

/**
 * Sort values are read from a listing snapshot refreshed every `refreshMs`, like a search index:
 * a keyset over live volumes would reshuffle under a client paging through it.
 */
export class ListingIndex {
  #volumes = new Map<string, bigint>();
  #builtAtMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly venue: Venue,
    private readonly refreshMs: number,
  ) {}

  volumeOf(event: SimEvent, nowMs: number): bigint {
    if (nowMs - this.#builtAtMs >= this.refreshMs) {
      this.#volumes = new Map(this.venue.catalogue.events.map((e) => [e.id, this.venue.catalogue.eventVolumeMicro(e)]));
      this.#builtAtMs = nowMs;
    }
    return this.#volumes.get(event.id) ?? 0n;
  }
}

/** Categories a `category` (+ `root`) pair selects; 404 category_not_found when none. */
export function selectedCategories(
  venue: Venue,
  slug: string | undefined,
  root: string | undefined,
): Category[] | undefined {
  const tree = venue.catalogue.tree;
  if (root !== undefined && tree.findBySlug(root).every((c) => c.parentKey !== undefined)) {
    throw new Rejection('category_not_found', `No root category ${root}.`);
  }
  if (slug === undefined)
    return root === undefined ? undefined : tree.findBySlug(root).filter((c) => c.parentKey === undefined);
  const found = tree.findBySlug(slug, root);
  if (found.length === 0)
    throw new Rejection('category_not_found', `No category ${slug}${root ? ` under ${root}` : ''}.`);
  return found;
}

export function matchingEvents(venue: Venue, f: EventsFilter): SimEvent[] {
  const { catalogue } = venue;
  const categories = selectedCategories(venue, f.category, f.root);
  return catalogue.events.filter((event) => {
    if (event.archivedAtMs !== undefined) return false;
    if (categories && !event.categoryKeys.some((k) => categories.some((c) => catalogue.tree.isWithin(k, c.key))))
      return false;
    if (f.eventTypeBucket === 'games' && event.eventType !== 'GAME') return false;
    if (f.eventTypeBucket === 'props' && event.eventType === 'GAME') return false;
    const sports = event.categoryKeys.some((k) => k.startsWith('sports'));
    if (f.filter === 'sports_live' && !(sports && event.isLive)) return false;
    if (f.filter === 'sports_futures' && !(sports && event.eventType !== 'GAME')) return false;
    if (f.excludeEnded && !hasMarketLeftToTrade(catalogue, event)) return false;
    if (f.resolution && f.resolution !== 'all') {
      const status = event.resolutionStatus;
      const wanted =
        f.resolution === 'resolved'
          ? status === 'RESOLVED' || status === 'VOID'
          : status === f.resolution.toUpperCase();
      if (!wanted) return false;
    }
    return true;
  });
}

/**
 * Keyset sort key: lifecycle bucket, then the chosen order (all descending), then id.
 * The default orders live and open events soonest first and ended ones most recent first.
 */
export function sortKeyOf(event: SimEvent, sort: EventsFilter['sort'], index: ListingIndex, nowMs: number): SortKey {
  const rank = BigInt(bucketRank(event));
  let primary: bigint;
  switch (sort) {
    case 'time':
      primary = -BigInt(event.startMs);
      break;
    case 'volume':
      primary = -index.volumeOf(event, nowMs);
      break;
    case 'markets':
      primary = -BigInt(event.marketIds.length);
      break;
    default: {
      const bucket = lifecycleBucket(event);
      primary = bucket === 'LIVE' || bucket === 'ACTIVE' ? BigInt(event.startMs) : -BigInt(event.endMs);
    }
  }
  return [rank, primary, event.id];
}
