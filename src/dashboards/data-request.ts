import { z } from 'zod';
import { parseTimeRange, type TimeRange } from './time-range.ts';
import type { VariableSelection } from './variables.ts';

/**
 * What a page may ask of the data endpoint: a time range, the variables' selections and which
 * panels. No SQL: the statements are the dashboard file's, and the values are checked against
 * the variables' own options before they are bound (see variables.ts).
 */

const MAX_VALUE_LENGTH = 1_000;
const MAX_VALUES = 1_000;

const requestSchema = z.object({
  from: z.union([z.string().max(64), z.number()]).default('now-6h'),
  to: z.union([z.string().max(64), z.number()]).default('now'),
  variables: z.record(z.string().max(100), z.array(z.string().max(MAX_VALUE_LENGTH)).max(MAX_VALUES)).default({}),
  panels: z.array(z.number().int()).max(1_000).optional(),
  /** The range is the dashboard's default, not one the user chose: start it where the data starts. */
  fit: z.boolean().default(false),
});

export interface DataRequest {
  range: TimeRange;
  selection: VariableSelection;
  panelIds: ReadonlySet<number> | undefined;
  fit: boolean;
}

export class BadDataRequest extends Error {
  override name = 'BadDataRequest';
}

export function parseDataRequest(body: unknown, now = new Date()): DataRequest {
  const parsed = requestSchema.safeParse(body);
  if (!parsed.success) throw new BadDataRequest(z.prettifyError(parsed.error));
  const { from, to, variables, panels, fit } = parsed.data;
  try {
    return {
      range: parseTimeRange(from, to, now),
      selection: variables,
      panelIds: panels ? new Set(panels) : undefined,
      fit,
    };
  } catch (err) {
    throw new BadDataRequest((err as Error).message);
  }
}
