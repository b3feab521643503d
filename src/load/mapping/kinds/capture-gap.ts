import type { Json } from '../../../bus/record.ts';
import { arrayField, integer, MappingError, requiredText, scalar, text, timeUs, type Payload } from '../fields.ts';
import { streamPayload } from '../stream-payload.ts';
import type { MappedRow, Mapper, Row } from '../types.ts';

/**
 * A gap in coverage found by capture: one capture_gaps row per subject it names. The scope is a
 * single `subject` (with `subject_kind`), or a list: `subjects`, `token_ids`, `condition_ids` or
 * `event_ids` (one row each, so a query for one token finds its gaps); none means the whole stream.
 * Bounds are `gap_start`/`gap_end` (ISO text with up to µs, or `…_us` decimal microseconds).
 */
export const captureGapMapper: Mapper = {
  table: 'capture_gaps',
  map(record) {
    const p = streamPayload(record);
    const gapStart = timeUs(p, 'gap_start');
    const gapEnd = timeUs(p, 'gap_end');
    if (gapStart === undefined) throw new MappingError('gap_start', 'is missing', 'invalid_time');
    if (gapEnd === undefined) throw new MappingError('gap_end', 'is missing', 'invalid_time');
    const base: Row = {
      stream: requiredText(p, 'stream'),
      channel: text(p, 'channel'),
      gap_start: gapStart,
      gap_end: gapEnd,
      reason: requiredText(p, 'reason'),
      recovery: text(p, 'recovery'),
      last_sequence_before: integer(p, 'last_sequence_before'),
      first_sequence_after: integer(p, 'first_sequence_after'),
      detail: detailText(p),
    };
    return subjects(p).map(([kind, subject]): MappedRow => ({ table: 'capture_gaps', row: { ...base, subject_kind: kind, subject } }));
  },
};

const SUBJECT_LISTS: ReadonlyArray<[field: string, kind: string]> = [
  ['token_ids', 'token'],
  ['condition_ids', 'condition'],
  ['event_ids', 'event'],
];

function subjects(p: Payload): Array<[kind: string, subject: string]> {
  const kind = text(p, 'subject_kind');
  const listed = arrayField(p, 'subjects');
  if (listed.length > 0) return listed.map((subject, i) => [kind, subjectText(subject, i)]);
  for (const [field, listKind] of SUBJECT_LISTS) {
    const ids = arrayField(p, field);
    if (ids.length > 0) return ids.map((id, i) => [listKind, subjectText(id, i)]);
  }
  return [[kind, text(p, 'subject')]];
}

function subjectText(value: Json, i: number): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new MappingError(`subjects[${i}]`, 'is not an id');
}

/** Free text; a structured detail (an error frame) is kept as its JSON. */
function detailText(p: Payload): string {
  const detail = p.detail;
  if (detail === undefined || detail === null) return '';
  return typeof detail === 'object' ? JSON.stringify(detail) : String(scalar(p, 'detail'));
}
