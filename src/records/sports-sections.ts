import type { Section } from '../api/schemas/event.ts';
import type { Wire } from './json.ts';
import { list, loose } from './schema.ts';

/** What a `sports_sections` record is made from: the sections of one GET /api/v1/events?filter=sports_live answer, as
 * the client parsed them. */
export interface SportsSectionsSource {
  sections: Section[];
}

/**
 * `sports_sections` — sync.sports_sections, key `sports_live`; stored in `sports_section_reads` (one
 * row per read, even with no section) and `sports_sections` (one row per section per read). The
 * whole answer's sections, so a section that is gone is seen gone. Made by the `sports_sections`
 * job (its events go on as `event` records). `raw` holds `{sections}` as received.
 */
export type SportsSectionsPayload = Wire<SportsSectionsSource>;

/** A `sports_sections` payload at the bus boundary: the sections (each checked by the loader). */
export const sportsSectionsSchema = loose({ sections: list });
