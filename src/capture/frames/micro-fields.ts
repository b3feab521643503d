import type { JsonObject } from './frame.ts';

/**
 * Normalises the `_micro` fields of a parsed frame in place, at any depth: a decimal string or a
 * safe JSON integer becomes the canonical decimal string of the bigint it stands for (no leading
 * zeros, no "-0"), exactly what `toJsonPayload` writes for a bigint. Values that are not whole
 * numbers within Int64 are left as received and named, so capture can record a data-quality
 * problem instead of guessing.
 */

const INTEGER = /^-?\d+$/;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * Deepest nesting of objects and arrays a frame's data may have. The venue's deepest shape is an
 * order's failure recovery resource (about five levels); anything far deeper is hostile, and
 * re-serialising it for the bus would overflow the stack.
 */
export const MAX_NESTING = 64;

/** Returns false, having stopped, when `value` nests deeper than MAX_NESTING: the frame must not be recorded as data
 * then. */
export function normaliseMicros(value: JsonObject, problems: string[], path = '', depth = 1): boolean {
  if (depth > MAX_NESTING) return false;
  for (const key in value) {
    const item = value[key];
    if (key.endsWith('_micro')) {
      if (item === null || item === undefined) continue;
      const canonical = canonicalMicro(item);
      if (canonical === null)
        problems.push(`${path}${key}: ${JSON.stringify(item)} is not a whole number of micro-units`);
      else value[key] = canonical;
    } else if (typeof item === 'object' && item !== null) {
      const within = Array.isArray(item)
        ? normaliseArray(item, problems, `${path}${key}`, depth + 1)
        : normaliseMicros(item as JsonObject, problems, `${path}${key}.`, depth + 1);
      if (!within) return false;
    }
  }
  return true;
}

function normaliseArray(items: unknown[], problems: string[], path: string, depth: number): boolean {
  if (depth > MAX_NESTING) return false;
  for (let i = 0; i < items.length; i++) {
    const element = items[i];
    if (typeof element !== 'object' || element === null) continue;
    const within = Array.isArray(element)
      ? normaliseArray(element, problems, `${path}[${i}]`, depth + 1)
      : normaliseMicros(element as JsonObject, problems, `${path}[${i}].`, depth + 1);
    if (!within) return false;
  }
  return true;
}

/** The canonical decimal string of a micro value, or null when it is not a whole Int64. */
export function canonicalMicro(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
  if (typeof value !== 'string' || value.length === 0 || value.length > 21 || !INTEGER.test(value)) return null;
  // Fast path: already canonical and short enough to be within Int64 without checking.
  if (value.length < 19 && value.charCodeAt(value[0] === '-' ? 1 : 0) !== 48 /* '0' */) return value;
  const n = BigInt(value);
  return n > INT64_MAX || n < INT64_MIN ? null : n.toString();
}
