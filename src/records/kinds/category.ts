import { declareKind, SYNC_TOPIC } from '../kind.ts';
import { categorySchema, type CategoryPayload, type CategorySource } from '../category.ts';
import { byField } from './keys.ts';

/** `category`: a REST read of the sync jobs (src/records/category.ts). */
export const category = declareKind<CategoryPayload, CategorySource>()({
  name: 'category',
  schema: categorySchema,
  topic: { suffix: 'sync.categories', ...SYNC_TOPIC, key: byField('slug', 'category slug') },
  tables: ['categories'],
  producer: 'sync',
  from: 'sync `categories`: `{slug, answer}`, `answer` null when the slug is gone; one row per observed content (`categories_latest`)',
});
