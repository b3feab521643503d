import { PayloadError, type ReceivedRecord, type Json } from '../../../bus/record.ts';
import { readBookUpdates, type ReadUpdate, isLeanForm } from '../../../records/index.ts';
import {
  arrayField,
  checkedPrice,
  checkedSize,
  integer,
  isObject,
  MappingError,
  payloadObject,
  requiredInteger,
  requiredText,
  text,
  timeMs,
  type Payload,
} from '../fields.ts';
import { eventMs, frameOrder } from '../record-times.ts';
import { bookSide } from '../stream-payload.ts';
import type { MappedRow, Mapper, Row } from '../types.ts';

/**
 * Book updates' level changes (capture diffs replacement snapshots, or applies a delta): one
 * book_changes row per level. Capture writes records of many updates in its lean form
 * (src/records/book-change-form.ts): each update's rows carry its own sequence, venue time,
 * receive time (`_received_at`) and raw frame (`_raw`, on its first row, when capture kept it).
 * Records of one update in the earlier form — `bids`/`asks` lists of `[price, size]` pairs with
 * `sequence`, `venue_sequence` and `update` — are read too, and a `changes` list of
 * `{side, price_micro, size_micro}` objects; their prices must lie inside (0, 1) and their sizes
 * must not be negative (capture checks the lean form's levels). Every field of the payload has a
 * column, so a record published without its raw frame keeps no `_raw` either.
 */
export const bookChangeMapper: Mapper<'book_change'> = {
  table: 'book_changes',
  coversPayload: true,
  map(record) {
    if (isLeanForm(record.payload)) return batchRows(record);
    const p = record.payload;
    const head: Head = {
      tokenId: requiredText(p, 'token_id'),
      conditionId: text(p, 'condition_id'),
      changedAt: eventMs(record, p, ['changed_at', 'ts']),
      sequence: integer(p, 'sequence'),
      venueSequence: integer(p, 'venue_sequence'),
      updateKind: text(p, 'update', text(p, 'update_kind', text(p, 'kind'))),
      ...frameOrder(record),
    };
    const rows: MappedRow[] = [];
    for (const side of ['bids', 'asks'] as const) {
      arrayField(p, side).forEach((level, i) =>
        rows.push({ table: 'book_changes', row: pairRow(head, side, level, `${side}[${i}]`) }),
      );
    }
    arrayField(p, 'changes').forEach((change, i) =>
      rows.push({ table: 'book_changes', row: changeRow(head, payloadObject(change, `changes[${i}]`)) }),
    );
    if (rows.length === 0) throw new MappingError('bids', 'a book change record without any level change');
    return rows;
  },
};

const UPDATE_KINDS = { snapshot: 'snapshot', delta: 'delta', reseed: 'reseed' } as const;

function batchRows(record: ReceivedRecord): MappedRow[] {
  let updates: ReadUpdate[];
  try {
    updates = readBookUpdates(record);
  } catch (error) {
    if (error instanceof PayloadError) throw new MappingError(error.path.replace(/^\./, ''), error.reason);
    throw error;
  }
  const rows: MappedRow[] = [];
  // The record's updates share a connection (book-change-form.ts); each has its own frame.
  const { frame_conn } = frameOrder(record);
  for (const u of updates) {
    const head: Head = {
      tokenId: u.tokenId,
      conditionId: u.conditionId,
      changedAt: u.venueMs ?? timeMs(u.venueTime, 'venue_time') ?? Number(u.receivedAtUs / 1000n),
      // A number while exact: the encoder then writes it without reading digits.
      sequence: u.sequence <= MAX_SAFE ? Number(u.sequence) : u.sequence.toString(),
      venueSequence: u.venueSequence ?? undefined,
      updateKind: UPDATE_KINDS[u.update],
      frame_conn,
      frame_seq: u.frameSeq ?? 0,
    };
    const first = rows.length;
    // Each update keeps its own receive time and, on its first row, its raw frame.
    const raw = u.raw ?? '';
    for (let i = 0; i < u.bids.length; i += 2)
      rows.push({
        table: 'book_changes',
        row: levelRow(
          head,
          'BID',
          u.bids[i]!,
          u.bids[i + 1]!,
          undefined,
          u.receivedAtUs,
          rows.length === first ? raw : '',
        ),
      });
    for (let i = 0; i < u.asks.length; i += 2)
      rows.push({
        table: 'book_changes',
        row: levelRow(
          head,
          'ASK',
          u.asks[i]!,
          u.asks[i + 1]!,
          undefined,
          u.receivedAtUs,
          rows.length === first ? raw : '',
        ),
      });
    if (rows.length === first) throw new MappingError('u', 'an update without any level change');
  }
  return rows;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** What the rows of one update share. */
interface Head {
  tokenId: string;
  conditionId: string;
  changedAt: number;
  sequence: string | number | undefined;
  venueSequence: string | number | undefined;
  updateKind: string;
  frame_conn: number;
  frame_seq: number;
}

function pairRow(head: Head, side: 'bids' | 'asks', level: Json, field: string): Row {
  const [price, size] = Array.isArray(level)
    ? level
    : isObject(level)
      ? [level.price_micro, level.size_micro ?? level.shares_micro]
      : [];
  if (
    (typeof price !== 'string' && typeof price !== 'number') ||
    (typeof size !== 'string' && typeof size !== 'number')
  ) {
    throw new MappingError(field, 'is not a [price, size] level');
  }
  return levelRow(
    head,
    bookSide(side),
    checkedPrice(price, `${field} price`),
    checkedSize(size, `${field} size`),
    undefined,
  );
}

function changeRow(head: Head, level: Payload): Row {
  const size = checkedSize(integer(level, 'size_micro') ?? requiredInteger(level, 'shares_micro'), 'size_micro');
  return levelRow(
    head,
    bookSide(requiredText(level, 'side')),
    checkedPrice(requiredInteger(level, 'price_micro'), 'price_micro'),
    size,
    integer(level, 'previous_size_micro'),
  );
}

// One literal with every column, provenance included (the loader stamps it; a lean-form update
// brings its own receive time and raw frame): the hot path of the loaders (most rows are book
// changes), and V8 builds such objects, never changing shape, an order of magnitude faster than
// spread copies or properties added later.
function levelRow(
  head: Head,
  side: string,
  price: string | number,
  size: string | number,
  previous: string | number | undefined,
  receivedAtUs?: bigint,
  raw?: string,
): Row {
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
    frame_conn: head.frame_conn,
    frame_seq: head.frame_seq,
    _topic: '',
    _partition: 0,
    _offset: 0n,
    _index: 0,
    _received_at: receivedAtUs,
    _raw: raw,
  };
}
