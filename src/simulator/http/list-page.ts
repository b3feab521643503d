import type { RequestContext } from './context.ts';
import { decodeCursor, keysetPage, type SortKey } from './cursor.ts';

/**
 * One page of a cursor-paged list as the venue serves it: keyset order, the cursor checked
 * against the filters' fingerprint, and the cases of `InterfaceCases` drawn per page — a page
 * cut short with its cursor still given, and (a fault) the page's own cursor handed back.
 */
export function listPage<T>(
  ctx: RequestContext,
  items: T[],
  keyOf: (item: T) => SortKey,
  cursor: string | undefined,
  limit: number,
  print: string,
): { page: T[]; nextCursor: string | null } {
  const after = decodeCursor(cursor, print);
  const { cases, restRng } = ctx.venue;
  const short =
    cases.shortPageShare > 0 && restRng.chance(cases.shortPageShare) ? restRng.int(0, limit - 1) : undefined;
  const path = ctx.req.url?.split('?')[0] ?? '';
  const repeat =
    cursor !== undefined &&
    ((ctx.faults?.repeatCursor(path, ctx.nowMs) ?? false) ||
      (cases.repeatCursorShare > 0 && restRng.chance(cases.repeatCursorShare)));
  return keysetPage(items, keyOf, after, limit, print, { short, repeat, cursor });
}
