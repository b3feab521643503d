/** The whole number written in `text` from `start` for `length` digits, or -1 when one is not a digit (read by
 * position: no allocation). */
export function decimalAt(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}
