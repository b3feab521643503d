import { ACTIVITIES, OPEN_ORDERS, ORDER_LIST, PORTFOLIO_TRADES, syncAccountList } from './jobs/account-list.ts';
import { syncCatalogue } from './jobs/catalogue.ts';
import { syncLpIncentives } from './jobs/lp-incentives.ts';
import type { JobOptions } from './jobs/options.ts';
import { syncOrderTrades } from './jobs/order-trades.ts';
import { syncPnl } from './jobs/pnl.ts';
import { syncPortfolioSummary } from './jobs/portfolio-summary.ts';
import { syncPositions } from './jobs/positions.ts';
import { syncRebates } from './jobs/rebates.ts';
import { syncWithdrawalAssets } from './jobs/withdrawal-assets.ts';
import type { JobRun } from './run.ts';
import { syncSportsSections } from './jobs/sports-sections.ts';
import { syncCategories } from './jobs/categories.ts';
import { syncAccountBatches } from './jobs/account-batches.ts';
import type { JobName } from './job-names.ts';

export { JOB_NAMES, isJobName, parseJobList, type JobName } from './job-names.ts';

export interface SyncJob {
  name: JobName;
  /** Default time between two starts. */
  intervalMs: number;
  /** Catalogue jobs are the venue's; the others belong to the account the token reads. */
  scope: 'venue' | 'account';
  /** Whether a past window can be read again (lists whose items carry their own time). */
  backfill: boolean;
  run(run: JobRun, options: JobOptions): Promise<void>;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * Every sync job with its default interval. Portfolio figures every 30 s (the venue marks settled
 * PnL every minute, so the PnL job reads twice per mark and misses no bucket); lists every 30 to
 * 60 s; slow-moving reference data every few minutes to an hour.
 */
export const SYNC_JOBS: Readonly<Record<JobName, SyncJob>> = {
  catalogue: {
    name: 'catalogue',
    intervalMs: MINUTE,
    scope: 'venue',
    backfill: false,
    run: (run) => syncCatalogue(run),
  },
  portfolio_summary: {
    name: 'portfolio_summary',
    intervalMs: 30 * SECOND,
    scope: 'account',
    backfill: false,
    run: (run) => syncPortfolioSummary(run),
  },
  positions: {
    name: 'positions',
    intervalMs: 30 * SECOND,
    scope: 'account',
    backfill: false,
    run: (run) => syncPositions(run),
  },
  open_orders: {
    name: 'open_orders',
    intervalMs: 30 * SECOND,
    scope: 'account',
    backfill: false,
    run: (run) => syncAccountList(run, {}, OPEN_ORDERS),
  },
  orders: {
    name: 'orders',
    intervalMs: MINUTE,
    scope: 'account',
    backfill: true,
    run: (run, options) => syncAccountList(run, options, ORDER_LIST),
  },
  order_trades: { name: 'order_trades', intervalMs: MINUTE, scope: 'account', backfill: true, run: syncOrderTrades },
  portfolio_trades: {
    name: 'portfolio_trades',
    intervalMs: 30 * SECOND,
    scope: 'account',
    backfill: true,
    run: (run, options) => syncAccountList(run, options, PORTFOLIO_TRADES),
  },
  activities: {
    name: 'activities',
    intervalMs: 30 * SECOND,
    scope: 'account',
    backfill: true,
    run: (run, options) => syncAccountList(run, options, ACTIVITIES),
  },
  pnl: { name: 'pnl', intervalMs: 30 * SECOND, scope: 'account', backfill: false, run: (run) => syncPnl(run) },
  rebates: {
    name: 'rebates',
    intervalMs: 5 * MINUTE,
    scope: 'account',
    backfill: false,
    run: (run) => syncRebates(run),
  },
  lp_incentives: {
    name: 'lp_incentives',
    intervalMs: 5 * MINUTE,
    scope: 'account',
    backfill: false,
    run: (run) => syncLpIncentives(run),
  },
  withdrawal_assets: {
    name: 'withdrawal_assets',
    intervalMs: 60 * MINUTE,
    scope: 'account',
    backfill: false,
    run: (run) => syncWithdrawalAssets(run),
  },
  // The live sports sections as often as the catalogue; the category forest changes slowly.
  sports_sections: {
    name: 'sports_sections',
    intervalMs: MINUTE,
    scope: 'venue',
    backfill: false,
    run: (run) => syncSportsSections(run),
  },
  categories: {
    name: 'categories',
    intervalMs: 10 * MINUTE,
    scope: 'venue',
    backfill: false,
    run: (run) => syncCategories(run),
  },
  // Batches settle asynchronously (withdrawals too): read every minute until their outcome is known.
  account_batches: {
    name: 'account_batches',
    intervalMs: MINUTE,
    scope: 'account',
    backfill: false,
    run: (run) => syncAccountBatches(run),
  },
};
