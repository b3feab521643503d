import type { Json } from '../../../bus/record.ts';
import { arrayField, integer, isObject, MappingError, payloadObject, requiredInteger, requiredText, text, type Payload } from '../fields.ts';
import { eventMs } from '../record-times.ts';
import { bookSide, streamPayload } from '../stream-payload.ts';
import type { MappedRow, Mapper, Row } from '../types.ts';

/**
 * A book update's level changes (capture diffs replacement snapshots, or applies a delta): one
 * book_changes row per level. Capture writes them as `bids`/`asks` lists of `[price, size]` pairs
 * with its per-token `sequence`, the venue's `venue_sequence` and how they were derived (`update`);
 * a `changes` list of `{side, price_micro, size_micro}` objects is read too. Every field of the
 * payload has a column, so a record published without its raw frame keeps no `_raw` either.
 */
export const bookChangeMapper: Mapper = {
  table: 'book_changes',
  coversPayload: true,
  map(record) {
    const p = streamPayload(record);
    const head = {
      token_id: requiredText(p, 'token_id'),
      condition_id: text(p, 'condition_id'),
      changed_at: eventMs(record, p, ['changed_at', 'ts']),
      sequence: integer(p, 'sequence'),
      venue_sequence: integer(p, 'venue_sequence'),
      update_kind: text(p, 'update', text(p, 'update_kind', text(p, 'kind'))),
    };
    const rows: MappedRow[] = [];
    for (const side of ['bids', 'asks'] as const) {
      arrayField(p, side).forEach((level, i) => rows.push({ table: 'book_changes', row: pairRow(head, side, level, `${side}[${i}]`) }));
    }
    arrayField(p, 'changes').forEach((change, i) => rows.push({ table: 'book_changes', row: changeRow(head, payloadObject(change, `changes[${i}]`)) }));
    if (rows.length === 0) throw new MappingError('bids', 'a book change record without any level change');
    return rows;
  },
};

type Head = Omit<Row, 'side' | 'price_micro' | 'size_micro'>;

function pairRow(head: Head, side: 'bids' | 'asks', level: Json, field: string): Row {
  const [price, size] = Array.isArray(level) ? level : isObject(level) ? [level.price_micro, level.size_micro ?? level.shares_micro] : [];
  if ((typeof price !== 'string' && typeof price !== 'number') || (typeof size !== 'string' && typeof size !== 'number')) {
    throw new MappingError(field, 'is not a [price, size] level');
  }
  return { ...head, side: bookSide(side), price_micro: price, size_micro: size };
}

function changeRow(head: Head, level: Payload): Row {
  return {
    ...head,
    side: bookSide(requiredText(level, 'side')),
    price_micro: requiredInteger(level, 'price_micro'),
    size_micro: integer(level, 'size_micro') ?? requiredInteger(level, 'shares_micro'),
    previous_size_micro: integer(level, 'previous_size_micro'),
  };
}
