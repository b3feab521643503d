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
    const head: Head = {
      tokenId: requiredText(p, 'token_id'),
      conditionId: text(p, 'condition_id'),
      changedAt: eventMs(record, p, ['changed_at', 'ts']),
      sequence: integer(p, 'sequence'),
      venueSequence: integer(p, 'venue_sequence'),
      updateKind: text(p, 'update', text(p, 'update_kind', text(p, 'kind'))),
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

/** What the rows of one update share. */
interface Head {
  tokenId: string;
  conditionId: string;
  changedAt: number;
  sequence: string | number | undefined;
  venueSequence: string | number | undefined;
  updateKind: string;
}

function pairRow(head: Head, side: 'bids' | 'asks', level: Json, field: string): Row {
  const [price, size] = Array.isArray(level) ? level : isObject(level) ? [level.price_micro, level.size_micro ?? level.shares_micro] : [];
  if ((typeof price !== 'string' && typeof price !== 'number') || (typeof size !== 'string' && typeof size !== 'number')) {
    throw new MappingError(field, 'is not a [price, size] level');
  }
  return levelRow(head, bookSide(side), price, size, undefined);
}

function changeRow(head: Head, level: Payload): Row {
  const size = integer(level, 'size_micro') ?? requiredInteger(level, 'shares_micro');
  return levelRow(head, bookSide(requiredText(level, 'side')), requiredInteger(level, 'price_micro'), size, integer(level, 'previous_size_micro'));
}

// One literal with every column, in one order: the hot path of the loaders (most rows are book
// changes), and V8 builds such objects an order of magnitude faster than spread copies.
function levelRow(head: Head, side: string, price: string | number, size: string | number, previous: string | number | undefined): Row {
  return {
    token_id: head.tokenId,
    condition_id: head.conditionId,
    side,
    price_micro: price,
    size_micro: size,
    previous_size_micro: previous,
    changed_at: head.changedAt,
    sequence: head.sequence,
    venue_sequence: head.venueSequence,
    update_kind: head.updateKind,
  };
}
