import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import {
  portfolioSummarySchema,
  type PortfolioSummaryPayload,
  type PortfolioSummarySource,
} from '../portfolio-summary.ts';

/** `portfolio_summary`: a REST read of the sync jobs (src/records/portfolio-summary.ts). */
export const portfolioSummary = declareKind<PortfolioSummaryPayload, PortfolioSummarySource>()({
  name: 'portfolio_summary',
  schema: portfolioSummarySchema,
  topic: { suffix: 'sync.portfolio_summaries', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['portfolio_summaries'],
  producer: 'sync',
  from: 'sync `portfolio_summary`: one row each',
});
