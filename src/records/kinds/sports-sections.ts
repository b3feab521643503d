import { declareKind, SYNC_TOPIC } from '../kind.ts';
import { sportsSectionsSchema, type SportsSectionsPayload, type SportsSectionsSource } from '../sports-sections.ts';

/** `sports_sections`: a REST read of the sync jobs (src/records/sports-sections.ts). */
export const sportsSections = declareKind<SportsSectionsPayload, SportsSectionsSource>()({
  name: 'sports_sections',
  schema: sportsSectionsSchema,
  topic: { suffix: 'sync.sports_sections', ...SYNC_TOPIC, key: { what: 'sports_live', of: () => 'sports_live' } },
  tables: ['sports_sections', 'sports_section_reads'],
  producer: 'sync',
  from: 'sync `sports_sections`: `{sections}` of a filter=sports_live read; `sports_section_reads` one per read (even empty), `sports_sections` one per section',
});
