import type { Summary } from '../api/schemas/portfolio.ts';
import type { Wire } from './json.ts';

/** What a `portfolio_summary` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type PortfolioSummarySource = Summary;

/**
 * `portfolio_summary` — sync.portfolio_summaries; stored in `portfolio_summaries`. One exchange's summary. Made by the `portfolio-summary` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type PortfolioSummaryPayload = Wire<PortfolioSummarySource>;
