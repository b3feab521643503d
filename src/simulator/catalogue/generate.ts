import { Prng } from '../prng.ts';
import { CategoryTree } from './categories.ts';
import { GenContext } from './gen-context.ts';
import { generateGames } from './generate-games.ts';
import { generateMultiOutcome, generatePropositions } from './generate-propositions.ts';
import { generateRecurring, type RecurringBacklog } from './generate-recurring.ts';
import type { SimEvent, SimMarket } from './types.ts';

export interface CatalogueShape {
  games: number;
  propositions: number;
  multiOutcome: number;
  recurring: number;
  recurringBacklog: RecurringBacklog;
  /** Probability that an ACTIVE market starts halted. */
  haltRate: number;
  /** Cycle length of every recurring series, instead of their own 15 min, 1 h and 1 day (short cycles for tests). */
  recurringCadenceSeconds?: number;
}

export const DEFAULT_CATALOGUE_SHAPE: CatalogueShape = {
  games: 18,
  propositions: 16,
  multiOutcome: 5,
  recurring: 3,
  recurringBacklog: { settled: 55, unsettled: 52, upcoming: 51 },
  haltRate: 0.03,
};

export interface GeneratedCatalogue {
  tree: CategoryTree;
  events: SimEvent[];
  markets: SimMarket[];
}

/** Same seed (or the same generator) and start time → the same catalogue, to the id. */
export function generateCatalogue(
  seed: number | Prng,
  nowMs: number,
  shape: CatalogueShape = DEFAULT_CATALOGUE_SHAPE,
): GeneratedCatalogue {
  const tree = new CategoryTree();
  const ctx = new GenContext(
    typeof seed === 'number' ? Prng.forStream(seed, 'catalogue') : seed,
    nowMs,
    tree,
    shape.haltRate,
  );
  generateGames(ctx, shape.games);
  generatePropositions(ctx, shape.propositions);
  generateMultiOutcome(ctx, shape.multiOutcome);
  generateRecurring(ctx, shape.recurring, shape.recurringBacklog, shape.recurringCadenceSeconds);
  linkRelatedEvents(ctx);
  return { tree, events: ctx.events, markets: ctx.markets };
}

/** Curated related events: up to three others from the same root category. */
function linkRelatedEvents(ctx: GenContext): void {
  const rootOf = (e: SimEvent): string => e.categoryKeys[0]?.split('/')[0] ?? '';
  for (const event of ctx.events) {
    event.relatedEventIds = ctx.events
      .filter((other) => other.id !== event.id && other.archivedAtMs === undefined && rootOf(other) === rootOf(event))
      .slice(0, 3)
      .map((other) => other.id);
  }
}
