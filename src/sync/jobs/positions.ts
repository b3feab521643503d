import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/**
 * POST /trade/v1/portfolio/positions/list (cost 5), unpaginated: one record per read holding the
 * whole answer, since a position that was sold simply disappears — the loader needs the snapshot
 * as a whole, even an empty one. While `unavailable_exchanges` lists SERVICE the client reads
 * again and finally throws ExchangeUnavailableError: nothing unusable is published, and the job
 * is retried (§2.5 "retry the unpaginated read").
 */
export async function syncPositions(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.client.portfolio.positions({}, run.signal);
  await run.commit(
    [syncRecord('position', deps.account, answer.value, answer.raw, answer.value.as_of, run.origin(undefined))],
    { pass: undefined },
  );
}
