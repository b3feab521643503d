/**
 * The record contract: the envelope every record shares (record.ts) and one module per record
 * kind with its payload type (payloads.ts maps kind → payload). Producers (capture, the sync jobs)
 * build typed payloads; loaders read them (tolerantly: a record may come from an older version).
 * docs/records.md says how to add a kind.
 */
export { RECORD_KINDS, isRecordKind, type RecordKind } from './kinds.ts';
export { PayloadError, toJsonPayload, type Json, type Unread, type Wire } from './json.ts';
export {
  sourceOf,
  type BusRecord,
  type Origin,
  type ReceivedRecord,
  type RecordOf,
  type RecordSource,
} from './record.ts';
export type { Payload, Payloads, SyncSources } from './payloads.ts';
