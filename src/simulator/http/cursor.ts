import { createHash } from 'node:crypto';
import { validationFailed } from '../problems.ts';

/** A keyset position: the sort key of the last item served. Bigints travel as strings tagged "n:". */
export type KeyPart = bigint | string;
export type SortKey = KeyPart[];

/** Hash of the filters a cursor was made under; paging with different filters is refused. */
export function fingerprint(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(filters).sort().map((k) => [k, filters[k] ?? null]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

export function encodeCursor(key: SortKey, print: string): string {
  const parts = key.map((p) => (typeof p === 'bigint' ? `n:${p}` : `s:${p}`));
  return Buffer.from(JSON.stringify({ k: parts, f: print })).toString('base64url');
}

/** The key after which the next page starts; 422 when the cursor is unreadable or from other filters. */
export function decodeCursor(cursor: string | undefined, print: string): SortKey | undefined {
  if (cursor === undefined) return undefined;
  let decoded: { k?: unknown; f?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown; f?: unknown };
  } catch {
    throw validationFailed([{ path: ['cursor'], code: 'invalid_cursor', message: 'The cursor is not one this service issued.' }]);
  }
  if (!Array.isArray(decoded.k) || typeof decoded.f !== 'string' || !decoded.k.every((p) => typeof p === 'string' && /^[ns]:/.test(p))) {
    throw validationFailed([{ path: ['cursor'], code: 'invalid_cursor', message: 'The cursor is not one this service issued.' }]);
  }
  if (decoded.f !== print) {
    throw validationFailed([{ path: ['cursor'], code: 'cursor_fingerprint_mismatch', message: 'Keep every filter identical while paging, or start again without a cursor.' }]);
  }
  try {
    return (decoded.k as string[]).map((p) => (p.startsWith('n:') ? BigInt(p.slice(2)) : p.slice(2)));
  } catch {
    throw validationFailed([{ path: ['cursor'], code: 'invalid_cursor', message: 'The cursor is not one this service issued.' }]);
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

/** One page of items ordered by ascending key, strictly after `after`. */
export function keysetPage<T>(items: T[], keyOf: (item: T) => SortKey, after: SortKey | undefined, limit: number, print: string): { page: T[]; nextCursor: string | null } {
  const sorted = items.map((item) => ({ item, key: keyOf(item) })).sort((a, b) => compareKeys(a.key, b.key));
  const start = after === undefined ? 0 : sorted.findIndex((e) => compareKeys(e.key, after) > 0);
  const from = start < 0 ? sorted.length : start;
  const slice = sorted.slice(from, from + limit);
  const last = slice.at(-1);
  const more = from + limit < sorted.length;
  return { page: slice.map((e) => e.item), nextCursor: more && last ? encodeCursor(last.key, print) : null };
}
