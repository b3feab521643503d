import { ByteReader, NeedMoreBytes } from './native-types.ts';

/**
 * What chDB's streaming does to an output format: each chunk it hands over is the format written
 * for that chunk alone, so a format with a header repeats it in every chunk, and one with a frame
 * around the rows (JSON's meta and statistics, Parquet's footer, …) frames every chunk. Hence:
 *
 *   - concatenate: rows only (JSONEachRow, TabSeparated, CSV, RowBinary, Native blocks, …):
 *     chunks go out as they come;
 *   - strip: a header of names (and types) before the rows (…WithNames, …WithNamesAndTypes):
 *     chunks after the first go out without it;
 *   - whole: anything else is run without streaming and sent as one piece.
 */
export type StreamMode =
  { kind: 'concatenate' } | { kind: 'strip'; headerLength: (chunk: Buffer) => number } | { kind: 'whole' };

const CONCATENATE = new Set(
  [
    'JSONEachRow',
    'JSONLines',
    'NDJSON',
    'JSONStringsEachRow',
    'JSONCompactEachRow',
    'JSONCompactStringsEachRow',
    'TabSeparated',
    'TSV',
    'TabSeparatedRaw',
    'TSVRaw',
    'Raw',
    'CSV',
    'RowBinary',
    'Native',
    'LineAsString',
    'MsgPack',
    'Null',
  ].map((name) => name.toLowerCase()),
);

export function streamModeOf(format: string): StreamMode {
  const name = format.toLowerCase();
  if (CONCATENATE.has(name)) return { kind: 'concatenate' };
  const headed =
    /^(tabseparated|tsv|tabseparatedraw|tsvraw|csv|jsoncompacteachrow|jsoncompactstringseachrow|rowbinary)with(names|namesandtypes)$/.exec(
      name,
    );
  if (!headed) return { kind: 'whole' };
  const lines = headed[2] === 'namesandtypes' ? 2 : 1;
  if (headed[1] === 'rowbinary') return { kind: 'strip', headerLength: (chunk) => rowBinaryHeaderLength(chunk, lines) };
  if (headed[1] === 'csv') return { kind: 'strip', headerLength: (chunk) => csvLinesLength(chunk, lines) };
  // TSV escapes newlines and JSON strings carry none raw: a header line ends at the first newline.
  return { kind: 'strip', headerLength: (chunk) => nthNewline(chunk, lines) };
}

function nthNewline(chunk: Buffer, lines: number): number {
  let at = -1;
  for (let i = 0; i < lines; i++) {
    at = chunk.indexOf(0x0a, at + 1);
    if (at === -1) return chunk.length;
  }
  return at + 1;
}

/** CSV header lines: a newline inside a quoted name does not end the line. */
function csvLinesLength(chunk: Buffer, lines: number): number {
  let quoted = false;
  let seen = 0;
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i];
    if (c === 0x22) quoted = !quoted;
    else if (c === 0x0a && !quoted && ++seen === lines) return i + 1;
  }
  return chunk.length;
}

/** RowBinaryWithNames(AndTypes): the column count, then the names (then the types), as strings. */
function rowBinaryHeaderLength(chunk: Buffer, lists: number): number {
  try {
    const r = new ByteReader(chunk);
    const columns = r.varUInt();
    for (let i = 0; i < columns * lists; i++) r.skip(r.varUInt());
    return r.at;
  } catch (err) {
    if (err instanceof NeedMoreBytes) return chunk.length;
    throw err;
  }
}
