/**
 * Fixed-point `_micro` quantities (millionths of a unit) as exact bigints.
 *
 * The interface sends them as decimal strings, except a few fields it types as integers.
 * Accepted range: Int64 (−2^63 … 2^63−1), the width of the warehouse columns; a value outside it
 * would not survive loading, so it is rejected here with the field named.
 * JSON numbers are accepted only for the integer-typed fields, and only up to 2^53−1: beyond
 * that `JSON.parse` has already rounded the value, so exactness cannot be promised.
 */

export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);

/** Prices, sizes and amounts are never negative; profit and loss can be. */
export type MicroSign = 'non-negative' | 'signed';
/** `string`: decimal string only. `integer`: the interface types the field as an integer. */
export type MicroForm = 'string' | 'integer';

export interface MicroRules {
  sign: MicroSign;
  form: MicroForm;
}

export type MicroCheck = { ok: true; value: bigint } | { ok: false; reason: string };

const DECIMAL_INTEGER = /^-?[0-9]+$/;

export function checkMicro(input: unknown, rules: MicroRules): MicroCheck {
  if (typeof input === 'number' && rules.form === 'integer') return checkMicroNumber(input, rules);
  if (typeof input !== 'string') {
    const expected = rules.form === 'integer' ? 'an integer or a decimal string' : 'a decimal string';
    return { ok: false, reason: `expected ${expected}, received ${describe(input)}` };
  }
  if (input === '') return { ok: false, reason: 'empty string is not an amount' };
  if (!DECIMAL_INTEGER.test(input)) return { ok: false, reason: `"${clip(input)}" is not ${whyNotDecimal(input)}` };
  return checkRange(BigInt(input), rules);
}

export class MicroError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'MicroError';
  }
}

/** Parses one `_micro` value or throws a MicroError naming `field`. */
export function parseMicro(
  input: unknown,
  field: string,
  rules: MicroRules = { sign: 'non-negative', form: 'string' },
): bigint {
  const result = checkMicro(input, rules);
  if (!result.ok) throw new MicroError(field, result.reason);
  return result.value;
}

/** Renders a micro amount back to its wire form (a decimal string). */
export function formatMicro(value: bigint): string {
  return value.toString(10);
}

function checkMicroNumber(input: number, rules: MicroRules): MicroCheck {
  if (!Number.isInteger(input)) return { ok: false, reason: `${input} is not a whole number of micro-units` };
  if (!Number.isSafeInteger(input)) {
    return {
      ok: false,
      reason: `${input} exceeds 2^53-1, so JSON has already rounded it; send it as a decimal string`,
    };
  }
  return checkRange(BigInt(input), rules);
}

function checkRange(value: bigint, rules: MicroRules): MicroCheck {
  if (value < 0n && rules.sign === 'non-negative')
    return { ok: false, reason: `negative value ${value} not allowed here` };
  if (value > INT64_MAX || value < INT64_MIN) return { ok: false, reason: `${value} is outside the Int64 range` };
  return { ok: true, value };
}

function whyNotDecimal(input: string): string {
  if (/^-?[0-9]*\.[0-9]*$/.test(input)) return 'a whole number of micro-units (fractional)';
  if (/^-?[0-9.]+[eE][+-]?[0-9]+$/.test(input)) return 'a plain decimal integer (exponent notation)';
  return 'a decimal integer';
}

function describe(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  return typeof input;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
