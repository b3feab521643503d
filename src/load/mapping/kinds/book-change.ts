import type { Json } from '../../../bus/record.ts';
import { arrayField, integer, MappingError, payloadObject, requiredInteger, requiredText, text } from '../fields.ts';
import { eventMs } from '../record-times.ts';
import { bookSide, streamPayload } from '../stream-payload.ts';
import type { MappedRow, Mapper } from '../types.ts';

/**
 * A book frame's level changes (capture diffs replacement snapshots, or applies a delta): one
 * book_changes row per level, in the record's order. Each change is `{side, price_micro,
 * size_micro}` (`shares_micro` is read too), with `previous_size_micro` when capture knows it.
 */
export const bookChangeMapper: Mapper = {
  table: 'book_changes',
  map(record) {
    const p = streamPayload(record);
    const changes = p.changes !== undefined ? arrayField(p, 'changes') : arrayField(p, 'levels');
    if (changes.length === 0) throw new MappingError('changes', 'a book change record without any level change');
    const tokenId = requiredText(p, 'token_id');
    const conditionId = text(p, 'condition_id');
    const changedAt = eventMs(record, p, ['changed_at', 'ts']);
    const sequence = integer(p, 'sequence');
    const updateKind = text(p, 'update_kind', text(p, 'kind'));
    return changes.map((change: Json, i): MappedRow => {
      const level = payloadObject(change, `changes[${i}]`);
      return {
        table: 'book_changes',
        row: {
          token_id: tokenId,
          condition_id: conditionId,
          side: bookSide(requiredText(level, 'side')),
          price_micro: requiredInteger(level, 'price_micro'),
          size_micro: integer(level, 'size_micro') ?? requiredInteger(level, 'shares_micro'),
          previous_size_micro: integer(level, 'previous_size_micro'),
          changed_at: changedAt,
          sequence,
          update_kind: updateKind,
        },
      };
    });
  },
};
