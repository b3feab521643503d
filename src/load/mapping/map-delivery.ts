import type { Delivery } from '../../bus/bus.ts';
import { encodeRecord, type ReceivedRecord } from '../../bus/record.ts';
import { firstIssue, PAYLOAD_SCHEMAS, type ReadRecord } from '../../records/index.ts';
import { MappingError } from './fields.ts';
import { MAPPERS } from './registry.ts';
import type { MappedRow, Mapper, Row, TableName } from './types.ts';

/** Where deliveries come from, stamped on every row as its provenance. */
export interface DeliverySource {
  topic: string;
  partition: number;
  /** The loader's consumer group (dead_letters.consumer_group). */
  group: string;
}

/**
 * The rows of one delivery: the record's rows, each with its provenance (`_topic`, `_partition`,
 * `_offset`, `_index` in record order, `_received_at`, the raw frame as `_raw` on the first row,
 * and the sync job and page for REST records) — or, when the bytes are not a record, its payload
 * does not fit its kind's schema (the bus boundary: the dead letter names the field), or the record
 * does not map, one dead_letters row saying why. Never throws for bad input.
 */
export function mapDelivery(delivery: Delivery, source: DeliverySource): MappedRow[] {
  if (!delivery.ok) return [undecodableLetter(delivery, source)];
  const record = delivery.record;
  // Each kind's mapper takes its kind's read payload: the pairing holds by kind, which TypeScript cannot follow through
  // a lookup.
  const mapper = MAPPERS[record.kind] as Mapper;
  let rows: MappedRow[];
  let raw: string;
  try {
    const parsed = PAYLOAD_SCHEMAS[record.kind].safeParse(record.payload);
    if (!parsed.success) {
      const misfit = firstIssue(parsed.error);
      return [
        deadLetter(
          record,
          delivery.offset,
          source,
          mapper.table,
          // A range rule's misfit (src/records/schema.ts, `inRange`) is a value out of range, as a mapper's was.
          misfit.range?.code ?? 'schema_mismatch',
          `${misfit.field}: ${misfit.reason}`,
        ),
      ];
    }
    const read = {
      kind: record.kind,
      key: record.key,
      venueTime: record.venueTime,
      receivedAtUs: record.receivedAtUs,
      source: record.source,
      payload: parsed.data,
      raw: record.raw,
    } as ReadRecord;
    rows = mapper.map(read);
    // Here too: a payload nested too deep to be written as JSON again fails this record, not the loader.
    raw = record.raw ?? (mapper.coversPayload ? '' : JSON.stringify(record.payload));
  } catch (error) {
    // A mapper that trips over a payload it did not foresee is a mapping failure like any other.
    const code = error instanceof MappingError ? error.code : 'mapping_failed';
    const reason =
      error instanceof RangeError
        ? `the payload cannot be written as JSON again (${error.message}): nested too deep`
        : error instanceof Error
          ? error.message
          : String(error);
    return [deadLetter(record, delivery.offset, source, mapper.table, code, reason)];
  }
  stamp(rows, record, delivery.offset, source, raw);
  return rows;
}

function stamp(rows: MappedRow[], record: ReceivedRecord, offset: bigint, source: DeliverySource, raw: string): void {
  const sync = record.source.type === 'sync' ? record.source : undefined;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!.row;
    row._topic = source.topic;
    row._partition = source.partition;
    row._offset = offset;
    row._index = i;
    // A record of several updates (book changes) sets each row's own receive time and raw frame.
    row._received_at ??= record.receivedAtUs;
    row._raw ??= i === 0 ? raw : '';
    if (sync) {
      row._sync_job = sync.job;
      // Pages count from 1 in the warehouse (0 means stream data).
      row._sync_page = sync.page + 1;
    }
  }
}

export type DeadLetterCode =
  | 'invalid_json'
  | 'invalid_envelope'
  | MappingError['code']
  | 'mapping_failed'
  | 'value_out_of_range'
  | 'rejected_by_warehouse';

/** A dead_letters row for a record that decoded but could not be stored in `table`. */
export function deadLetter(
  record: ReceivedRecord,
  offset: bigint,
  source: DeliverySource,
  table: TableName | '',
  code: DeadLetterCode,
  reason: string,
): MappedRow {
  const row: Row = {
    topic: source.topic,
    partition: source.partition,
    offset,
    key: record.key,
    consumer_group: source.group,
    target_table: table,
    error_code: code,
    reason,
    // The whole message as it travels on the bus, so it can be published again once fixed.
    raw: wireOf(record),
    received_at: record.receivedAtUs,
  };
  return { table: 'dead_letters', row };
}

/** The record's wire form; for a payload JSON cannot write again (nested too deep), the envelope and raw frame with a
 * note instead. */
function wireOf(record: ReceivedRecord): string {
  try {
    return encodeRecord(record);
  } catch (error) {
    return encodeRecord({
      ...record,
      payload: `(payload not kept: ${error instanceof Error ? error.message : String(error)})`,
    });
  }
}

function undecodableLetter(delivery: Extract<Delivery, { ok: false }>, source: DeliverySource): MappedRow {
  const bytes = Buffer.from(delivery.bytes.buffer, delivery.bytes.byteOffset, delivery.bytes.byteLength);
  const utf8 = !delivery.reason.startsWith('not valid UTF-8');
  const row: Row = {
    topic: source.topic,
    partition: source.partition,
    offset: delivery.offset,
    consumer_group: source.group,
    error_code: delivery.reason.startsWith('not JSON') || !utf8 ? 'invalid_json' : 'invalid_envelope',
    reason: utf8 ? delivery.reason : `${delivery.reason}; raw holds the bytes in base64`,
    raw: bytes.toString(utf8 ? 'utf8' : 'base64'),
  };
  return { table: 'dead_letters', row };
}
