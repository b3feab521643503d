import type { LookupCondition, LookupEvent, LookupMarket } from '../api/schemas/lookups.ts';
import type { Wire } from './json.ts';
import { loose, requiredScalar, requiredObject } from './schema.ts';

/** The lookup maps a list page carries (§2.5): markets and events on order, trade and activity pages, conditions on
 * activity pages. */
export type LookupMapName = 'markets' | 'events' | 'conditions';

/** What a `lookup` record is made from: one entry of a page's lookup map, as the client parsed it, with where it was
 * read. */
export interface LookupSource {
  /** The sync list whose page carried it: `open-orders`, `orders`, `portfolio-trades`, `activities`. */
  list: string;
  map: LookupMapName;
  /** The entry's key in the map (market key, event key or condition id). */
  key: string;
  entry: LookupMarket | LookupEvent | LookupCondition;
}

/**
 * `lookup` — sync.lookups, key the account; stored in `lookups` (one row per observed entry,
 * `lookups_latest` the newest per map and key). Made by the account-list jobs from the
 * `markets{}`, `events{}` and `conditions{}` maps of their pages; a changed entry is a new
 * observation (its content tells them apart), an unchanged one is not published again. `raw` holds
 * the entry's JSON as received.
 */
export type LookupPayload = Wire<LookupSource>;

/** A `lookup` payload at the bus boundary: the entry (an object), its map and key. */
export const lookupSchema = loose({ entry: requiredObject, map: requiredScalar, key: requiredScalar });
