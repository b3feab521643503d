import type { Fetched } from './caller.ts';
import type { Pagination } from './schemas/common.ts';

/** The venue handed back a cursor it had already given: following it would loop forever. */
export class CursorLoopError extends Error {
  constructor(
    readonly endpoint: string,
    readonly cursor: string,
  ) {
    super(`${endpoint}: cursor repeated after ${cursor.length > 24 ? `${cursor.slice(0, 24)}…` : cursor}; paging stopped`);
    this.name = 'CursorLoopError';
  }
}

/**
 * Follows `next_cursor` from the first page to the last (a missing, null or empty cursor ends it).
 * `fetchPage` must send the same parameters every time except the cursor: keyset cursors are bound
 * to them (the events list calls that set its fingerprint).
 */
export async function* followCursor<Page extends { pagination?: Pagination | undefined }>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<Fetched<Page>>,
): AsyncGenerator<Fetched<Page>, void, undefined> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    const next = page.value.pagination?.next_cursor;
    if (next === undefined || next === '') return;
    if (seen.has(next)) throw new CursorLoopError(endpoint, next);
    seen.add(next);
    cursor = next;
  }
}

/** A POST list body for one page: the fixed filters, plus the cursor after the first page. */
export function bodyWithCursor(filters: Readonly<Record<string, unknown>>, cursor: string | undefined): Readonly<Record<string, unknown>> {
  return cursor === undefined ? filters : { ...filters, cursor };
}

/** One item of a page with its own raw JSON, for callers that want records rather than pages. */
export interface PagedItem<Item, Page> {
  value: Item;
  raw: unknown;
  page: Fetched<Page>;
}

type ItemOf<List> = List extends readonly (infer Item)[] ? Item : never;

/** Flattens pages into their items (`key` is the page's array: `orders`, `activities`, `events`, `trades`). */
export async function* itemsOf<Page, Key extends keyof Page>(
  pages: AsyncIterable<Fetched<Page>>,
  key: Key,
): AsyncGenerator<PagedItem<ItemOf<Page[Key]>, Page>, void, undefined> {
  for await (const page of pages) {
    const items = page.value[key] as readonly ItemOf<Page[Key]>[];
    const rawItems = rawArray(page.raw, key);
    for (const [index, value] of items.entries()) yield { value, raw: rawItems[index], page };
  }
}

function rawArray(raw: unknown, key: PropertyKey): readonly unknown[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const value = (raw as Record<PropertyKey, unknown>)[key];
  return Array.isArray(value) ? value : [];
}
