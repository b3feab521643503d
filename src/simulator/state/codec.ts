/**
 * JSON for a saved venue: plain data (no class instances), money as bigint. Three encodings keep
 * it exact and small (a venue holds tens of thousands of orders, fills and activities, each naming
 * the same few long token, condition and account ids):
 * - a bigint is a string tagged with U+0001;
 * - a string of 24 characters or more is written once, in `strings`, and referred to as U+0002
 *   and its index;
 * - an array of plain objects is a table: `{"$table": [keys], "rows": [[values]]}`, a key an object
 *   does not have being `null` in its row (the venue's data holds no null).
 * No name, label or id of the venue holds U+0001 or U+0002, so every string comes back as it was.
 */
const BIGINT_TAG = '\u0001';
const STRING_TAG = '\u0002';
const TABLE = '$table';
const MIN_INTERNED = 24;
const MIN_TABLE_ROWS = 8;

export interface EncodedState {
  /** The strings referred to. */
  strings: string[];
  /** The value as JSON. */
  json: string;
}

export function encodeState(value: unknown): EncodedState {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const json = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return `${BIGINT_TAG}${v}`;
    if (typeof v === 'string') {
      if (v.length < MIN_INTERNED) return v;
      let at = index.get(v);
      if (at === undefined) {
        at = strings.push(v) - 1;
        index.set(v, at);
      }
      return `${STRING_TAG}${at}`;
    }
    if (Array.isArray(v) && v.length >= MIN_TABLE_ROWS) return asTable(v) ?? v;
    return v;
  });
  return { strings, json };
}

/** The value of `encodeState`'s JSON, parsed, with its strings. */
export function decodeState(value: unknown, strings: readonly string[]): unknown {
  if (typeof value === 'string') {
    if (value.startsWith(BIGINT_TAG)) return BigInt(value.slice(1));
    if (value.startsWith(STRING_TAG)) {
      const text = strings[Number(value.slice(1))];
      if (text === undefined) throw new Error(`a reference to string ${value.slice(1)}, of ${strings.length}`);
      return text;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => decodeState(v, strings));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record[TABLE]) && Array.isArray(record.rows)) {
    const keys = record[TABLE] as string[];
    return (record.rows as unknown[][]).map((row) => {
      const item: Record<string, unknown> = {};
      keys.forEach((key, i) => {
        if (row[i] !== null) item[key] = decodeState(row[i], strings);
      });
      return item;
    });
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(record)) out[key] = decodeState(v, strings);
  return out;
}

/** An array of plain objects without nulls as a table; undefined for anything else. */
function asTable(items: unknown[]): { [TABLE]: string[]; rows: unknown[][] } | undefined {
  const keys = new Map<string, number>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Object.getPrototypeOf(item) !== Object.prototype) return undefined;
    for (const [key, v] of Object.entries(item)) {
      if (v === null) return undefined;
      if (!keys.has(key)) keys.set(key, keys.size);
    }
  }
  const rows = items.map((item) => {
    const row = new Array<unknown>(keys.size).fill(null);
    for (const [key, v] of Object.entries(item as Record<string, unknown>)) if (v !== undefined) row[keys.get(key)!] = v;
    return row;
  });
  return { [TABLE]: [...keys.keys()], rows };
}
