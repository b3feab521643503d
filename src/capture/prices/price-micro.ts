import { canonicalMicro } from '../frames/index.ts';

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const INT64_MAX = 9223372036854775807n;

/**
 * A price event's price as micro-units: `price_micro` when the venue sends one (a whole number),
 * else `price` — a decimal string or a JSON number — rounded half to even at the sixth decimal (a
 * feed may quote more digits than the warehouse's micro-units keep; `price_text` keeps them all).
 * Returns what is wrong instead when neither is a price.
 */
export function priceMicro(data: Record<string, unknown>): { micro: string; text: string } | string {
  if (data.price_micro !== undefined && data.price_micro !== null) {
    const micro = canonicalMicro(data.price_micro);
    if (micro === null) return `price_micro ${JSON.stringify(data.price_micro)} is not a whole number of micro-units`;
    return { micro, text: String(data.price_micro) };
  }
  const price = data.price;
  if (typeof price !== 'string' && typeof price !== 'number')
    return 'a price event needs a price (decimal text or a number)';
  const text = String(price);
  const micro = decimalToMicro(text);
  if (micro === null) return `price ${JSON.stringify(price)} is not a decimal number within Int64 micro-units`;
  return { micro, text };
}

/** `97012.45` → `97012450000`; half-even beyond six decimals; null for anything but plain decimal text. */
export function decimalToMicro(text: string): string | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const [, sign, whole, fraction = ''] = m;
  const kept = BigInt(whole! + fraction.slice(0, 6).padEnd(6, '0'));
  const rest = fraction.slice(6);
  let micro = kept;
  if (/[1-9]/.test(rest)) {
    const half = rest[0]! > '5' || (rest[0] === '5' && /[1-9]/.test(rest.slice(1)));
    const tie = rest[0] === '5' && !/[1-9]/.test(rest.slice(1));
    if (half || (tie && kept % 2n === 1n)) micro += 1n;
  }
  if (micro > INT64_MAX) return null;
  return sign === '-' && micro !== 0n ? `-${micro}` : micro.toString();
}
