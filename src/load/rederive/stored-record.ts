import type { Json, ReceivedRecord, RecordKind, RecordSource } from '../../bus/record.ts';
import { MAPPERS } from '../mapping/registry.ts';
import type { TableName } from '../mapping/types.ts';

/**
 * What `tapehouse rederive` can rebuild: a table whose rows keep their record's `_raw`, and how a
 * stored row becomes its record again. A record's raw text is on its first row (`_index = 0`) in
 * the table of its kind's mapper; the record is rebuilt from it and that row's provenance, mapped
 * again by today's mapper, and its rows of this table replace the stored ones.
 */
export interface RederivableTable {
  table: TableName;
  kind: RecordKind;
  /**
   * The column that holds the time the mapper took from the record's venue time when the payload
   * had none: given back as the rebuilt record's venue time, so every time comes out as it did.
   */
  timeColumn: string;
  /** The column that was the record's key, when the mapper reads the key (the account). */
  keyColumn?: string;
  /** The table has the sync jobs' provenance (`_sync_job`, `_sync_page`): some of its records came from them. */
  synced?: boolean;
  /** Columns the producer added to the payload that the raw text lacks (a market's `event_id`, a quote's sizes). */
  payloadColumns?: readonly string[];
  /**
   * The table keeps where a stream row's frame stood (`frame_conn`, `frame_seq`): the frame's `seq`
   * is read again from the raw frame's envelope, the connection's number (which no frame holds) kept
   * from the stored row.
   */
  framed?: boolean;
}

/** The tables whose records one kind's mapper makes, and whose rows carry those records' raw text. */
export const REDERIVABLE: Readonly<Record<string, RederivableTable>> = Object.fromEntries(
  (
    [
      { table: 'trades', kind: 'trade', timeColumn: 'executed_at', framed: true },
      // A quote's sizes come from capture's ladder, not from the frame (src/capture/market/market-records.ts).
      {
        table: 'quotes',
        kind: 'quote',
        timeColumn: 'quoted_at',
        payloadColumns: ['best_bid_size_micro', 'best_ask_size_micro'],
        framed: true,
      },
      { table: 'market_status', kind: 'market_status', timeColumn: 'status_at', framed: true },
      {
        table: 'account_events',
        kind: 'account_event',
        timeColumn: 'event_at',
        keyColumn: 'account',
        framed: true,
      },
      { table: 'events', kind: 'event', timeColumn: 'observed_at', synced: true },
      { table: 'markets', kind: 'market', timeColumn: 'observed_at', synced: true, payloadColumns: ['event_id'] },
      { table: 'order_observations', kind: 'order', timeColumn: 'observed_at', synced: true, keyColumn: 'account' },
      { table: 'fill_observations', kind: 'fill', timeColumn: 'observed_at', synced: true, keyColumn: 'account' },
    ] satisfies RederivableTable[]
  )
    // Held to the registry: a kind whose mapper moved to another table is no longer rebuilt here.
    .filter((t) => MAPPERS[t.kind].table === t.table)
    .map((t) => [t.table, t]),
);

/** A stored first row of a record, as `rederive` reads it. */
export interface StoredRow {
  _topic: string;
  _partition: number | string;
  _offset: string;
  /** Microseconds since the epoch, as text. */
  received_us: string;
  _sync_job: string;
  _sync_page: number | string;
  _raw: string;
  /** The time column, as epoch milliseconds. */
  time_ms: number | string;
  key: string;
  /** The payload columns, by name (null: NULL). */
  extra: Record<string, string | null>;
  /** The stored `frame_conn` as text ('0' where the table has none). */
  frame_conn: string;
}

/** The record a stored row was mapped from, as far as the row and its raw text tell. */
export function storedRecord(spec: RederivableTable, row: StoredRow): ReceivedRecord {
  const parsed = JSON.parse(row._raw) as Json;
  const payload = spec.payloadColumns && isPlainObject(parsed) ? withColumns(parsed, row.extra) : parsed;
  const page = Number(row._sync_page);
  return {
    kind: spec.kind,
    key: row.key,
    venueTime: new Date(Number(row.time_ms)).toISOString(),
    receivedAtUs: BigInt(row.received_us),
    source:
      row._sync_job === ''
        ? streamSource(parsed, row)
        : { type: 'sync', job: row._sync_job, page: Math.max(0, page - 1) },
    payload,
    raw: row._raw,
  };
}

/** A stream row's source: the frame envelope's `seq` from its raw text, the connection's number as stored. */
function streamSource(raw: Json, row: StoredRow): RecordSource {
  const source: RecordSource = { type: 'stream', connection: 'rederive', frame: 0 };
  const conn = Number(row.frame_conn);
  if (Number.isSafeInteger(conn) && conn > 0) source.conn = conn;
  // A socket frame's envelope is `{type, seq, ts, data}` (src/capture/frames/frame.ts).
  const seq = isPlainObject(raw) && typeof raw.type === 'string' ? raw.seq : undefined;
  if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0) source.seq = seq;
  return source;
}

function isPlainObject(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The payload with the stored columns it lacks; a stream frame's go into its `data`. */
function withColumns(payload: { [key: string]: Json }, columns: Record<string, string | null>): Json {
  const data = payload.data;
  if (typeof payload.type === 'string' && data !== undefined && isPlainObject(data))
    return { ...payload, data: withColumns(data, columns) };
  const out = { ...payload };
  for (const [name, value] of Object.entries(columns))
    if (out[name] === undefined && value !== null && value !== '') out[name] = value;
  return out;
}
