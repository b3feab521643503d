/** Ascending order of two bigints, for `Array.prototype.sort` (which cannot subtract them into a number safely). */
export function compareBigints(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
