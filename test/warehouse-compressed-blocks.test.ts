import { describe, expect, it } from 'vitest';
import { cityHash128 } from '../src/warehouse/endpoint/cityhash128.ts';
import {
  compressBlock,
  CompressedBlockWriter,
  COMPRESSED_BLOCK_BYTES,
  decompressBlocks,
} from '../src/warehouse/endpoint/compressed-blocks.ts';

/** Input i of the vectors: bytes (i * 131 + 7) mod 256. */
const sample = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 131 + 7) % 256);

describe('CityHash128 v1.0.2, the checksum of ClickHouse compressed blocks', () => {
  it('gives the values of the clickhouse-cityhash Python package (1.0.2.6) for every length class', () => {
    // Printed by clickhouse_cityhash.cityhash.CityHash128 as (value mod 2^64, value >> 64); the low
    // half of the value is written second, as the server does.
    const vectors: Array<[number, string, string]> = [
      [0, '3cb540c392e51e29', '3df09dfc64c09a2b'],
      [3, 'ffec5144a8fd549d', 'eb932eee3e24bb6b'],
      [7, '5959f5dd3c4b0aca', '3e2831dbd31dcf9f'],
      [9, '17e74101b56abab4', '8cca603e1a188255'],
      [16, 'deb9d6910a9685c1', '9fe64a51f1964b33'],
      [33, 'b1a38ef8a515f9eb', '835d866d16313200'],
      [127, '87ba5d90252340eb', 'f00e82e948f8d91b'],
      [128, 'ed7aa45825894bec', '8b58caab8dd4b516'],
      [257, 'fbbdbb29b2e86b54', '830785dda4a69de4'],
      [4096, 'a857044c360a0949', 'f62c7ee600f37137'],
    ];
    for (const [length, second, first] of vectors) {
      const hash = cityHash128(sample(length));
      expect(
        [hash.low.toString(16).padStart(16, '0'), hash.high.toString(16).padStart(16, '0')],
        `length ${length}`,
      ).toEqual([first, second]);
    }
  });
});

describe('compressed blocks (compress=1, decompress=1)', () => {
  it('frame LZ4 data with its checksum and sizes, and read back what they frame', () => {
    const data = Buffer.from('SELECT 1 '.repeat(1000));
    const block = compressBlock(data);
    expect(block[16]).toBe(0x82); // LZ4
    expect(block.readUInt32LE(17)).toBe(block.length - 16);
    expect(block.readUInt32LE(21)).toBe(data.length);
    expect(block.length).toBeLessThan(data.length / 10);
    expect(decompressBlocks(Buffer.concat([block, compressBlock(Buffer.from('x'))])).toString()).toBe(
      `${data.toString()}x`,
    );
  });

  it('are cut at 1 MiB as a server writes them, the rest in a last block', () => {
    const writer = new CompressedBlockWriter();
    const input = Buffer.alloc(COMPRESSED_BLOCK_BYTES * 2 + 10, 7);
    const blocks = [...writer.write(input.subarray(0, 100)), ...writer.write(input.subarray(100)), ...writer.flush()];
    expect(blocks.map((block) => block.readUInt32LE(21))).toEqual([COMPRESSED_BLOCK_BYTES, COMPRESSED_BLOCK_BYTES, 10]);
    expect(decompressBlocks(Buffer.concat(blocks)).equals(input)).toBe(true);
  });

  it('refuse a block whose checksum does not match, unless checksums are off; and a cut block', () => {
    const block = compressBlock(Buffer.from('hello'));
    block[block.length - 1]! ^= 0xff;
    expect(() => decompressBlocks(block)).toThrow(expect.objectContaining({ code: 40, type: 'CHECKSUM_DOESNT_MATCH' }));
    const plain = Buffer.from(compressBlock(Buffer.from('hello world')));
    expect(() => decompressBlocks(plain.subarray(0, plain.length - 2))).toThrow(expect.objectContaining({ code: 271 }));
  });
});
