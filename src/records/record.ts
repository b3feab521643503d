import type { Json } from './json.ts';
import type { RecordKind } from './catalogue.ts';
import type { Payload } from './payloads.ts';

/** Where a record came from, precise enough to find it again. */
export type RecordSource =
  /**
   * A WebSocket or SSE connection of ours, and the frame's number on it (from 0); `conn`, our number
   * of the connection (it orders connections: src/streams/types.ts `Frame.connectionNo`), and `seq`,
   * the frame envelope's own `seq` (the venue's number of the frame on its connection), when known.
   * Stored as `frame_conn` and `frame_seq` (0 when absent), which order rows of one time (sql/README.md).
   */
  | { type: 'stream'; connection: string; frame: number; conn?: number; seq?: number }
  /** A REST sync job run, and the page of the resource it was on (from 0). */
  | { type: 'sync'; job: string; page: number };

/** The envelope every record shares; `payload` is the kind's own (payloads.ts). */
export interface RecordOf<K extends RecordKind> {
  kind: K;
  /** Partition key: records with one key keep their order (src/bus/topics.ts says each topic's key). */
  key: string;
  /** The venue's own time for the frame, as the venue wrote it; null when the frame has none. */
  venueTime: string | null;
  /** When we received it: microseconds since the Unix epoch. */
  receivedAtUs: bigint;
  source: RecordSource;
  payload: Payload<K>;
  /** The frame or response body text exactly as received, or null when there is none. */
  raw: string | null;
}

/**
 * A record of kind K, or (without K) of any kind: then `kind` tells which, and narrows `payload`.
 * Producers build them typed; a record read back from the bus was typed by its producer, or by
 * nobody (an older version, another tool): loaders read its payload tolerantly (src/load/mapping).
 */
export type BusRecord<K extends RecordKind = RecordKind> = K extends RecordKind ? RecordOf<K> : never;

/**
 * A record as read back from the bus: its producer typed it, or nobody did (an older version,
 * another tool), so its payload is only JSON until a loader has read it — tolerantly, naming the
 * field that does not fit (src/load/mapping). Every BusRecord is one.
 */
export interface ReceivedRecord extends Omit<RecordOf<RecordKind>, 'payload'> {
  payload: Json;
}

// A typed record is a received one: every payload is plain JSON (checked here, at compile time).
export const TYPED_RECORDS_ARE_JSON = (record: BusRecord): ReceivedRecord => record;

/** Where a stream record came from: the connection and our number of the frame (or of the last frame before it). */
export interface Origin {
  connectionId: string;
  frameNo: number;
  receivedAtUs: bigint;
  /** Our number of the connection, when the frame came on one (src/streams/types.ts `Frame.connectionNo`). */
  connectionNo?: number;
  /** The frame envelope's `seq`, when it had one. */
  frameSeq?: number | null;
}

export function sourceOf(origin: Origin): RecordSource {
  const source: RecordSource = { type: 'stream', connection: origin.connectionId, frame: origin.frameNo };
  if (origin.connectionNo !== undefined) source.conn = origin.connectionNo;
  if (origin.frameSeq !== undefined && origin.frameSeq !== null) source.seq = origin.frameSeq;
  return source;
}
