import { z } from 'zod';
import { checkMicro, type MicroRules } from '../micro.ts';

/**
 * Building blocks of the tolerant reader:
 * - objects are `z.looseObject`, so fields we do not know survive parsing;
 * - enums are open: known values are listed for editors, any other string is kept as is;
 * - `maybe()` marks a field the interface says can be absent (JSON null counts as absent);
 * - a present field of the wrong type fails, and zod's issue path names it.
 */

/** A value from a known list, or a newer value the interface added later (kept verbatim). */
export type OpenEnum<Known extends string> = Known | (string & {});

export function openEnum<const Known extends readonly string[]>(_known: Known) {
  return z.string().transform((value): OpenEnum<Known[number]> => value);
}

export function maybe<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (value === null ? undefined : value), schema.optional());
}

function microAmount(rules: MicroRules) {
  return z.unknown().transform((input, ctx): bigint => {
    const result = checkMicro(input, rules);
    if (result.ok) return result.value;
    ctx.issues.push({ code: 'custom', message: result.reason, input });
    return z.NEVER;
  });
}

/** A price, size or amount: non-negative decimal string → bigint. */
export const micro = microAmount({ sign: 'non-negative', form: 'string' });
/** A profit or loss: may be negative. */
export const signedMicro = microAmount({ sign: 'signed', form: 'string' });
/** A `_micro` field the interface types as an integer (a decimal string is accepted too). */
export const microInteger = microAmount({ sign: 'non-negative', form: 'integer' });

/** ISO 8601 UTC; kept as the venue's string so no precision or zone is lost. */
export const timestamp = z.string();
export const text = z.string();
export const integer = z.number().int();
export const number = z.number();
export const flag = z.boolean();
/** Free-form maps (`service_cms`) and objects whose contents the interface does not show. */
export const freeMap = z.record(z.string(), z.unknown());
export const opaqueObject = z.looseObject({});
/** A field the interface names without a type: kept exactly as received, whatever it is. */
export const untyped = z.unknown().optional();
/** Chain ids are typed integer only in settled PnL; elsewhere their type is not shown, so a string is kept too. */
export const chainId = z.union([z.number().int(), z.string()]);

export const EXCHANGES = ['SERVICE'] as const;
export const exchange = openEnum(EXCHANGES);
export const SIDES = ['BUY', 'SELL'] as const;
export const side = openEnum(SIDES);

/** `{slug, label}` pairs used by categories and sections. */
export const SlugLabelSchema = z.looseObject({ slug: text, label: maybe(text) });

/** `pagination` of cursor-paged responses; a missing or null `next_cursor` means the last page. */
export const PaginationSchema = z.looseObject({
  limit: maybe(integer),
  next_cursor: maybe(text),
});
export type Pagination = z.infer<typeof PaginationSchema>;
