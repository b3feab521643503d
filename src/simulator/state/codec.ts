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
 *
 * The encoder writes its text in pieces of about a megabyte, never the whole as one string (16 MB
 * at rate 20, made every 10 s, kept the venue ~30 MiB more resident); the rows of large tables go
 * through JSON.stringify a thousand at a time.
 */
const BIGINT_TAG = '\u0001';
const STRING_TAG = '\u0002';
const TABLE = '$table';
const MIN_INTERNED = 24;
const MIN_TABLE_ROWS = 8;
const PIECE = 1 << 20;
const BATCH_ROWS = 1_000;

/** Writes `value` as JSON through `write`, piece by piece; returns the strings it referred to. */
export function encodeState(value: unknown, write: (text: string) => void): string[] {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const replacer = (_key: string, v: unknown): unknown => {
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
    if (Array.isArray(v) && v.length >= MIN_TABLE_ROWS) {
      const keys = tableKeys(v);
      if (keys) return { [TABLE]: keys, rows: v.map((item) => rowOf(item, keys)) };
    }
    return v;
  };
  let parts: string[] = [];
  let size = 0;
  const put = (text: string): void => {
    parts.push(text);
    size += text.length;
    if (size < PIECE) return;
    write(parts.join(''));
    parts = [];
    size = 0;
  };
  // Everything but the few large arrays goes through JSON.stringify at once; their rows a batch at a time.
  const emit = (v: unknown): void => {
    if (!large(v)) return put(JSON.stringify(v, replacer) ?? 'null');
    if (Array.isArray(v)) {
      const keys = tableKeys(v);
      if (!keys) {
        put('[');
        v.forEach((item, i) => {
          if (i > 0) put(',');
          emit(item);
        });
        return put(']');
      }
      put(`{"${TABLE}":${JSON.stringify(keys)},"rows":[`);
      for (let i = 0; i < v.length; i += BATCH_ROWS) {
        const rows = JSON.stringify(
          v.slice(i, i + BATCH_ROWS).map((item) => rowOf(item, keys)),
          replacer,
        );
        put(`${i > 0 ? ',' : ''}${rows.slice(1, -1)}`);
      }
      return put(']}');
    }
    put('{');
    let first = true;
    for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
      if (item === undefined || typeof item === 'function') continue;
      put(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      emit(item);
    }
    put('}');
  };
  emit(value);
  if (parts.length > 0) write(parts.join(''));
  return strings;
}

/** Whether a value holds an array long enough to be written in batches. */
function large(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return v.length >= BATCH_ROWS || v.some(large);
  return Object.values(v).some(large);
}

/** A table's row: the object's values in the columns' order, `null` where it has none. */
function rowOf(item: unknown, keys: readonly string[]): unknown[] {
  const record = item as Record<string, unknown>;
  return keys.map((key) => record[key] ?? null);
}

/** The value of `encodeState`'s JSON, parsed, with its strings. */
export function decodeState(value: unknown, strings: readonly string[]): unknown {
  if (typeof value === 'string') {
    if (value.startsWith(BIGINT_TAG)) return BigInt(value.slice(1));
    if (value.startsWith(STRING_TAG)) {
      const found = strings[Number(value.slice(1))];
      if (found === undefined) throw new Error(`a reference to string ${value.slice(1)}, of ${strings.length}`);
      return found;
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

/** The columns of an array of plain objects without nulls (a table); undefined for anything else. */
function tableKeys(items: unknown[]): string[] | undefined {
  const keys = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Object.getPrototypeOf(item) !== Object.prototype) return undefined;
    for (const [key, v] of Object.entries(item)) {
      if (v === null) return undefined;
      keys.add(key);
    }
  }
  return [...keys];
}
