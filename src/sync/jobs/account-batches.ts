import { ENDPOINTS, endpointName } from '../../api/endpoints.ts';
import { NotFoundError } from '../../api/errors.ts';
import type { Batch } from '../../api/schemas/index.ts';
import type { BusRecord, Json } from '../../bus/record.ts';
import type { DataQualityPayload } from '../../records/index.ts';
import { timeMs } from '../pass.ts';
import { syncRecord, type SyncOrigin } from '../records.ts';
import type { JobRun } from '../run.ts';

/** Batches whose outcome is known are remembered this many at most (so a link to one is not read again). */
const FINAL_KEPT = 2_000;

interface BatchesState {
  /** Newest activity time read: the next discovery reads down to it. */
  frontierMs?: number;
  /** Hashes still to read (outcome not known yet), with when they were first seen. */
  open: Record<string, number>;
  /** Hashes whose outcome is known, oldest first. */
  final: string[];
}

/**
 * Account batches and their withdrawals (§2.4). The interface gives no list of batches: a hash is
 * known to whoever submitted the batch, and otherwise only where the account's data names it. The
 * job finds hashes in GET /trade/v1/portfolio/activities (cost 5 a page; newest first down to the
 * newest activity of the last pass, or the open horizon on the first): any `batch_hash` or
 * `*_batch_hash` field and any `{kind: batch, batch_hash}` recovery resource (§7.2) of an
 * activity; and in the batches it reads (`heals_batch_hash`, `superseded_by_batch_hash`). Each
 * hash is read with GET /trade/v1/batches/{hash} (cost 1) at every run "until outcome known"
 * (§4.1): the batch executed, failed, was superseded or unwound, and its withdrawal (if any) was
 * delivered or failed — or the open horizon passed. One `account_batch` record per read whose
 * content changed. A hash the venue answers 404 `batch_not_found` for is a `data_quality` record
 * and is not read again. A deployment without batches (404 route_not_found, 503
 * feature_not_configured) is a gap of the job, as for every endpoint not offered.
 */
export async function syncAccountBatches(run: JobRun): Promise<void> {
  const { deps } = run;
  const state = readState(run.checkpoint.state);
  const nowMs = deps.now();
  const origin = run.origin(undefined);
  const records: BusRecord[] = [];
  const finalSet = new Set(state.final);
  const discover = (hash: string) => {
    if (!finalSet.has(hash) && state.open[hash] === undefined) state.open[hash] = nowMs;
  };

  const stopBeforeMs = state.frontierMs ?? nowMs - deps.tuning.openHorizonMs;
  let cursor: string | undefined;
  do {
    const page = await deps.venue.client.portfolio.activitiesPage(
      { limit: deps.tuning.pageSize.activities },
      cursor,
      run.signal,
    );
    const rawItems = (page.raw as { activities?: unknown[] }).activities ?? [];
    let older = false;
    page.value.activities.forEach((activity, i) => {
      const at = timeMs(activity.created_at);
      if (at !== undefined && at < stopBeforeMs) older = true;
      else for (const hash of batchHashesIn(rawItems[i])) discover(hash);
      if (at !== undefined && (state.frontierMs === undefined || at > state.frontierMs)) state.frontierMs = at;
    });
    cursor = older ? undefined : (page.value.pagination?.next_cursor ?? undefined);
  } while (cursor !== undefined);

  // Each open hash once per run; links found in a read are read in the same run.
  const readNow = new Set<string>();
  for (;;) {
    const pending = Object.keys(state.open).filter((hash) => !readNow.has(hash));
    if (pending.length === 0) break;
    for (const hash of pending) {
      readNow.add(hash);
      const firstSeenMs = state.open[hash] as number;
      let answer;
      try {
        answer = await deps.venue.client.orders.batch(hash, run.signal);
      } catch (error) {
        if (!(error instanceof NotFoundError) || error.code !== 'batch_not_found') throw error;
        records.push(batchNotFoundRecord(run, hash, error, origin));
        settle(state, finalSet, hash);
        continue;
      }
      records.push(syncRecord('account_batch', deps.account, answer.value, answer.raw, undefined, origin));
      for (const link of [answer.value.heals_batch_hash, answer.value.superseded_by_batch_hash])
        if (link) discover(link);
      const createdMs = timeMs(answer.value.created_at) ?? firstSeenMs;
      if (outcomeKnown(answer.value) || nowMs - createdMs > deps.tuning.openHorizonMs) settle(state, finalSet, hash);
    }
  }
  await run.commit(records, { pass: undefined, state: writeState(state) });
}

/** The batch can no longer change (§3.3, §2.4): it executed, failed, was superseded or unwound, and its withdrawal is
 * over. */
function outcomeKnown(batch: Batch): boolean {
  const settled =
    batch.status === 'SUPERSEDED' ||
    batch.failure !== undefined ||
    batch.executed_at !== undefined ||
    batch.unwound_at !== undefined;
  if (!settled) return false;
  const withdrawal = batch.withdrawal;
  if (!withdrawal || batch.status === 'SUPERSEDED' || batch.failure !== undefined) return true;
  return withdrawal.destination?.delivered_at !== undefined || withdrawal.state === 'FAILED';
}

function settle(state: BatchesState, finalSet: Set<string>, hash: string): void {
  delete state.open[hash];
  if (finalSet.has(hash)) return;
  finalSet.add(hash);
  state.final.push(hash);
  if (state.final.length > FINAL_KEPT) finalSet.delete(state.final.shift() as string);
}

/** Every batch hash an item names: `batch_hash` and `*_batch_hash` fields, at any depth (a recovery resource `{kind:
 * batch, batch_hash}` among them). */
export function batchHashesIn(item: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(item)) for (const value of item) batchHashesIn(value, found);
  else if (typeof item === 'object' && item !== null) {
    for (const [field, value] of Object.entries(item)) {
      if ((field === 'batch_hash' || field.endsWith('_batch_hash')) && typeof value === 'string' && value !== '')
        found.add(value);
      else batchHashesIn(value, found);
    }
  }
  return found;
}

function batchNotFoundRecord(run: JobRun, hash: string, error: NotFoundError, origin: SyncOrigin): BusRecord {
  const endpoint = endpointName(ENDPOINTS.batch);
  const finding: DataQualityPayload = {
    problem: 'batch_not_found',
    detail: `${endpoint} answered 404 batch_not_found for batch ${hash}, which the account's data names (job ${run.job}${error.requestId ? `, request ${error.requestId}` : ''}); not read again`,
    stream: 'sync',
    endpoint,
    batch_hash: hash,
  };
  return syncRecord('data_quality', run.deps.account, finding, undefined, undefined, origin);
}

function readState(json: Json | undefined): BatchesState {
  const s = (typeof json === 'object' && json !== null && !Array.isArray(json) ? json : {}) as {
    frontierMs?: unknown;
    open?: unknown;
    final?: unknown;
  };
  const open: Record<string, number> = {};
  if (typeof s.open === 'object' && s.open !== null)
    for (const [hash, at] of Object.entries(s.open)) if (typeof at === 'number') open[hash] = at;
  return {
    frontierMs: typeof s.frontierMs === 'number' ? s.frontierMs : undefined,
    open,
    final: Array.isArray(s.final) ? s.final.filter((hash): hash is string => typeof hash === 'string') : [],
  };
}

function writeState(state: BatchesState): Json {
  return {
    ...(state.frontierMs === undefined ? {} : { frontierMs: state.frontierMs }),
    open: state.open,
    final: state.final,
  };
}
