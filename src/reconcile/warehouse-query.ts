import type { ClickHouseClient } from '@clickhouse/client';

/**
 * Reads for the reconciler. Money columns are selected as strings (`toString`) and times as epoch
 * milliseconds, so nothing depends on how a client or endpoint quotes 64-bit integers.
 */

export type QueryParams = Record<string, string | number | readonly string[]>;

export async function selectObjects<T>(
  client: ClickHouseClient,
  query: string,
  params: QueryParams = {},
): Promise<T[]> {
  const result = await client.query({ query, query_params: params, format: 'JSONEachRow' });
  return result.json<T>();
}

/**
 * Rows as arrays of cells (strings), in the order of the SELECT list. TabSeparated text split by
 * hand: several times faster than JSON rows through the client's row stream. Cells are unescaped
 * as TabSeparated escapes them; NULL is `\N`.
 */
export async function selectCells(
  client: ClickHouseClient,
  query: string,
  params: QueryParams,
  onRow: (cells: string[]) => void,
): Promise<void> {
  const result = await client.query({ query, query_params: params, format: 'TabSeparated' });
  const text = await result.text();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    onRow(line.includes('\\') ? line.split('\t').map(unescapeCell) : line.split('\t'));
    start = end + 1;
  }
}

const ESCAPES: Record<string, string> = {
  t: '\t',
  n: '\n',
  r: '\r',
  '\\': '\\',
  "'": "'",
  b: '\b',
  f: '\f',
  '0': '\0',
};

function unescapeCell(cell: string): string {
  return cell.replace(/\\(.)/g, (_m, c: string) => ESCAPES[c] ?? c);
}

/** A time parameter: `{name:Int64}` epoch ms compared as `fromUnixTimestamp64Milli(...)`. */
export function atOrBefore(column: string, param: string): string {
  return `${column} <= fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
}

export function atOrAfter(column: string, param: string): string {
  return `${column} >= fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
}

/** Epoch ms of a `toUnixTimestamp64Milli` cell (a number, or a string when 64-bit integers are quoted). */
export function msOf(cell: unknown): number {
  return Number(cell);
}

/** A `toString` money cell; a NULL stays undefined. */
export function microOf(cell: unknown): bigint | undefined {
  return cell === null || cell === undefined || cell === '' ? undefined : BigInt(cell as string);
}

/** A money cell that is never NULL. */
export function requiredMicro(cell: unknown, what: string): bigint {
  const value = microOf(cell);
  if (value === undefined) throw new Error(`${what} is missing`);
  return value;
}

/**
 * The fields of a raw JSON payload (a frame's or an item's `_raw`): the frame's `data` when the raw
 * is a whole frame, else the object itself; `{}` when it is not JSON.
 */
export function rawPayload(raw: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return {};
    const data = (parsed as { data?: unknown }).data;
    return typeof data === 'object' && data !== null
      ? { ...(parsed as object), ...data }
      : (parsed as Record<string, unknown>);
  } catch {
    return {};
  }
}

/** A `_micro` field of a raw payload: a decimal string, or a JSON integer small enough to be exact. */
export function payloadMicro(payload: Record<string, unknown>, field: string): bigint | undefined {
  const value = payload[field];
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return undefined;
}

/** An ISO 8601 time field of a raw payload, as epoch ms. */
export function payloadTimeMs(payload: Record<string, unknown>, field: string): number | undefined {
  const value = payload[field];
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}
