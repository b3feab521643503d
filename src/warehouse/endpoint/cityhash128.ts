/**
 * CityHash128 as ClickHouse uses it for the checksum of a compressed block: Google's CityHash
 * v1.0.2, whose 128-bit variant differs from every later CityHash release (and from FarmHash).
 * No maintained npm package implements this version (the `cityhash` package binds a later
 * release through an old native addon; others have CityHash64 only), so it is written here from
 * the algorithm, in BigInt arithmetic modulo 2^64, and checked against vectors of the
 * `clickhouse-cityhash` Python package and by the real drivers that verify the checksums.
 */

const MASK = (1n << 64n) - 1n;
const K0 = 0xc3a5c85c97cb3127n;
const K1 = 0xb492b66fbe98f273n;
const K2 = 0x9ae16a3b2f90404fn;
const K3 = 0xc949d7c7509e6557n;
const KMUL = 0x9ddfea08eb382d69n;

export interface Hash128 {
  low: bigint;
  high: bigint;
}

const mul = (a: bigint, b: bigint) => (a * b) & MASK;
const add = (a: bigint, b: bigint) => (a + b) & MASK;
const sub = (a: bigint, b: bigint) => (a - b) & MASK;
const rot = (v: bigint, shift: bigint) => (shift === 0n ? v : ((v >> shift) | (v << (64n - shift))) & MASK);
const shiftMix = (v: bigint) => v ^ (v >> 47n);

function hash16(u: bigint, v: bigint): bigint {
  let a = mul(u ^ v, KMUL);
  a ^= a >> 47n;
  let b = mul(v ^ a, KMUL);
  b ^= b >> 47n;
  return mul(b, KMUL);
}

class Bytes {
  constructor(private readonly data: Uint8Array) {}
  u64(at: number): bigint {
    const d = this.data;
    const lo = (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0;
    const hi = (d[at + 4]! | (d[at + 5]! << 8) | (d[at + 6]! << 16) | (d[at + 7]! << 24)) >>> 0;
    return (BigInt(hi) << 32n) | BigInt(lo);
  }
  u32(at: number): bigint {
    const d = this.data;
    return BigInt((d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0);
  }
  byte(at: number): bigint {
    return BigInt(this.data[at]!);
  }
}

function hash0to16(s: Bytes, at: number, len: number): bigint {
  if (len > 8) {
    const a = s.u64(at);
    const b = s.u64(at + len - 8);
    return hash16(a, rot(add(b, BigInt(len)), BigInt(len))) ^ b;
  }
  if (len >= 4) {
    const a = s.u32(at);
    return hash16(add(BigInt(len), a << 3n), s.u32(at + len - 4));
  }
  if (len > 0) {
    const y = s.byte(at) + (s.byte(at + (len >> 1)) << 8n);
    const z = BigInt(len) + (s.byte(at + len - 1) << 2n);
    return mul(shiftMix(mul(y, K2) ^ mul(z, K3)), K2);
  }
  return K2;
}

function weakHash32(s: Bytes, at: number, a: bigint, b: bigint): [bigint, bigint] {
  const w = s.u64(at);
  const x = s.u64(at + 8);
  const y = s.u64(at + 16);
  const z = s.u64(at + 24);
  a = add(a, w);
  b = rot(add(add(b, a), z), 21n);
  const c = a;
  a = add(add(a, x), y);
  b = add(b, rot(a, 44n));
  return [add(a, z), add(b, c)];
}

/** CityMurmur of v1.0.2, for inputs shorter than 128 bytes. */
function murmur(s: Bytes, at: number, len: number, seedLow: bigint, seedHigh: bigint): Hash128 {
  let a = seedLow;
  let b = seedHigh;
  let c: bigint;
  let d: bigint;
  if (len <= 16) {
    a = mul(shiftMix(mul(a, K1)), K1);
    c = add(mul(b, K1), hash0to16(s, at, len));
    d = shiftMix(add(a, len >= 8 ? s.u64(at) : c));
  } else {
    c = hash16(add(s.u64(at + len - 8), K1), a);
    d = hash16(add(b, BigInt(len)), add(c, s.u64(at + len - 16)));
    a = add(a, d);
    for (let l = len - 16, p = at; l > 0; l -= 16, p += 16) {
      a ^= mul(shiftMix(mul(s.u64(p), K1)), K1);
      a = mul(a, K1);
      b ^= a;
      c ^= mul(shiftMix(mul(s.u64(p + 8), K1)), K1);
      c = mul(c, K1);
      d ^= c;
    }
  }
  a = hash16(a, c);
  b = hash16(d, b);
  return { low: a ^ b, high: hash16(b, a) };
}

function withSeed(s: Bytes, at: number, len: number, seedLow: bigint, seedHigh: bigint): Hash128 {
  if (len < 128) return murmur(s, at, len, seedLow, seedHigh);
  const end = at + len;
  let x = seedLow;
  let y = seedHigh;
  let z = mul(BigInt(len), K1);
  let v0 = add(mul(rot(y ^ K1, 49n), K1), s.u64(at));
  let v1 = add(mul(rot(v0, 42n), K1), s.u64(at + 8));
  let w0 = add(mul(rot(add(y, z), 35n), K1), x);
  let w1 = mul(rot(add(x, s.u64(at + 88)), 53n), K1);
  let p = at;
  let remaining = len;
  const roll = (q: number) => {
    x = mul(rot(add(add(add(x, y), v0), s.u64(q + 16)), 37n), K1);
    y = mul(rot(add(add(y, v1), s.u64(q + 48)), 42n), K1);
    x ^= w1;
    y ^= v0;
    z = rot(z ^ w0, 33n);
    [v0, v1] = weakHash32(s, q, mul(v1, K1), add(x, w0));
    [w0, w1] = weakHash32(s, q + 32, add(z, w1), y);
    [z, x] = [x, z];
  };
  do {
    roll(p);
    roll(p + 64);
    p += 128;
    remaining -= 128;
  } while (remaining >= 128);
  y = add(y, add(mul(rot(w0, 37n), K0), z));
  x = add(x, mul(rot(add(v0, z), 49n), K0));
  for (let done = 0; done < remaining;) {
    done += 32;
    y = add(mul(rot(sub(y, x), 42n), K0), v1);
    w0 = add(w0, s.u64(end - done + 16));
    x = add(mul(rot(x, 49n), K0), w0);
    w0 = add(w0, v0);
    [v0, v1] = weakHash32(s, end - done, v0, v1);
  }
  x = hash16(x, v0);
  y = hash16(y, w0);
  return { low: add(hash16(add(x, v1), w1), y), high: hash16(add(x, w1), add(y, v1)) };
}

export function cityHash128(data: Uint8Array): Hash128 {
  const s = new Bytes(data);
  const len = data.length;
  if (len >= 16) return withSeed(s, 16, len - 16, s.u64(0) ^ K3, s.u64(8));
  if (len >= 8) return withSeed(s, 0, 0, s.u64(0) ^ mul(BigInt(len), K0), s.u64(len - 8) ^ K1);
  return withSeed(s, 0, len, K0, K1);
}
