import { arrayField, MappingError, objectField, payloadObject, text } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { MappedRow, Mapper } from '../types.ts';

/**
 * A read of the live sports sections (the whole answer is one record): one sports_section_reads
 * row, even with no section, and one sports_sections row per section, in the venue's order.
 */
export const sportsSectionsMapper: Mapper<'sports_sections'> = {
  table: 'sports_sections',
  map(record) {
    const p = record.payload;
    const observedAt = observedMs(record);
    const sections = arrayField(p, 'sections').map((entry, i) => {
      const section = payloadObject(entry, `sections[${i}]`);
      const category = objectField(section, 'category') ?? {};
      const eventIds = arrayField(section, 'event_ids').map((id, j) => {
        if (typeof id !== 'string') throw new MappingError(`sections[${i}].event_ids[${j}]`, 'is not a string');
        return id;
      });
      return { category_slug: text(category, 'slug'), category_label: text(category, 'label'), event_ids: eventIds };
    });
    const rows: MappedRow[] = [
      {
        table: 'sports_section_reads',
        row: {
          observed_at: observedAt,
          section_count: sections.length,
          event_count: sections.reduce((n, s) => n + s.event_ids.length, 0),
        },
      },
    ];
    sections.forEach((section, position) =>
      rows.push({ table: 'sports_sections', row: { observed_at: observedAt, position, ...section } }),
    );
    return rows;
  },
};
