import { createHash } from 'node:crypto';
import type { Fetched } from './caller.ts';
import type { Pagination } from './schemas/common.ts';

/**
 * Cursor paging, once for every reader of the venue: the client's page iterators and the sync
 * jobs' passes (which resume from a saved cursor) both follow `next_cursor` through a
 * `CursorTrail`, which ends the list on a missing, null or empty cursor and refuses a cursor
 * handed out before. A page shorter than asked (even empty) that still carries a cursor is not
 * the end: only the cursor says so.
 */

/** The venue handed back a cursor it had already given: following it would loop forever. */
export class CursorLoopError extends Error {
  constructor(
    /** The paged read, as `endpointName` writes it (`GET /trade/v1/portfolio/activities`). */
    readonly endpoint: string,
    readonly cursor: string,
  ) {
    super(
      `${endpoint}: cursor ${cursor.length > 40 ? `${cursor.slice(0, 40)}…` : cursor} handed out twice; paging stopped`,
    );
    this.name = 'CursorLoopError';
  }
}

/** The cursor of the next page, or undefined at the end of the list. */
export function nextCursorOf(pagination: Pagination | undefined): string | undefined {
  const next = pagination?.next_cursor;
  return next === undefined || next === null || next === '' ? undefined : next;
}

/** How many digests a saved trail keeps: a resumed pass catches a loop whose period is up to this many pages. */
export const SAVED_TRAIL_LENGTH = 1_000;

const digest = (cursor: string): string => createHash('sha256').update(cursor).digest('base64url').slice(0, 12);

/** Loops refused since the process started, per endpoint: the pipeline's metric of them. */
const loopsRefused = new Map<string, number>();

export function cursorLoopsRefused(): Record<string, number> {
  return Object.fromEntries(loopsRefused);
}

/**
 * The cursors one paged read was handed. In memory it remembers all of them; `saved()` gives the
 * last `SAVED_TRAIL_LENGTH` as short digests (plain strings), so a pass saved in a checkpoint and
 * resumed elsewhere (the next slice of a Temporal workflow) still knows where it has been.
 */
export class CursorTrail {
  readonly #seen = new Set<string>();
  readonly #order: string[] = [];

  constructor(
    readonly endpoint: string,
    saved: readonly string[] = [],
  ) {
    for (const d of saved) this.#note(d);
  }

  /** The cursor to follow after `pagination`, or undefined when the list ends; CursorLoopError on a repeat. */
  follow(pagination: Pagination | undefined): string | undefined {
    const next = nextCursorOf(pagination);
    if (next === undefined) return undefined;
    const d = digest(next);
    if (this.#seen.has(d)) {
      loopsRefused.set(this.endpoint, (loopsRefused.get(this.endpoint) ?? 0) + 1);
      throw new CursorLoopError(this.endpoint, next);
    }
    this.#note(d);
    return next;
  }

  /** The digests worth saving with a pass, oldest first. */
  saved(): string[] {
    return this.#order.slice(-SAVED_TRAIL_LENGTH);
  }

  #note(d: string): void {
    if (this.#seen.has(d)) return;
    this.#seen.add(d);
    this.#order.push(d);
  }
}

/**
 * Follows `next_cursor` from the first page to the last. `fetchPage` must send the same
 * parameters every time except the cursor: keyset cursors are bound to them (the events list
 * calls that set its fingerprint).
 */
export async function* followCursor<Page extends { pagination?: Pagination | undefined }>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<Fetched<Page>>,
): AsyncGenerator<Fetched<Page>, void, undefined> {
  const trail = new CursorTrail(endpoint);
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    cursor = trail.follow(page.value.pagination);
    if (cursor === undefined) return;
  }
}

/** A POST list body for one page: the fixed filters, plus the cursor after the first page. */
export function bodyWithCursor(
  filters: Readonly<Record<string, unknown>>,
  cursor: string | undefined,
): Readonly<Record<string, unknown>> {
  return cursor === undefined ? filters : { ...filters, cursor };
}

/** One item of a page: the parsed value and its own JSON as received. */
export interface PageItem<Item> {
  value: Item;
  raw: unknown;
}

/** One item of a page with its own raw JSON and its page, for callers that want records rather than pages. */
export interface PagedItem<Item, Page> extends PageItem<Item> {
  page: Fetched<Page>;
}

type ItemOf<List> = List extends readonly (infer Item)[] ? Item : never;

/** Flattens pages into their items (`key` is the page's array: `orders`, `activities`, `events`, `trades`). */
export async function* itemsOf<Page, Key extends keyof Page & string>(
  pages: AsyncIterable<Fetched<Page>>,
  key: Key,
): AsyncGenerator<PagedItem<ItemOf<Page[Key]>, Page>, void, undefined> {
  for await (const page of pages) {
    for (const item of pageItems(page, page.value[key] as readonly ItemOf<Page[Key]>[], key)) yield { ...item, page };
  }
}

/** A page's parsed items, each with its own JSON as received (the body's array `key`). */
export function pageItems<Item>(page: Fetched<unknown>, items: readonly Item[], key: string): Array<PageItem<Item>> {
  const raw = page.raw as Record<string, unknown> | null;
  const rawItems = typeof raw === 'object' && raw !== null && Array.isArray(raw[key]) ? (raw[key] as unknown[]) : [];
  return items.map((value, index) => ({ value, raw: rawItems[index] }));
}
