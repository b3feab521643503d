import { createHash } from 'node:crypto';
import { toJsonPayload, type BusRecord, type Json, type RecordKind } from '../bus/record.ts';
import { nowMicros } from '../util/clock.ts';

/** Where a record came from: the job and the page of its pass (from 0). */
export interface SyncOrigin {
  job: string;
  page: number;
}

/**
 * A sync record: the parsed item as payload (bigints as decimal strings), the item's JSON as
 * received as `raw`, and the venue's time of the answer (`as_of`) when it gave one.
 */
export function syncRecord(kind: RecordKind, key: string, value: unknown, raw: unknown, venueTime: string | undefined, origin: SyncOrigin): BusRecord {
  return {
    kind,
    key,
    venueTime: venueTime ?? null,
    receivedAtUs: nowMicros(),
    source: { type: 'sync', job: origin.job, page: origin.page },
    payload: toJsonPayload(value),
    raw: raw === undefined ? null : JSON.stringify(raw),
  };
}

type Payload = { [key: string]: Json };

/**
 * What tells one kind's observations apart (README: "dedup keys"). Orders, fills and activities
 * change state under one id, so the state is part of the key; catalogue entries have no state
 * field, so their whole content is.
 */
const OBSERVATION: Partial<Record<RecordKind, (payload: Payload) => Array<Json | undefined>>> = {
  order: (p) => [p.internal_id, p.status, p.size_matched_micro],
  fill: (p) => [p.fill_id ?? p.trade_id, p.status],
  activity: (p) => [p.id, p.status, p.fill_status, p.filled_shares_micro],
  portfolio_summary: (p) => [p.exchange, p.as_of],
  position: (p) => [p.as_of],
  pnl_settled: (p) => [p.bucket_at, p.chain_id, p.mark_run_id],
  event: (p) => [p.id, contentDigest(p)],
  market: (p) => [p.id, contentDigest(p)],
};

/**
 * The natural key of one observation: equal keys mean the same item in the same state, so a
 * loader keeps one row for them and a job need not publish it twice. `undefined` for snapshot
 * kinds without a venue time (rebates, LP incentives, withdrawal assets): every read is its own
 * observation, told apart by its receive time.
 */
export function observationKey(record: Pick<BusRecord, 'kind' | 'payload'>): string | undefined {
  const payload = record.payload;
  const parts = OBSERVATION[record.kind];
  if (!parts || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  return parts(payload).map(keyPart).join('|');
}

function contentDigest(payload: Payload): string {
  return createHash('sha256').update(JSON.stringify(payload)).digest('base64url').slice(0, 22);
}

function keyPart(value: Json | undefined): string {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}
