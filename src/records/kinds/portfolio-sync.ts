import { ACCOUNT_TOPIC, BY_ACCOUNT, declareKind } from '../kind.ts';
import { portfolioSyncSchema, type PortfolioSyncPayload } from '../portfolio-sync.ts';

/** `portfolio_sync`: an event of the portfolio SSE (src/records/portfolio-sync.ts). */
export const portfolioSync = declareKind<PortfolioSyncPayload>()({
  name: 'portfolio_sync',
  schema: portfolioSyncSchema,
  topic: { suffix: 'account.portfolio', ...ACCOUNT_TOPIC, key: BY_ACCOUNT },
  tables: ['position_snapshots', 'position_observations', 'portfolio_summaries'],
  producer: 'capture',
  from: 'the portfolio SSE event',
});
