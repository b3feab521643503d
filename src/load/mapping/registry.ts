import type { RecordKind } from '../../bus/record.ts';
import { accountEventMapper } from './kinds/account-event.ts';
import { activityMapper } from './kinds/activity.ts';
import { bookChangeMapper } from './kinds/book-change.ts';
import { bookSnapshotMapper } from './kinds/book-snapshot.ts';
import { captureGapMapper } from './kinds/capture-gap.ts';
import { dataQualityMapper } from './kinds/data-quality.ts';
import { eventMapper } from './kinds/event.ts';
import { fillMapper } from './kinds/fill.ts';
import { lpIncentiveMapper } from './kinds/lp-incentive.ts';
import { marketStatusMapper } from './kinds/market-status.ts';
import { marketMapper } from './kinds/market.ts';
import { orderMapper } from './kinds/order.ts';
import { pnlSettledMapper } from './kinds/pnl-settled.ts';
import { portfolioSummaryMapper } from './kinds/portfolio-summary.ts';
import { portfolioSyncMapper } from './kinds/portfolio-sync.ts';
import { positionMapper } from './kinds/position.ts';
import { oracleProPriceMapper, pricesMapper } from './kinds/price.ts';
import { quoteMapper } from './kinds/quote.ts';
import { rebatesMapper } from './kinds/rebates.ts';
import { tradeMapper } from './kinds/trade.ts';
import { withdrawalAssetsMapper } from './kinds/withdrawal-assets.ts';
import { lookupMapper } from './kinds/lookup.ts';
import { sportsSectionsMapper } from './kinds/sports-sections.ts';
import { categoryMapper } from './kinds/category.ts';
import { accountBatchMapper } from './kinds/account-batch.ts';
import type { Mapper } from './types.ts';

/** One mapper per record kind; the type makes a new kind without a mapper a compile error. */
export const MAPPERS: { readonly [K in RecordKind]: Mapper<K> } = {
  trade: tradeMapper,
  book_change: bookChangeMapper,
  book_snapshot: bookSnapshotMapper,
  quote: quoteMapper,
  market_status: marketStatusMapper,
  capture_gap: captureGapMapper,
  data_quality: dataQualityMapper,
  account_event: accountEventMapper,
  portfolio_sync: portfolioSyncMapper,
  event: eventMapper,
  market: marketMapper,
  order: orderMapper,
  fill: fillMapper,
  position: positionMapper,
  portfolio_summary: portfolioSummaryMapper,
  pnl_settled: pnlSettledMapper,
  rebates: rebatesMapper,
  activity: activityMapper,
  lp_incentive: lpIncentiveMapper,
  withdrawal_assets: withdrawalAssetsMapper,
  price: pricesMapper,
  oracle_pro_price: oracleProPriceMapper,
  // sync: lookup maps, sports sections, categories, account batches
  lookup: lookupMapper,
  sports_sections: sportsSectionsMapper,
  category: categoryMapper,
  account_batch: accountBatchMapper,
};
