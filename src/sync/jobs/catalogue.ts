import { createHash } from 'node:crypto';
import { ENDPOINTS, endpointName } from '../../api/endpoints.ts';
import { NotFoundError } from '../../api/errors.ts';
import type { EventDetail, EventListItem, EventsResponse, Market } from '../../api/schemas/index.ts';
import type { BusRecord, Json } from '../../bus/record.ts';
import { runPass, type PageItem } from '../pass.ts';
import { syncRecord, type SyncOrigin } from '../records.ts';
import type { JobRun } from '../run.ts';

const RECURRING = 'RECURRING_PROPOSITION';
/** List fields that move with every trade: a change in them alone does not call for the detail. */
const TRADING_FIELDS = ['volume_micro'] as const;

/**
 * The catalogue: GET /api/v1/events followed to its end (keyset cursor, one fixed query), one
 * `event` record per listed event; then GET /api/v1/events/{slug} for events that are new or
 * whose listing changed (trading volume aside) — one `event` record for the detail (the payload
 * with a `markets` array) and one `market` record per market, outcomes inside. Recurring events
 * are read in detail on every pass: their window of cycles rolls without the listing saying so.
 * The listings' fingerprints are the job's state, so a restart does not read every detail again;
 * each carries the number of the pass that last listed it, and a completed pass drops those it did
 * not list (archived events): the state follows the catalogue's size, not its whole history.
 */
export async function syncCatalogue(run: JobRun): Promise<void> {
  const { deps } = run;
  const previous = readState(run.checkpoint.state);
  // A pass resumed mid-way carries on under its number; a new one takes the next.
  const passNo = run.checkpoint.pass ? previous.pass : previous.pass + 1;
  const known = previous.prints;
  await runPass(run, {
    name: 'events',
    endpoint: endpointName(ENDPOINTS.events),
    key: 'events',
    items: (page: EventsResponse) => page.events,
    fetch: (cursor, signal) =>
      deps.venue.catalogue.catalogue.eventsPage({ limit: deps.tuning.pageSize.events }, cursor, signal),
    handle: async (items, _page, origin) => {
      const records: BusRecord[] = [];
      for (const item of items) {
        records.push(syncRecord('event', item.value.id, item.value, item.raw, undefined, origin));
        const print = listingFingerprint(item.raw);
        const seen = known.get(item.value.id);
        if (seen?.print === print && item.value.event_type !== RECURRING) {
          seen.pass = passNo;
          continue;
        }
        const detail = await readDetail(run, item);
        if (detail) records.push(...detailRecords(detail.value, detail.raw, origin));
        known.set(item.value.id, { print, pass: passNo });
      }
      return { records, state: writeState(passNo, known) };
    },
    // The whole list was read: events it no longer lists are forgotten.
    finish: () => writeState(passNo, new Map([...known].filter(([, seen]) => seen.pass === passNo))),
  });
}

async function readDetail(
  run: JobRun,
  item: PageItem<EventListItem>,
): Promise<{ value: EventDetail; raw: unknown } | undefined> {
  try {
    return await run.deps.venue.catalogue.catalogue.event(item.value.slug ?? item.value.id, run.signal);
  } catch (error) {
    // Archived between the list page and now (§4.2: archived events answer 404): nothing to read.
    if (error instanceof NotFoundError) {
      run.deps.logger.info({ event: item.value.id, code: error.code }, 'event gone before its detail was read');
      return undefined;
    }
    throw error;
  }
}

function detailRecords(detail: EventDetail, raw: unknown, origin: SyncOrigin): BusRecord[] {
  const rawMarkets = (raw as { markets?: unknown[] }).markets ?? [];
  const records: BusRecord[] = [syncRecord('event', detail.id, detail, raw, undefined, origin)];
  for (const [i, market] of (detail.markets ?? []).entries()) {
    records.push(
      syncRecord(
        'market',
        market.condition_id ?? market.id,
        withEvent(market, detail.id),
        rawMarkets[i],
        undefined,
        origin,
      ),
    );
  }
  return records;
}

/** A Market carries no event id; the loader needs it, so it is added (unless the venue sent one). */
function withEvent(market: Market, eventId: string): Market & { event_id: unknown } {
  return { ...market, event_id: market.event_id ?? eventId };
}

function listingFingerprint(raw: unknown): string {
  const listing: Record<string, unknown> =
    typeof raw === 'object' && raw !== null ? { ...(raw as Record<string, unknown>) } : { raw };
  for (const field of TRADING_FIELDS) delete listing[field];
  if (typeof listing.display === 'object' && listing.display !== null)
    listing.display = { ...(listing.display as Record<string, unknown>), liquidity: undefined };
  return createHash('sha256').update(JSON.stringify(listing)).digest('base64url').slice(0, 16);
}

interface Seen {
  print: string;
  /** The pass that last listed the event. */
  pass: number;
}

/** `{ pass, fingerprints: { id: "print:pass" } }`; an earlier version's bare "print" counts as listed by the last pass.
 */
function readState(state: Json | undefined): { pass: number; prints: Map<string, Seen> } {
  const { pass, fingerprints } = (state ?? {}) as { pass?: unknown; fingerprints?: unknown };
  const last = typeof pass === 'number' && Number.isSafeInteger(pass) ? pass : 0;
  const prints = new Map<string, Seen>();
  if (typeof fingerprints !== 'object' || fingerprints === null || Array.isArray(fingerprints))
    return { pass: last, prints };
  for (const [id, text] of Object.entries(fingerprints)) {
    if (typeof text !== 'string') continue;
    const at = text.lastIndexOf(':');
    prints.set(
      id,
      at < 0 ? { print: text, pass: last } : { print: text.slice(0, at), pass: Number(text.slice(at + 1)) || 0 },
    );
  }
  return { pass: last, prints };
}

function writeState(pass: number, prints: ReadonlyMap<string, Seen>): Json {
  return {
    pass,
    fingerprints: Object.fromEntries([...prints].map(([id, seen]) => [id, `${seen.print}:${seen.pass}`])),
  };
}
