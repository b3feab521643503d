import type { Summary } from '../api/schemas/portfolio.ts';
import type { Wire } from './json.ts';
import { integer, loose, scalar } from './schema.ts';

/** What a `portfolio_summary` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type PortfolioSummarySource = Summary;

/**
 * `portfolio_summary` — sync.portfolio_summaries; stored in `portfolio_summaries`. One exchange's summary. Made by the
 * `portfolio-summary` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type PortfolioSummaryPayload = Wire<PortfolioSummarySource>;

/** A `portfolio_summary` payload at the bus boundary: one exchange's summary (optional as the api's Summary has it; the
 * loader requires the cash balance). */
export const portfolioSummarySchema = loose({ exchange: scalar, cash_balance_micro: integer });
