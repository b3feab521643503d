import type { Category } from '../api/schemas/event.ts';
import type { Wire } from './json.ts';
import { loose, object, requiredScalar } from './schema.ts';

/**
 * What a `category` record is made from: one read of GET /categories/{slug} (shape not shown:
 * every field kept), `answer` null when the venue said 404 `category_not_found` for a slug it
 * named before (the category is gone, or not visible).
 */
export interface CategorySource {
  slug: string;
  answer: Category | null;
}

/**
 * `category` — sync.categories, key the slug; stored in `categories` (one row per observed
 * content: a category's history) and `categories_latest`. Made by the `categories` job. `raw`
 * holds the answer as received.
 */
export type CategoryPayload = Wire<CategorySource>;

/** A `category` payload at the bus boundary: the slug, and the answer (an object, or null when the category is gone).
 */
export const categorySchema = loose({ slug: requiredScalar, answer: object });
