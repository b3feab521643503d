import type { Level } from './ladder.ts';
import { decimalAt } from '../../util/decimal.ts';

/**
 * Parses the levels of a book frame or REST order book into ladder levels, collecting what is
 * wrong instead of throwing: capture stores a data-quality record and goes on.
 *
 * Tolerant of the level's shape (the interface does not show it): `{price_micro, shares_micro}`,
 * `{price_micro, size_micro}`, or a `[price, size]` pair; values as decimal strings or integers.
 */

/** One unit of a price in micro-units: prices live strictly inside (0, 1). */
export const PRICE_ONE_MICRO = 1_000_000;

export interface LevelProblem {
  problem:
    'malformed_level' | 'price_out_of_range' | 'negative_or_fractional_size' | 'zero_size_level' | 'duplicate_price';
  detail: string;
}

export interface ParsedLevels {
  levels: Level[];
  problems: LevelProblem[];
}

const UNSIGNED = /^\d+$/;

export function parseLevels(input: unknown, side: string, allowZero: boolean): ParsedLevels {
  const levels: Level[] = [];
  const problems: LevelProblem[] = [];
  if (!Array.isArray(input)) {
    if (input !== undefined && input !== null)
      problems.push({ problem: 'malformed_level', detail: `${side}: not an array` });
    return { levels, problems };
  }
  // Price → index in `levels`: a later level at a price already seen replaces the earlier one.
  // Books come sorted, and prices that keep one direction cannot repeat: the map is built only
  // once the order breaks.
  let seen: Map<number, number> | null = null;
  let direction = 0;
  for (let i = 0; i < input.length; i++) {
    const entry: unknown = input[i];
    let price: unknown;
    let size: unknown;
    if (Array.isArray(entry)) [price, size] = entry;
    else if (entry && typeof entry === 'object') {
      const o = entry as Record<string, unknown>;
      price = o.price_micro;
      size = o.shares_micro ?? o.size_micro;
    }
    const priceMicro = parsePrice(price);
    if (priceMicro === null) {
      problems.push({
        problem: isIntegerText(price) ? 'price_out_of_range' : 'malformed_level',
        detail: `${side}[${i}] price ${String(price)}`,
      });
      continue;
    }
    const sizeMicro = canonicalSize(size);
    if (sizeMicro === null) {
      problems.push({ problem: 'negative_or_fractional_size', detail: `${side}[${i}] size ${String(size)}` });
      continue;
    }
    if (sizeMicro === '0' && !allowZero) {
      problems.push({ problem: 'zero_size_level', detail: `${side}[${i}] at ${priceMicro}` });
      continue;
    }
    if (seen === null && levels.length > 0) {
      const step = Math.sign(priceMicro - levels[levels.length - 1]!.priceMicro);
      if (step !== 0 && (direction === 0 || step === direction)) direction = step;
      else seen = new Map(levels.map((l, index) => [l.priceMicro, index]));
    }
    const earlier = seen?.get(priceMicro);
    if (earlier !== undefined) {
      problems.push({ problem: 'duplicate_price', detail: `${side} price ${priceMicro} twice; the later level wins` });
      levels[earlier] = { priceMicro, sizeMicro };
      continue;
    }
    seen?.set(priceMicro, levels.length);
    levels.push({ priceMicro, sizeMicro });
  }
  return { levels, problems };
}

function isIntegerText(value: unknown): boolean {
  return (typeof value === 'string' && /^-?\d+$/.test(value)) || (typeof value === 'number' && Number.isInteger(value));
}

/** A price strictly inside (0, 1) in micro-units, or null. */
function parsePrice(value: unknown): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') n = digits(value, 7);
  else return null;
  return Number.isInteger(n) && n > 0 && n < PRICE_ONE_MICRO ? n : null;
}

/** The value of a string of 1 to `max` decimal digits, or NaN. */
function digits(text: string, max: number): number {
  const length = text.length;
  if (length === 0 || length > max) return Number.NaN;
  const n = decimalAt(text, 0, length);
  return n < 0 ? Number.NaN : n;
}

const INT64_MAX_TEXT = '9223372036854775807';

/** A non-negative integer size that fits Int64, as a canonical decimal string, or null. */
function canonicalSize(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  if (typeof value !== 'string') return null;
  // Hot path: up to 15 digits without a leading zero is canonical and within Int64.
  if (value.length <= 15 && value.charCodeAt(0) !== 48 && !Number.isNaN(digits(value, 15))) return value;
  if (value.length === 0 || value.length > 40 || !UNSIGNED.test(value)) return null;
  let text = value;
  if (text.length > 1 && text.charCodeAt(0) === 48 /* '0' */) text = text.replace(/^0+(?=\d)/, '');
  const fits = text.length < INT64_MAX_TEXT.length || (text.length === INT64_MAX_TEXT.length && text <= INT64_MAX_TEXT);
  return fits ? text : null;
}
