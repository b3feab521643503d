/**
 * Renders ClickHouse's JSONCompactEachRowWithNamesAndTypes output as an aligned text table
 * (psql style): numbers right-aligned, NULL shown as NULL, a row count at the end.
 */
export const TABLE_SOURCE_FORMAT = 'JSONCompactEachRowWithNamesAndTypes';

const NUMERIC_TYPE = /^(Nullable\()?(LowCardinality\()?(U?Int\d+|Float\d+|Decimal)/;

export function renderTable(output: string): string {
  const lines = output.split('\n').filter((line) => line !== '');
  if (lines.length < 2) return '';
  const names = JSON.parse(lines[0]!) as string[];
  const types = JSON.parse(lines[1]!) as string[];
  const rows = lines.slice(2).map((line) => (JSON.parse(line) as unknown[]).map(cellText));
  const numeric = types.map((type) => NUMERIC_TYPE.test(type));
  const widths = names.map((name, c) => Math.max(name.length, ...rows.map((row) => row[c]!.length)));
  const pad = (text: string, c: number) => (numeric[c] ? text.padStart(widths[c]!) : text.padEnd(widths[c]!));
  const out = [
    names
      .map((name, c) => name.padEnd(widths[c]!))
      .join(' | ')
      .trimEnd(),
    widths.map((width) => '-'.repeat(width)).join('-+-'),
    ...rows.map((row) => row.map(pad).join(' | ').trimEnd()),
    `(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`,
  ];
  return `${out.join('\n')}\n`;
}

function cellText(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
