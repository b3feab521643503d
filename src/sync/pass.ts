import type { Fetched } from '../api/caller.ts';
import { InvalidRequestError } from '../api/errors.ts';
import { CursorLoopError, CursorTrail, pageItems, type PageItem } from '../api/paging.ts';
import type { Pagination } from '../api/schemas/common.ts';
import type { DataQualityPayload, Json, BusRecord } from '../records/index.ts';
import { syncRecord, type SyncOrigin } from './records.ts';
import type { JobRun } from './run.ts';

export type { PageItem };

/** A cursor-paged answer. */
export interface ListPage {
  pagination?: Pagination | undefined;
}

/** What one page turned into: its records, and the times of the items that may still change. */
export interface PageOutcome {
  records: BusRecord[];
  openTimesMs?: readonly number[];
  /** Replaces the job's state with this page's commit (the catalogue's fingerprints). */
  state?: Json;
  /** Runs once the page is committed (to remember work that is now safely done). */
  afterCommit?(): void;
}

/** What a whole pass saw, for the job's state after it. */
export interface PassSummary {
  /** Time of the newest item read; undefined when the pass read none. */
  newestMs?: number;
  /** Time of the oldest item that may still change; undefined when all were settled. */
  oldestOpenMs?: number;
}

export interface PassSpec<Page extends ListPage, Item> {
  /** For logs. */
  name: string;
  /** The paged read, as `endpointName` writes it: named by a cursor loop. */
  endpoint: string;
  /** One page at a cursor; the same filters on every call (cursors are bound to them). */
  fetch(cursor: string | undefined, signal: AbortSignal | undefined): Promise<Fetched<Page>>;
  /** The page's items, and the name of their array in the body (for each item's raw JSON). */
  items(page: Page): readonly Item[];
  key: string;
  /** An item's time (ms since the epoch), for lists read newest first down to `stopBeforeMs`. */
  timeOf?(item: Item): number | undefined;
  /**
   * Newest-first lists: the pass stops at the first item older than this (read up to it on an
   * earlier pass, and settled since). Absent: the list is followed to its end.
   */
  stopBeforeMs?: number;
  /** Backfill: items newer than this are passed over (read, not published). */
  untilMs?: number;
  handle(items: Array<PageItem<Item>>, page: Fetched<Page>, origin: SyncOrigin): Promise<PageOutcome>;
  /** The job's state once the pass is complete (committed with its last page, whose own `state` it is given). */
  finish(summary: PassSummary, lastPageState: Json | undefined): Json | undefined;
}

interface PassData extends PassSummary {
  stopBeforeMs?: number;
  untilMs?: number;
  /** Digests of the cursors this pass was handed (CursorTrail), so a resumed pass still refuses a repeat. */
  cursors?: string[];
}

/**
 * Pages a list from the pass's saved cursor (or its first page) to its end, or down to
 * `stopBeforeMs`, committing every page: records to the bus first, then the cursor of the next
 * page. Interrupted anywhere, the next run starts at the first page not committed: a page can be
 * read twice, never skipped. A saved cursor the venue no longer accepts starts the pass again
 * from the first page, for the same reason. A cursor the venue hands out a second time in one
 * pass (it would be paged forever) ends the pass with a `cursor_loop` data-quality record and
 * throws CursorLoopError: the job's state stays where it was, and its next run starts afresh.
 */
export async function runPass<Page extends ListPage, Item>(
  run: JobRun,
  spec: PassSpec<Page, Item>,
): Promise<PassSummary> {
  let pass = run.passOrNew(passData({ stopBeforeMs: spec.stopBeforeMs, untilMs: spec.untilMs }));
  const log = run.deps.logger;
  for (;;) {
    const data = readPassData(pass.data);
    let page: Fetched<Page>;
    try {
      page = await spec.fetch(pass.cursor, run.signal);
    } catch (error) {
      if (!(error instanceof InvalidRequestError) || pass.cursor === undefined) throw error;
      log.warn(
        { job: run.job, list: spec.name, code: error.code, page: pass.page },
        'saved cursor refused; starting the pass again from the first page',
      );
      pass = run.newPass(passData({ ...data, cursors: undefined }));
      continue;
    }
    const items = pageItems(page, spec.items(page.value), spec.key);
    const times = items.map((item) => spec.timeOf?.(item.value));
    const olderAt =
      data.stopBeforeMs === undefined
        ? -1
        : times.findIndex((t) => t !== undefined && t < (data.stopBeforeMs as number));
    const reached = olderAt >= 0 ? items.slice(0, olderAt) : items;
    const inScope = reached.filter((_, i) => data.untilMs === undefined || (times[i] ?? 0) <= (data.untilMs as number));
    const outcome = await spec.handle(inScope, page, run.origin(pass));
    const summary = summarise(data, times.slice(0, reached.length), outcome.openTimesMs ?? []);
    const trail = new CursorTrail(spec.endpoint, data.cursors);
    let next: string | undefined;
    try {
      next = olderAt >= 0 ? undefined : trail.follow(page.value.pagination);
    } catch (error) {
      if (!(error instanceof CursorLoopError)) throw error;
      log.warn(
        { job: run.job, list: spec.name, endpoint: error.endpoint, page: pass.page },
        'cursor handed out twice; the pass ends here and the next run starts afresh',
      );
      await run.commit([...outcome.records, cursorLoopRecord(run, error, pass.page)], {
        pass: undefined,
        state: outcome.state,
      });
      outcome.afterCommit?.();
      throw error;
    }
    if (next === undefined) {
      await run.commit(outcome.records, { pass: undefined, state: spec.finish(summary, outcome.state) });
      outcome.afterCommit?.();
      return summary;
    }
    pass = {
      ...pass,
      cursor: next,
      page: pass.page + 1,
      data: passData({ ...data, ...summary, cursors: trail.saved() }),
    };
    await run.commit(outcome.records, { pass, state: outcome.state });
    outcome.afterCommit?.();
    pass = run.checkpoint.pass ?? pass;
  }
}

/** The `data_quality` record of a cursor loop: where (endpoint, job, page) and which cursor. */
function cursorLoopRecord(run: JobRun, error: CursorLoopError, page: number): BusRecord {
  const finding: DataQualityPayload = {
    problem: 'cursor_loop',
    detail: `${error.message} (job ${run.job}, page ${page} of the pass)`,
    stream: 'sync',
    endpoint: error.endpoint,
    cursor: error.cursor,
  };
  return syncRecord(
    'data_quality',
    run.scope === '' ? 'sync' : run.scope,
    finding,
    undefined,
    undefined,
    run.origin(undefined),
  );
}

function summarise(data: PassData, times: ReadonlyArray<number | undefined>, open: readonly number[]): PassSummary {
  let newestMs = data.newestMs;
  for (const t of times) if (t !== undefined && (newestMs === undefined || t > newestMs)) newestMs = t;
  let oldestOpenMs = data.oldestOpenMs;
  for (const t of open) if (oldestOpenMs === undefined || t < oldestOpenMs) oldestOpenMs = t;
  return { newestMs, oldestOpenMs };
}

function passData(data: PassData): Json {
  const out: Record<string, number | string[]> = {};
  for (const [key, value] of Object.entries(data)) if (typeof value === 'number') out[key] = value;
  if (data.cursors && data.cursors.length > 0) out.cursors = data.cursors;
  return out;
}

function readPassData(data: Json | undefined): PassData {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const number = (value: Json | undefined): number | undefined => (typeof value === 'number' ? value : undefined);
  const cursors = Array.isArray(data.cursors)
    ? data.cursors.filter((c): c is string => typeof c === 'string')
    : undefined;
  return {
    stopBeforeMs: number(data.stopBeforeMs),
    untilMs: number(data.untilMs),
    newestMs: number(data.newestMs),
    oldestOpenMs: number(data.oldestOpenMs),
    cursors,
  };
}

/** `Date.parse` that gives undefined instead of NaN. */
export function timeMs(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The frontier for the next incremental pass: the oldest item still changing, else the newest item read. */
export function nextFrontier(summary: PassSummary, previous: number | undefined): number | undefined {
  return summary.oldestOpenMs ?? summary.newestMs ?? previous;
}
