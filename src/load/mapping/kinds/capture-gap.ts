import type { Json } from '../../../bus/record.ts';
import { arrayField, flag, integer, MappingError, objectField, text, timeUs, type Payload } from '../fields.ts';
import type { MappedRow, Mapper, Row } from '../types.ts';

/**
 * A gap in coverage found by capture: one capture_gaps row per channel and subject of its scope,
 * so a query for one token (or condition, or event) and channel finds its gaps. Capture's scope is
 * `{all, channels, token_ids, condition_ids, event_ids}` (`all`: the whole stream, one row); a flat
 * `subject_kind`/`subject` is read too. Bounds are `gap_start`/`gap_end` (ISO text with up to µs,
 * or `…_us` decimal microseconds); a gap without an end is coverage ended on purpose (the market
 * left the catalogue), written as a gap of no length at its start.
 */
export const captureGapMapper: Mapper<'capture_gap'> = {
  table: 'capture_gaps',
  map(record) {
    const p = record.payload;
    const gapStart = timeUs(p, 'gap_start');
    if (gapStart === undefined) throw new MappingError('gap_start', 'is missing', 'invalid_time');
    const stream = String(p.stream);
    const gapEnd = timeUs(p, 'gap_end') ?? gapStart;
    const reason = String(p.reason);
    const recovery = text(p, 'recovery');
    const before = integer(p, 'last_sequence_before');
    const after = integer(p, 'first_sequence_after');
    const detail = detailText(p);
    const rows: MappedRow[] = [];
    for (const channel of channels(p)) {
      for (const [kind, subject] of subjects(p)) {
        const row: Row = {
          stream,
          channel,
          subject_kind: kind,
          subject,
          gap_start: gapStart,
          gap_end: gapEnd,
          reason,
          recovery,
          last_sequence_before: before,
          first_sequence_after: after,
          detail,
        };
        rows.push({ table: 'capture_gaps', row });
      }
    }
    return rows;
  },
};

const SUBJECT_LISTS: ReadonlyArray<[field: string, kind: string]> = [
  ['token_ids', 'token'],
  ['condition_ids', 'condition'],
  ['event_ids', 'event'],
];

function channels(p: Payload): string[] {
  const scope = objectField(p, 'scope');
  const listed =
    scope && !flag(scope, 'all') ? arrayField(scope, 'channels').map((c, i) => id(c, `scope.channels[${i}]`)) : [];
  return listed.length > 0 ? listed : [text(p, 'channel')];
}

function subjects(p: Payload): Array<[kind: string, subject: string]> {
  const scope = objectField(p, 'scope');
  if (scope && flag(scope, 'all')) return [['', '']];
  const lists = scope ?? p;
  const found: Array<[string, string]> = [];
  for (const [field, kind] of SUBJECT_LISTS) {
    arrayField(lists, field).forEach((value, i) => found.push([kind, id(value, `${field}[${i}]`)]));
  }
  return found.length > 0 ? found : [[text(p, 'subject_kind'), text(p, 'subject')]];
}

function id(value: Json, field: string): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new MappingError(field, 'is not an id');
}

/** Free text; a structured detail (an error frame) is kept as its JSON. */
function detailText(p: Payload): string {
  const detail = p.detail;
  if (detail === undefined || detail === null) return '';
  return typeof detail === 'object' ? JSON.stringify(detail) : String(detail);
}
