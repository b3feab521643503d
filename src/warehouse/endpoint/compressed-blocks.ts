import { createRequire } from 'node:module';
import { cityHash128 } from './cityhash128.ts';
import { QueryRefused } from './query-refused.ts';

type Lz4 = typeof import('lz4-wasm-nodejs');
let lz4: Lz4 | undefined;
/** Loaded at the first compressed block (its WebAssembly takes ~0.4 s to start): a `tapehouse sql` never needs it. */
function codec(): Lz4 {
  return (lz4 ??= createRequire(import.meta.url)('lz4-wasm-nodejs') as Lz4);
}

/**
 * ClickHouse's own compression framing (`compress=1` answers, `decompress=1` request bodies):
 * a sequence of blocks, each
 *
 *   checksum (16 bytes: CityHash128 v1.0.2 of the rest of the block, low half first)
 *   method (1 byte: 0x82 LZ4, 0x02 none, 0x90 ZSTD)
 *   compressed size (UInt32 LE, these 9 header bytes included)
 *   decompressed size (UInt32 LE)
 *   data
 *
 * LZ4 is the `lz4-wasm-nodejs` package (lz4_flex compiled to WebAssembly: no native binary per
 * platform); it frames a raw LZ4 block with a 4-byte little-endian size, which is stripped here.
 */

const CHECKSUM_BYTES = 16;
const HEADER_BYTES = 9;
const METHOD_NONE = 0x02;
const METHOD_LZ4 = 0x82;
const METHOD_ZSTD = 0x90;
/** ClickHouse's CompressedWriteBuffer flushes a block per 1 MiB (DBMS_DEFAULT_BUFFER_SIZE). */
export const COMPRESSED_BLOCK_BYTES = 1 << 20;
/** A block larger than this is refused before anything is allocated for it (ClickHouse: 1 GiB). */
const MAX_BLOCK_BYTES = 1 << 30;

/** One LZ4 block of `data`, framed. */
export function compressBlock(data: Uint8Array): Buffer {
  const framed = codec().compress(data);
  const compressed = framed.subarray(4); // lz4_flex's size prefix
  const block = Buffer.allocUnsafe(CHECKSUM_BYTES + HEADER_BYTES + compressed.length);
  block[CHECKSUM_BYTES] = METHOD_LZ4;
  block.writeUInt32LE(HEADER_BYTES + compressed.length, CHECKSUM_BYTES + 1);
  block.writeUInt32LE(data.length, CHECKSUM_BYTES + 5);
  block.set(compressed, CHECKSUM_BYTES + HEADER_BYTES);
  const checksum = cityHash128(block.subarray(CHECKSUM_BYTES));
  block.writeBigUInt64LE(checksum.low, 0);
  block.writeBigUInt64LE(checksum.high, 8);
  return block;
}

/** Cuts a stream of bytes into compressed blocks of up to 1 MiB, as a server's writer does. */
export class CompressedBlockWriter {
  #pending: Buffer[] = [];
  #size = 0;

  /** Blocks completed by this write (none until 1 MiB is pending). */
  write(data: Buffer): Buffer[] {
    this.#pending.push(data);
    this.#size += data.length;
    const blocks: Buffer[] = [];
    if (this.#size < COMPRESSED_BLOCK_BYTES) return blocks;
    let all = Buffer.concat(this.#pending);
    while (all.length >= COMPRESSED_BLOCK_BYTES) {
      blocks.push(compressBlock(all.subarray(0, COMPRESSED_BLOCK_BYTES)));
      all = all.subarray(COMPRESSED_BLOCK_BYTES);
    }
    this.#pending = all.length > 0 ? [all] : [];
    this.#size = all.length;
    return blocks;
  }

  /** The last, partial block (nothing when nothing is pending). */
  flush(): Buffer[] {
    if (this.#size === 0) return [];
    const block = compressBlock(Buffer.concat(this.#pending));
    this.#pending = [];
    this.#size = 0;
    return [block];
  }

  /** Drops what is pending: a server does, when it writes an exception after data. */
  discard(): void {
    this.#pending = [];
    this.#size = 0;
  }
}

/**
 * The data of a sequence of compressed blocks. `verify` checks each checksum (the server's
 * http_native_compression_disable_checksumming_on_decompress turns it off).
 */
export function decompressBlocks(input: Buffer, verify = true): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < input.length) {
    if (input.length - at < CHECKSUM_BYTES + HEADER_BYTES) throw corrupted('the last compressed block is cut short');
    const method = input[at + CHECKSUM_BYTES]!;
    const size = input.readUInt32LE(at + CHECKSUM_BYTES + 1);
    const decompressedSize = input.readUInt32LE(at + CHECKSUM_BYTES + 5);
    if (size < HEADER_BYTES || size > MAX_BLOCK_BYTES || decompressedSize > MAX_BLOCK_BYTES) {
      throw new QueryRefused(
        39,
        'TOO_LARGE_SIZE_COMPRESSED',
        `Too large size_compressed_without_checksum: ${size}. Most likely corrupted data.`,
      );
    }
    const end = at + CHECKSUM_BYTES + size;
    if (end > input.length) throw corrupted('the last compressed block is cut short');
    const framed = input.subarray(at + CHECKSUM_BYTES, end);
    if (verify) {
      const actual = cityHash128(framed);
      if (actual.low !== input.readBigUInt64LE(at) || actual.high !== input.readBigUInt64LE(at + 8)) {
        throw new QueryRefused(40, 'CHECKSUM_DOESNT_MATCH', "Checksum doesn't match: corrupted data.");
      }
    }
    const data = framed.subarray(HEADER_BYTES);
    if (method === METHOD_NONE) {
      parts.push(Buffer.from(data));
    } else if (method === METHOD_LZ4) {
      const prefixed = Buffer.allocUnsafe(4 + data.length);
      prefixed.writeUInt32LE(decompressedSize, 0);
      prefixed.set(data, 4);
      const out = codec().decompress(prefixed);
      if (out.length !== decompressedSize) throw corrupted('an LZ4 block does not decompress to its stated size');
      parts.push(Buffer.from(out));
    } else if (method === METHOD_ZSTD) {
      throw new QueryRefused(
        48,
        'NOT_IMPLEMENTED',
        'ZSTD compressed blocks are not supported by this endpoint; use LZ4',
      );
    } else {
      throw new QueryRefused(89, 'UNKNOWN_COMPRESSION_METHOD', `Unknown compression method: ${method}`);
    }
    at = end;
  }
  return Buffer.concat(parts);
}

function corrupted(detail: string): QueryRefused {
  return new QueryRefused(271, 'CANNOT_DECOMPRESS', `Cannot decompress: ${detail}`);
}
