import { syncRecord } from '../records.ts';
import type { JobRun } from '../run.ts';

/** GET /trade/v1/portfolio/summary (cost 5): one record per exchange's summary. */
export async function syncPortfolioSummary(run: JobRun): Promise<void> {
  const { deps } = run;
  const answer = await deps.venue.client.portfolio.summary(run.signal);
  const rawSummaries = (answer.raw as { summaries?: unknown[] }).summaries ?? [];
  const records = answer.value.summaries.map((summary, i) =>
    syncRecord('portfolio_summary', deps.account, summary, rawSummaries[i], summary.as_of, run.origin(undefined)),
  );
  await run.commit(records, { pass: undefined });
}
