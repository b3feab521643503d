import { QueryRefused } from './query-refused.ts';
import { ByteReader, NeedMoreBytes, readBinaryType, skipData, statePrefixCount } from './native-types.ts';

/**
 * Native output for a client that says which revision of the protocol it reads
 * (`client_protocol_version`), written from chDB's revision-0 Native as a server's NativeWriter
 * writes it for that revision (src/Formats/NativeWriter.cpp):
 *
 *   - revision > 0: each block starts with its BlockInfo (field 1 is_overflows = false,
 *     field 2 bucket_num = -1, then 0);
 *   - revision ≥ 54454 (custom serialization): a serialization-kind byte after each column's
 *     type, 0 here, since every column is sent in its default (full) serialization;
 *   - revision < 54337: a top-level DateTime('tz') is named plain DateTime;
 *   - revision < 54405: LowCardinality is not sent (the query runs with
 *     low_cardinality_allow_in_native_format = 0, see nativeQuerySettings).
 *
 * chDB is asked for binary-encoded types, so names come out exact; they are written back as text
 * unless the client itself asked for binary types. Column data is copied byte for byte.
 */

export const MIN_REVISION_WITH_TIME_ZONE_IN_DATETIME = 54337;
export const MIN_REVISION_WITH_LOW_CARDINALITY = 54405;
export const MIN_REVISION_WITH_CUSTOM_SERIALIZATION = 54454;

export interface NativeRequest {
  /** client_protocol_version; 0 means chDB's own output is already what the client reads. */
  revision: number;
  /** The client set output_format_native_encode_types_in_binary_format itself. */
  binaryTypes: boolean;
}

/** Settings the query needs so that its Native output can be re-encoded for `request`. */
export function nativeQuerySettings(request: NativeRequest): Record<string, string> {
  const settings: Record<string, string> = { output_format_native_encode_types_in_binary_format: '1' };
  if (request.revision < MIN_REVISION_WITH_LOW_CARDINALITY) settings.low_cardinality_allow_in_native_format = '0';
  return settings;
}

const BLOCK_INFO = Buffer.from([1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0]);

function varUInt(value: number): Buffer {
  const bytes: number[] = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    bytes.push(b);
  } while (value > 0);
  return Buffer.from(bytes);
}

function binaryString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([varUInt(bytes.length), bytes]);
}

export class NativeTranscoder {
  #pending: Buffer = Buffer.alloc(0);

  constructor(private readonly request: NativeRequest) {}

  /** The blocks completed by `chunk`, re-encoded, and their rows; an incomplete block waits. */
  push(chunk: Buffer): { data: Buffer; rows: number } {
    const input = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const out: Buffer[] = [];
    let rows = 0;
    let consumed = 0;
    for (;;) {
      const r = new ByteReader(input, consumed);
      if (r.at >= input.length) break;
      try {
        rows += this.#block(r, out);
      } catch (err) {
        if (err instanceof NeedMoreBytes) break;
        throw err;
      }
      consumed = r.at;
    }
    this.#pending = input.subarray(consumed);
    return { data: Buffer.concat(out), rows };
  }

  /** Refuses output that ended inside a block. */
  end(): void {
    if (this.#pending.length > 0) {
      throw new QueryRefused(1001, 'STD_EXCEPTION', "the engine's Native output ended inside a block");
    }
  }

  #block(r: ByteReader, out: Buffer[]): number {
    const { revision, binaryTypes } = this.request;
    const parts: Buffer[] = [];
    if (revision > 0) parts.push(BLOCK_INFO);
    const columns = r.varUInt();
    const rows = r.varUInt();
    parts.push(varUInt(columns), varUInt(rows));
    for (let i = 0; i < columns; i++) {
      const nameStart = r.at;
      r.skip(r.varUInt());
      parts.push(r.buf.subarray(nameStart, r.at));
      const typeStart = r.at;
      const type = readBinaryType(r);
      if (binaryTypes) {
        parts.push(r.buf.subarray(typeStart, r.at));
      } else {
        const name =
          revision < MIN_REVISION_WITH_TIME_ZONE_IN_DATETIME && type.name.startsWith('DateTime(')
            ? 'DateTime'
            : type.name;
        parts.push(binaryString(name));
      }
      if (revision >= MIN_REVISION_WITH_CUSTOM_SERIALIZATION) parts.push(Buffer.from([0]));
      const dataStart = r.at;
      if (rows > 0) {
        r.skip(statePrefixCount(type) * 8);
        skipData(r, type, rows);
      }
      parts.push(r.buf.subarray(dataStart, r.at));
    }
    out.push(...parts);
    return rows;
  }
}
