import type { KeyHints } from '../kind.ts';

const text = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;

/**
 * Market data is keyed by `condition_id`, so both outcomes of a market (and a book's snapshots
 * with its changes) share a partition, in order; the token while its condition is unknown.
 */
export const conditionOrToken = {
  what: 'condition_id',
  of: (payload: { condition_id?: unknown; token_id?: unknown }, hints: KeyHints): string =>
    text(payload.condition_id) ?? hints.conditionId ?? text(payload.token_id) ?? '',
} as const;

/** A REST kind keyed by one of its own fields. */
export function byField<F extends string>(field: F, what: string = field) {
  return {
    what,
    of: (payload: { [key in F]?: unknown }): string => text(payload[field]) ?? '',
  } as const;
}
