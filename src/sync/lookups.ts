import type { Fetched } from '../api/caller.ts';
import type { LookupCondition, LookupEvent, LookupMarket } from '../api/schemas/lookups.ts';
import type { BusRecord, LookupMapName } from '../records/index.ts';
import { syncRecord, type SyncOrigin } from './records.ts';

/** A list page that may carry lookup maps (§2.5). */
export interface LookupPage {
  as_of?: string | undefined;
  markets?: Readonly<Record<string, LookupMarket>> | undefined;
  events?: Readonly<Record<string, LookupEvent>> | undefined;
  conditions?: Readonly<Record<string, LookupCondition>> | undefined;
}

const MAPS: readonly LookupMapName[] = ['markets', 'events', 'conditions'];

/**
 * One `lookup` record per entry of the page's lookup maps, its raw JSON the entry as received.
 * Entries whose content was published before are left out by the run's commit (natural key:
 * map, key, content), so an unchanged market title costs nothing on the next pass.
 */
export function lookupRecords(
  list: string,
  page: Fetched<LookupPage>,
  account: string,
  origin: SyncOrigin,
): BusRecord[] {
  const records: BusRecord[] = [];
  const raw = (typeof page.raw === 'object' && page.raw !== null ? page.raw : {}) as Record<string, unknown>;
  for (const map of MAPS) {
    const entries = page.value[map];
    if (!entries) continue;
    const rawEntries = (typeof raw[map] === 'object' && raw[map] !== null ? raw[map] : {}) as Record<string, unknown>;
    for (const [key, entry] of Object.entries(entries)) {
      records.push(syncRecord('lookup', account, { list, map, key, entry }, rawEntries[key], page.value.as_of, origin));
    }
  }
  return records;
}
