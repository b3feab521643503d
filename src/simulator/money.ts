/** Fixed-point helpers: every price, size and amount is an integer count of micro-units. */

export const MICRO = 1_000_000n;

/** price (micro) × shares (micro) → collateral (micro), exact when the product divides; else floor. */
export function notionalFloor(priceMicro: bigint, sharesMicro: bigint): bigint {
  return (priceMicro * sharesMicro) / MICRO;
}

export function divCeil(a: bigint, b: bigint): bigint {
  if (b <= 0n) throw new Error('divCeil by a non-positive number');
  return a >= 0n ? (a + b - 1n) / b : a / b;
}

export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** Parses a non-negative integer decimal string ("_micro" wire form); undefined when malformed. */
export function parseMicro(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !/^\d{1,30}$/.test(value)) return undefined;
  return BigInt(value);
}

/** Collateral micro-units → a float for the few display fields the interface types as number. */
export function microToNumber(value: bigint): number {
  return Number(value) / 1e6;
}
