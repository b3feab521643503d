import { BadValue, compileEncoder, InsertValueError, type CellValue, type ValueEncoder } from './tsv-encoders.ts';

/** A row to insert: column name → value. Columns left out take their DEFAULT (or NULL). */
export type InsertRow = Readonly<Record<string, CellValue>>;

/** A column as system.columns describes it. */
export interface ColumnSpec {
  name: string;
  type: string;
  /** '' (plain), DEFAULT, MATERIALIZED, ALIAS or EPHEMERAL. */
  defaultKind: string;
}

export interface RowEncoder {
  readonly columns: readonly string[];
  /** TabSeparated bytes of the rows, in `columns` order (a fresh buffer: it may be sent zero-copy). */
  encode(rows: readonly InsertRow[]): Buffer;
}

const INSERTABLE = new Set(['', 'DEFAULT']);
const NULL_FIELD = '\\N';

interface CompiledColumn {
  name: string;
  encode: ValueEncoder;
  /** What a missing value becomes: \N (NULL or the column DEFAULT), or undefined when it is required. */
  whenMissing: string | undefined;
}

/**
 * Compiles a TabSeparated encoder for `columns` of a table (all insertable columns by default).
 * A missing value becomes the column's DEFAULT (sent as \N with input_format_null_as_default=1),
 * NULL for a Nullable column, and an error for any other column: a silent zero in a money column
 * would be worse than a dead letter.
 */
export function compileRowEncoder(
  table: string,
  specs: readonly ColumnSpec[],
  columns?: readonly string[],
): RowEncoder {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const names = columns ?? specs.filter((spec) => INSERTABLE.has(spec.defaultKind)).map((spec) => spec.name);
  const compiled: CompiledColumn[] = names.map((name) => {
    const spec = byName.get(name);
    if (!spec) throw new Error(`table ${table} has no column ${name}`);
    if (!INSERTABLE.has(spec.defaultKind))
      throw new Error(`column ${table}.${name} is ${spec.defaultKind} and cannot be inserted`);
    const nullable = spec.type.startsWith('Nullable(') || spec.type.startsWith('LowCardinality(Nullable(');
    return {
      name,
      encode: compileEncoder(spec.type),
      whenMissing: nullable || spec.defaultKind === 'DEFAULT' ? NULL_FIELD : undefined,
    };
  });
  const known = new Set(names);
  const encodeLines = compileLines(compiled);
  let bytesPerRow = 256; // learnt from each batch, so the next one rarely grows its buffer

  return {
    columns: names,
    encode(rows) {
      const first = rows[0];
      if (first) {
        for (const key of Object.keys(first)) {
          if (!known.has(key)) throw new InsertValueError(table, key, 'not an insertable column', 0);
        }
      }
      const position = { row: 0, column: 0 };
      try {
        const payload = encodeLines(
          rows,
          position,
          Buffer.allocUnsafe(Math.max(4096, Math.ceil(rows.length * bytesPerRow * 1.1))),
        );
        if (rows.length > 0) bytesPerRow = payload.length / rows.length;
        return payload;
      } catch (err) {
        if (err instanceof BadValue)
          throw new InsertValueError(table, compiled[position.column]?.name ?? '?', err.message, position.row);
        throw err;
      }
    },
  };
}

type LinesEncoder = (rows: readonly InsertRow[], position: { row: number; column: number }, buffer: Buffer) => Buffer;

/**
 * The hot loop, generated once per column list: one template per row with each column read by
 * its literal name (V8 then sees one object shape), and each line written straight into the
 * payload buffer, so no batch-sized string is ever built (that string, held across a whole batch,
 * was what kept the garbage collector busy). Column names enter the code only as JSON literals.
 */
function compileLines(columns: readonly CompiledColumn[]): LinesEncoder {
  const fields = columns.map((column, k) => {
    const read = `row[${JSON.stringify(column.name)}]`;
    return `(position.column = ${k}, (value = ${read}) === undefined || value === null ? missing${k}() : encode${k}(value))`;
  });
  const body = `return function encodeLines(rows, position, buffer) {
    let used = 0;
    let value;
    for (let i = 0; i < rows.length; i++) {
      position.row = i;
      const row = rows[i];
      const line = ${fields.join(" + '\\t' + ")} + '\\n';
      // A UTF-16 unit never takes more than 3 bytes in UTF-8.
      if (buffer.length - used < line.length * 3) buffer = grow(buffer, used, line.length * 3);
      used += buffer.write(line, used);
    }
    return buffer.subarray(0, used);
  };`;
  const parameters = ['grow', ...columns.flatMap((_, k) => [`encode${k}`, `missing${k}`])];
  const values = [grow, ...columns.flatMap((column) => [column.encode, missingValue(column)])];
  return new Function(...parameters, body)(...values) as LinesEncoder;
}

function grow(buffer: Buffer, used: number, needed: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(buffer.length * 2, used + needed));
  buffer.copy(larger, 0, 0, used);
  return larger;
}

function missingValue(column: CompiledColumn): () => string {
  const text = column.whenMissing;
  if (text !== undefined) return () => text;
  return () => {
    throw new BadValue('missing (the column has no DEFAULT and is not Nullable)');
  };
}
