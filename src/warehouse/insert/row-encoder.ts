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
  /** TabSeparated bytes of the rows, in `columns` order. */
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
export function compileRowEncoder(table: string, specs: readonly ColumnSpec[], columns?: readonly string[]): RowEncoder {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const names = columns ?? specs.filter((spec) => INSERTABLE.has(spec.defaultKind)).map((spec) => spec.name);
  const compiled: CompiledColumn[] = names.map((name) => {
    const spec = byName.get(name);
    if (!spec) throw new Error(`table ${table} has no column ${name}`);
    if (!INSERTABLE.has(spec.defaultKind)) throw new Error(`column ${table}.${name} is ${spec.defaultKind} and cannot be inserted`);
    const nullable = spec.type.startsWith('Nullable(') || spec.type.startsWith('LowCardinality(Nullable(');
    return {
      name,
      encode: compileEncoder(spec.type),
      whenMissing: nullable || spec.defaultKind === 'DEFAULT' ? NULL_FIELD : undefined,
    };
  });
  const known = new Set(names);

  return {
    columns: names,
    encode(rows) {
      const first = rows[0];
      if (first) {
        for (const key of Object.keys(first)) {
          if (!known.has(key)) throw new InsertValueError(table, key, 'not an insertable column', 0);
        }
      }
      let out = '';
      let rowIndex = 0;
      let column: CompiledColumn | undefined;
      try {
        for (; rowIndex < rows.length; rowIndex++) {
          const row = rows[rowIndex]!;
          let line = '';
          for (let c = 0; c < compiled.length; c++) {
            column = compiled[c]!;
            const value = row[column.name];
            let field: string;
            if (value === undefined || value === null) {
              if (column.whenMissing === undefined) throw new BadValue('missing (the column has no DEFAULT and is not Nullable)');
              field = column.whenMissing;
            } else {
              field = column.encode(value);
            }
            line = c === 0 ? field : `${line}\t${field}`;
          }
          out += `${line}\n`;
        }
      } catch (err) {
        if (err instanceof BadValue) throw new InsertValueError(table, column?.name ?? '?', err.message, rowIndex);
        throw err;
      }
      return Buffer.from(out, 'utf8');
    },
  };
}
