import { hash } from 'node:crypto';
import {
  toJsonPayload,
  type Json,
  type RecordKind,
  type Payload,
  type SyncSources,
  type BusRecord,
  type ReceivedRecord,
} from '../records/index.ts';
import { nowMicros } from '../util/clock.ts';

/** Where a record came from: the job and the page of its pass (from 0). */
export interface SyncOrigin {
  job: string;
  page: number;
}

/** What a sync record of kind K is made of: the REST item as the client parsed it, or (gaps, findings) the payload
 * itself. */
export type SyncSource<K extends RecordKind> = K extends keyof SyncSources ? SyncSources[K] : Payload<K>;

/**
 * A sync record: the parsed item as payload (bigints as decimal strings: src/records), the item's
 * JSON as received as `raw`, and the venue's time of the answer (`as_of`) when it gave one.
 */
export function syncRecord<K extends RecordKind>(
  kind: K,
  key: string,
  value: SyncSource<K>,
  raw: unknown,
  venueTime: string | undefined,
  origin: SyncOrigin,
): BusRecord<K> {
  return {
    kind,
    key,
    venueTime: venueTime ?? null,
    receivedAtUs: nowMicros(),
    source: { type: 'sync', job: origin.job, page: origin.page },
    payload: toJsonPayload(value) as Payload<K>,
    raw: raw === undefined ? null : JSON.stringify(raw),
  } as BusRecord<K>;
}

type Fields = { readonly [key: string]: Json | undefined };

/**
 * What tells one kind's observations apart (README: "dedup keys"). Orders, fills and activities
 * change state under one id, so the state is part of the key; catalogue entries have no state
 * field, so their whole content is.
 */
const OBSERVATION: Partial<Record<RecordKind, (payload: Fields) => Array<Json | undefined>>> = {
  order: (p) => [p.internal_id, p.status, p.size_matched_micro],
  fill: (p) => [p.fill_id ?? p.trade_id, p.status],
  activity: (p) => [p.id, p.status, p.fill_status, p.filled_shares_micro],
  portfolio_summary: (p) => [p.exchange, p.as_of],
  position: (p) => [p.as_of],
  pnl_settled: (p) => [p.bucket_at, p.chain_id, p.mark_run_id],
  event: (p) => [p.id, contentDigest(p)],
  market: (p) => [p.id, contentDigest(p)],
  // An entry has no state field: its content tells two observations apart (not the list that carried it).
  lookup: (p) => [p.map, p.key, isFields(p.entry) ? contentDigest(p.entry) : keyPart(p.entry)],
  category: (p) => [p.slug, isFields(p.answer) ? contentDigest(p.answer) : keyPart(p.answer)],
  // A batch and its withdrawal change under one hash (status, times, withdrawal states): its content tells the reads
  // apart.
  account_batch: (p) => [p.batch_hash, contentDigest(p)],
};

/**
 * The natural key of one observation: equal keys mean the same item in the same state, so a
 * loader keeps one row for them and a job need not publish it twice. `undefined` for snapshot
 * kinds without a venue time (rebates, LP incentives, withdrawal assets): every read is its own
 * observation, told apart by its receive time.
 */
export function observationKey(record: Pick<ReceivedRecord, 'kind' | 'payload'>): string | undefined {
  const payload = record.payload;
  const parts = OBSERVATION[record.kind];
  if (!parts || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  return parts(payload).map(keyPart).join('|');
}

function isFields(value: Json | undefined): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contentDigest(payload: Fields): string {
  return hash('sha256', JSON.stringify(payload), 'base64url').slice(0, 22);
}

function keyPart(value: Json | undefined): string {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}
