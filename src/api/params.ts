import { InvalidArgumentError } from './errors.ts';

/** §8.6 page sizes; the order list and open-orders list bounds are not shown (only "a positive integer" is checked). */
export const PAGE_SIZE = {
  events: { min: 1, max: 100 },
  activities: { min: 1, max: 500 },
  unbounded: { min: 1, max: Number.MAX_SAFE_INTEGER },
} as const;

/** Refuses a page size outside the interface's bounds before anything is sent. */
export function checkPageSize(name: string, limit: number | undefined, bounds: { min: number; max: number }): void {
  if (limit === undefined) return;
  if (!Number.isInteger(limit) || limit < bounds.min || limit > bounds.max) {
    throw new InvalidArgumentError(
      `${name}: limit must be an integer from ${bounds.min} to ${bounds.max}, got ${limit}`,
    );
  }
}
