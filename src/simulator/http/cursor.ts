import { createHash } from 'node:crypto';
import { validationFailed } from '../problems.ts';

/** A keyset position: the sort key of the last item served. Bigints travel as strings tagged "n:". */
export type KeyPart = bigint | string;
export type SortKey = KeyPart[];

/** Hash of the filters a cursor was made under; paging with different filters is refused. */
export function fingerprint(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(filters)
      .sort()
      .map((k) => [k, filters[k] ?? null]),
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** `turn` tells apart two cursors at one key (a page cut short to nothing still hands out a new cursor). */
export function encodeCursor(key: SortKey, print: string, turn = 0): string {
  const parts = key.map((p) => (typeof p === 'bigint' ? `n:${p}` : `s:${p}`));
  return Buffer.from(JSON.stringify(turn === 0 ? { k: parts, f: print } : { k: parts, f: print, t: turn })).toString(
    'base64url',
  );
}

function turnOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const t = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown }).t;
    return typeof t === 'number' && Number.isSafeInteger(t) ? t : 0;
  } catch {
    return 0;
  }
}

/** The key after which the next page starts; 422 when the cursor is unreadable or from other filters. */
export function decodeCursor(cursor: string | undefined, print: string): SortKey | undefined {
  if (cursor === undefined) return undefined;
  let decoded: { k?: unknown; f?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown; f?: unknown };
  } catch {
    throw validationFailed([
      { path: ['cursor'], code: 'invalid_cursor', message: 'The cursor is not one this service issued.' },
    ]);
  }
  if (
    !Array.isArray(decoded.k) ||
    typeof decoded.f !== 'string' ||
    !decoded.k.every((p) => typeof p === 'string' && /^[ns]:/.test(p))
  ) {
    throw validationFailed([
      { path: ['cursor'], code: 'invalid_cursor', message: 'The cursor is not one this service issued.' },
    ]);
  }
  if (decoded.f !== print) {
    throw validationFailed([
      {
        path: ['cursor'],
        code: 'cursor_fingerprint_mismatch',
        message: 'Keep every filter identical while paging, or start again without a cursor.',
      },
    ]);
  }
  try {
    return (decoded.k as string[]).map((p) => (p.startsWith('n:') ? BigInt(p.slice(2)) : p.slice(2)));
  } catch {
    throw validationFailed([
      { path: ['cursor'], code: 'invalid_cursor', message: 'The cursor is not one this service issued.' },
    ]);
  }
}

export function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : 1;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/**
 * How a list page may differ from "exactly `limit` items, a cursor while more remain" — both
 * within what the interface allows (page sizes and their bounds are not shown), the second a venue
 * fault: `short` cuts a page that has a next page to fewer items (possibly none), the cursor still
 * given; `repeat` hands back the cursor the page was read at.
 */
export interface PageQuirks {
  /** Items this page keeps when it is cut short (below `limit`), or undefined for a full page. */
  short?: number;
  repeat?: boolean;
}

/** One page of items ordered by ascending key, strictly after `after`. */
export function keysetPage<T>(
  items: T[],
  keyOf: (item: T) => SortKey,
  after: SortKey | undefined,
  limit: number,
  print: string,
  quirks: PageQuirks & { cursor?: string } = {},
): { page: T[]; nextCursor: string | null } {
  const sorted = items.map((item) => ({ item, key: keyOf(item) })).sort((a, b) => compareKeys(a.key, b.key));
  const start = after === undefined ? 0 : sorted.findIndex((e) => compareKeys(e.key, after) > 0);
  const from = start < 0 ? sorted.length : start;
  const more = from + limit < sorted.length;
  const size = more && quirks.short !== undefined ? Math.min(quirks.short, limit - 1) : limit;
  const slice = sorted.slice(from, from + size);
  const last = slice.at(-1);
  // A page read at a cursor hands that cursor back, the last page too (a client following it would never end).
  if (quirks.repeat && quirks.cursor !== undefined)
    return { page: slice.map((e) => e.item), nextCursor: quirks.cursor };
  if (!more) return { page: slice.map((e) => e.item), nextCursor: null };
  // An empty page still moves on: the same position, a new cursor.
  return {
    page: slice.map((e) => e.item),
    nextCursor: last ? encodeCursor(last.key, print) : encodeCursor(after ?? [], print, turnOf(quirks.cursor) + 1),
  };
}
