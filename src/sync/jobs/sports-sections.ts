import type { BusRecord } from '../../bus/record.ts';
import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/** The record key of the sections: one stream of reads, in order on one partition. */
export const SPORTS_LIVE_KEY = 'sports_live';

/**
 * GET /api/v1/events?filter=sports_live (public; the /api/v1 per-IP budget, no account token):
 * one answer, no pagination (§4.2). One `sports_sections` record holding every section of the
 * read — so a section no longer listed is seen gone, and an answer without sections is a read of
 * nothing — and an `event` record per listed event (published again only when it changed).
 */
export async function syncSportsSections(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.catalogue.catalogue.sportsLive({}, run.signal);
  const origin = run.origin(undefined);
  const body = (typeof answer.raw === 'object' && answer.raw !== null ? answer.raw : {}) as {
    events?: unknown[];
    sections?: unknown;
  };
  const records: BusRecord[] = [
    syncRecord(
      'sports_sections',
      SPORTS_LIVE_KEY,
      { sections: answer.value.sections ?? [] },
      { sections: body.sections ?? [] },
      undefined,
      origin,
    ),
  ];
  answer.value.events.forEach((event, i) =>
    records.push(syncRecord('event', event.id, event, body.events?.[i], undefined, origin)),
  );
  await run.commit(records, { pass: undefined });
}
