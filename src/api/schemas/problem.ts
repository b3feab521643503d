import { z } from 'zod';
import { integer, maybe, text } from './common.ts';
import { RecoverySchema } from './failure.ts';

/** One `field_errors` item: `path` segments are strings or integers. */
export const FieldErrorSchema = z.looseObject({
  path: z.array(z.union([z.string(), z.number().int()])),
  code: maybe(text),
  message: maybe(text),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

/** Problem Details (§7.1). Every field may be missing: the edge 429 (§7.8) omits `request_id`. */
export const ProblemSchema = z.looseObject({
  type: maybe(text),
  title: maybe(text),
  status: maybe(integer),
  code: maybe(text),
  detail: maybe(text),
  request_id: maybe(text),
  recovery: maybe(RecoverySchema),
  field_errors: maybe(z.array(FieldErrorSchema)),
});
export type Problem = z.infer<typeof ProblemSchema>;
