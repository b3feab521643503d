import { z } from 'zod';
import type { Json } from './json.ts';

/**
 * Building blocks of the bus-boundary schemas: each kind's module says with them what a payload
 * read back from the bus must be (src/records/README.md, "At the bus boundary"). They are as
 * tolerant as the loaders were before them — a field nobody reads travels on as sent, an id may be
 * a number, a `_micro` amount a JSON number or decimal text, JSON null is absent — and a misfit
 * names its field in the words the loaders' readers use (`side: is missing`,
 * `bids: is "x", not an array`), so a dead letter says the same whichever of the two found it.
 * Leaves are `z.custom` checks (one function call a field: book records are the loaders' hot path).
 */

/** What JSON decoding gave: no check (the bus decoded it), typed as JSON. */
const anyJson = z.custom<Json | undefined>();

/** What a value is, in a reason: `"x"`, `an object`, `missing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const shown = JSON.stringify(value);
  return shown.length > 40 ? `${shown.slice(0, 37)}…` : shown;
}

const absent = (v: unknown): v is null | undefined => v === undefined || v === null;
const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const isPlainObject = (v: unknown): v is Record<string, Json | undefined> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A field checked by `test`; its misfit reads `is missing`, or `is <what it is>, not <what>`. */
export function leaf<T>(test: (value: unknown) => boolean, what: string) {
  return z.custom<T>(test, {
    error: (issue) =>
      absent(issue.input) || issue.input === '' ? 'is missing' : `is ${describeValue(issue.input)}, not ${what}`,
  });
}

/** A value as sent (text, number or boolean), absent or null allowed. */
export const scalar = leaf<string | number | boolean | null | undefined>(
  (v) => absent(v) || isScalar(v),
  'a single value',
).optional();
/** A value that must be there (not absent, null or empty text). */
export const requiredScalar = leaf<string | number | boolean>((v) => isScalar(v) && v !== '', 'a single value');
/** An integer as sent (decimal text or a JSON number; the encoder checks it fits its column), absent or null allowed.
 */
export const integer = leaf<string | number | null | undefined>(
  (v) => absent(v) || typeof v === 'string' || typeof v === 'number',
  'an integer',
).optional();
export const requiredInteger = leaf<string | number>(
  (v) => (typeof v === 'string' && v !== '') || typeof v === 'number',
  'an integer',
);
/** A list whose entries the mapper reads itself (absent or null: none). */
export const list = leaf<Json[] | null | undefined>((v) => absent(v) || Array.isArray(v), 'an array').optional();
/** An object whose fields the mapper reads itself (absent or null: none). */
export const object = leaf<Record<string, Json | undefined> | null | undefined>(
  (v) => absent(v) || isPlainObject(v),
  'an object',
).optional();

/** An object that must be there. */
export const requiredObject = leaf<Record<string, Json | undefined>>(isPlainObject, 'an object');

/** A JSON object with these fields checked and every other field kept as sent. */
export function loose<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape, { error: (issue) => `is ${describeValue(issue.input)}, not an object` }).catchall(anyJson);
}

/**
 * A stream payload: the frame's `data`, as capture publishes it. A payload that is the whole frame
 * (`{type, seq, ts, data}`, the form of earlier records) is read through to its data, keeping the
 * frame's `ts` when the data has none, so either form reads the same.
 */
export function streamData<Schema extends z.ZodType>(schema: Schema): z.ZodType<z.output<Schema>, z.input<Schema>> {
  // Typed as the schema's own input: what a producer writes is the data, and the compiler checks it against the type.
  return z.preprocess((value) => {
    if (!isPlainObject(value) || typeof value.type !== 'string' || !isPlainObject(value.data)) return value;
    const data = value.data;
    return data.ts === undefined && value.ts !== undefined ? { ...data, ts: value.ts } : data;
  }, schema);
}

/**
 * A payload of one of two forms, `form` telling which: parsed by that form's schema alone, so a
 * misfit names its field in that form (a union would only say that neither fits).
 */
export function eitherForm<A extends z.ZodType, B extends z.ZodType>(
  isA: (value: unknown) => boolean,
  a: A,
  b: B,
): z.ZodType<z.output<A> | z.output<B>, z.input<A> | z.input<B>> {
  return z.unknown().transform((value, ctx) => {
    const parsed = (isA(value) ? a : b).safeParse(value);
    if (parsed.success) return parsed.data as z.output<A> | z.output<B>;
    for (const issue of parsed.error.issues)
      ctx.issues.push({ code: 'custom', path: issue.path, message: issue.message, input: value });
    return z.NEVER;
  }) as unknown as z.ZodType<z.output<A> | z.output<B>, z.input<A> | z.input<B>>;
}

/**
 * The first misfit of a failed parse: its field as a path (`payload` for the whole), what was
 * wrong, and, for a range rule's misfit, which (`range`).
 */
export function firstIssue(error: z.ZodError): { field: string; reason: string; range?: RangeMisfit } {
  const issue = error.issues[0]!;
  let field = '';
  for (const part of issue.path)
    field += typeof part === 'number' ? `[${part}]` : field === '' ? String(part) : `.${String(part)}`;
  const range = issue.code === 'custom' ? (issue.params as RangeMisfit | undefined) : undefined;
  return { field: field || 'payload', reason: issue.message, ...(range?.code ? { range } : {}) };
}

// ---- range rules: what a value must be, beyond its shape (one rule for capture and the loaders) ----

/** One micro-unit of price: prices lie strictly inside (0, PRICE_ONE). */
const PRICE_ONE = 1_000_000;

/** What a range misfit is: capture's `data_quality` problem, and the loaders' dead-letter code. */
export interface RangeMisfit {
  problem: 'price_out_of_range' | 'negative_or_fractional_size';
  code: 'value_out_of_range';
}

/** A whole number as sent (decimal text or a JSON number), or null: other forms are the encoder's to refuse. */
function wholeValue(value: unknown): number | null {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,19}$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) ? n : null;
}

/**
 * Range rules over an object's fields: each of `prices` (absent or null: not checked) strictly
 * inside (0, 1); each of `sizes` at least `least` micro-units. A misfit names the field and carries
 * its `RangeMisfit` in the issue's params.
 */
export function inRange(prices: readonly string[], sizes: readonly string[], least = 0) {
  return (payload: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    for (const field of prices) {
      const n = wholeValue(payload[field]);
      if (n !== null && (n <= 0 || n >= PRICE_ONE))
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${describeValue(payload[field])} is outside (0, 1)`,
          params: { problem: 'price_out_of_range', code: 'value_out_of_range' } satisfies RangeMisfit,
        });
    }
    for (const field of sizes) {
      const n = wholeValue(payload[field]);
      if (n !== null && n < least)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message:
            least === 0
              ? `${describeValue(payload[field])} is negative`
              : `${describeValue(payload[field])} is below ${least}`,
          params: { problem: 'negative_or_fractional_size', code: 'value_out_of_range' } satisfies RangeMisfit,
        });
    }
  };
}
