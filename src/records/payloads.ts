import type { AccountEventPayload } from './account-event.ts';
import type { ActivityPayload, ActivitySource } from './activity.ts';
import type { BookChangePayload } from './book-change.ts';
import type { BookSnapshotPayload } from './book-snapshot.ts';
import type { CaptureGapPayload } from './capture-gap.ts';
import type { DataQualityPayload } from './data-quality.ts';
import type { EventPayload, EventSource } from './event.ts';
import type { FillPayload, FillSource } from './fill.ts';
import type { RecordKind } from './kinds.ts';
import type { LpIncentivePayload, LpIncentiveSource } from './lp-incentive.ts';
import type { MarketPayload, MarketSource } from './market.ts';
import type { MarketStatusPayload } from './market-status.ts';
import type { OrderPayload, OrderSource } from './order.ts';
import type { PnlSettledPayload, PnlSettledSource } from './pnl-settled.ts';
import type { PortfolioSummaryPayload, PortfolioSummarySource } from './portfolio-summary.ts';
import type { PortfolioSyncPayload } from './portfolio-sync.ts';
import type { PositionPayload, PositionSource } from './position.ts';
import type { PricePayload } from './price.ts';
import type { QuotePayload } from './quote.ts';
import type { RebatesPayload, RebatesSource } from './rebates.ts';
import type { TradePayload } from './trade.ts';
import type { WithdrawalAssetsPayload, WithdrawalAssetsSource } from './withdrawal-assets.ts';
import type { LookupPayload, LookupSource } from './lookup.ts';
import type { SportsSectionsPayload, SportsSectionsSource } from './sports-sections.ts';
import type { CategoryPayload, CategorySource } from './category.ts';
import type { AccountBatchPayload, AccountBatchSource } from './account-batch.ts';

/** The payload of every record kind: a new kind without one does not compile. */
export interface Payloads {
  // market stream, via capture
  trade: TradePayload;
  book_change: BookChangePayload;
  book_snapshot: BookSnapshotPayload;
  quote: QuotePayload;
  market_status: MarketStatusPayload;
  // capture's own findings (and the sync jobs')
  capture_gap: CaptureGapPayload;
  data_quality: DataQualityPayload;
  // account socket and portfolio SSE, via capture
  account_event: AccountEventPayload;
  portfolio_sync: PortfolioSyncPayload;
  // REST resources, via the sync jobs
  event: EventPayload;
  market: MarketPayload;
  order: OrderPayload;
  fill: FillPayload;
  position: PositionPayload;
  portfolio_summary: PortfolioSummaryPayload;
  pnl_settled: PnlSettledPayload;
  rebates: RebatesPayload;
  activity: ActivityPayload;
  lp_incentive: LpIncentivePayload;
  withdrawal_assets: WithdrawalAssetsPayload;
  // price feeds (SSE), via capture
  price: PricePayload;
  oracle_pro_price: PricePayload;
  // sync: lookup maps, sports sections, categories, account batches
  lookup: LookupPayload;
  sports_sections: SportsSectionsPayload;
  category: CategoryPayload;
  account_batch: AccountBatchPayload;
}

/** What each sync kind is made from: the venue's item as the client parsed it (bigints and all). */
export interface SyncSources {
  event: EventSource;
  market: MarketSource;
  order: OrderSource;
  fill: FillSource;
  position: PositionSource;
  portfolio_summary: PortfolioSummarySource;
  pnl_settled: PnlSettledSource;
  rebates: RebatesSource;
  activity: ActivitySource;
  lp_incentive: LpIncentiveSource;
  withdrawal_assets: WithdrawalAssetsSource;
  // sync: lookup maps, sports sections, categories, account batches
  lookup: LookupSource;
  sports_sections: SportsSectionsSource;
  category: CategorySource;
  account_batch: AccountBatchSource;
}

export type Payload<K extends RecordKind> = Payloads[K];

// Every kind has a payload, and every payload a kind.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const EVERY_KIND_HAS_A_PAYLOAD: Exact<keyof Payloads, RecordKind> = true;
