import { arrayField, flag, integer, objectField, payloadObject, text, type Payload } from '../fields.ts';
import type { Json } from '../../../bus/record.ts';
import { observedMs } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/**
 * A read of GET /categories/{slug}: one categories row. The answer's shape is not shown by the
 * interface: slug and label are read, and the tree fields (`root_slug`, `parent`, `path`,
 * `children`, `is_leaf`, `event_count`) when the venue sends them; everything stays in `_raw`.
 * No answer (404 category_not_found) is a row with `found = false`.
 */
export const categoryMapper: Mapper<'category'> = {
  table: 'categories',
  map(record) {
    const p = record.payload;
    const slug = String(p.slug);
    const answer: Payload | undefined =
      p.answer === null || p.answer === undefined ? undefined : payloadObject(p.answer, 'answer');
    const a = answer ?? {};
    const path = arrayField(a, 'path').map((step, i) => payloadObject(step, `answer.path[${i}]`));
    const pathSlugs = path.map((step) => text(step, 'slug'));
    const parent = objectField(a, 'parent');
    const isLeaf = flag(a, 'is_leaf');
    return [
      {
        table: 'categories',
        row: {
          slug,
          found: answer !== undefined,
          label: text(a, 'label'),
          root_slug: text(a, 'root_slug', pathSlugs[0] ?? ''),
          // The parent: named, else the step before the category itself on its path.
          parent_slug: parent
            ? text(parent, 'slug')
            : pathSlugs.length > 1 && pathSlugs[pathSlugs.length - 1] === slug
              ? (pathSlugs[pathSlugs.length - 2] ?? '')
              : '',
          path_slugs: pathSlugs,
          path_labels: path.map((step) => text(step, 'label')),
          child_slugs: arrayField(a, 'children').map((child: Json, i) =>
            text(payloadObject(child, `answer.children[${i}]`), 'slug'),
          ),
          is_leaf: isLeaf ?? null,
          event_count: integer(a, 'event_count') ?? null,
          observed_at: observedMs(record),
        },
      },
    ];
  },
};
