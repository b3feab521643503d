import type { QueryResult } from './run-query.ts';

/**
 * Query results as Grafana data frames: typed columns ("fields"), times as epoch milliseconds,
 * numbers as numbers (64-bit integers arrive as strings; for drawing, a double is exact enough).
 */

export type FieldType = 'time' | 'number' | 'string' | 'boolean' | 'other';
export type FieldValue = number | string | boolean | null;

export interface Field {
  name: string;
  type: FieldType;
  values: FieldValue[];
  /** Set on the fields a long time series was widened into: the string columns' values. */
  labels?: Record<string, string>;
}

export interface Frame {
  refId: string;
  fields: Field[];
}

export function fieldTypeOf(clickhouseType: string): FieldType {
  const bare = clickhouseType.replace(/^(LowCardinality\(|Nullable\()+/, '');
  if (/^(DateTime|Date)/.test(bare)) return 'time';
  if (/^(U?Int\d+|Float\d+|Decimal)/.test(bare)) return 'number';
  if (bare.startsWith('Bool')) return 'boolean';
  if (/^(String|FixedString|Enum|UUID|IPv)/.test(bare)) return 'string';
  return 'other';
}

function toFieldValue(type: FieldType, value: unknown): FieldValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'time': {
      const text = String(value);
      // ISO output (see run-query.ts); a bare Date is a UTC day.
      const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
      return Number.isNaN(ms) ? null : ms;
    }
    case 'number': {
      const number = Number(value);
      return Number.isFinite(number) ? number : null;
    }
    case 'boolean':
      return value === true || value === 1 || value === 'true';
    case 'string':
      return String(value);
    default:
      return JSON.stringify(value);
  }
}

export function toFrame(refId: string, result: QueryResult): Frame {
  const fields = result.columns.map((column, index): Field => {
    const type = fieldTypeOf(column.type);
    return { name: column.name, type, values: result.rows.map((row) => toFieldValue(type, row[index])) };
  });
  return { refId, fields };
}

/**
 * The data source's time-series format: a long frame (time, string columns, numbers) becomes
 * one number field per combination of the string columns' values, on a shared time axis
 * (missing points are null), as the plugin's backend does before Grafana draws it.
 */
export function longToWide(frame: Frame): Frame {
  const time = frame.fields.find((field) => field.type === 'time');
  const dimensions = frame.fields.filter((field) => field.type === 'string');
  const measures = frame.fields.filter((field) => field.type === 'number');
  if (!time || dimensions.length === 0 || measures.length === 0) return frame;

  const times = [...new Set(time.values.filter((value): value is number => typeof value === 'number'))].sort(
    (a, b) => a - b,
  );
  const row = new Map(times.map((value, index) => [value, index]));
  const series = new Map<string, Field>();
  time.values.forEach((at, index) => {
    if (typeof at !== 'number') return;
    const labels = Object.fromEntries(
      dimensions.map((dimension) => [dimension.name, String(dimension.values[index] ?? '')]),
    );
    for (const measure of measures) {
      const key = JSON.stringify([measure.name, labels]);
      let field = series.get(key);
      if (!field) {
        field = { name: measure.name, type: 'number', labels, values: new Array<FieldValue>(times.length).fill(null) };
        series.set(key, field);
      }
      field.values[row.get(at)!] = measure.values[index] ?? null;
    }
  });
  return { refId: frame.refId, fields: [{ ...time, values: times }, ...series.values()] };
}

export function rowCount(frame: Frame): number {
  return frame.fields[0]?.values.length ?? 0;
}
