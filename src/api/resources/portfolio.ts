import type { Logger } from '../../util/log.ts';
import type { Fetched, VenueCaller } from '../caller.ts';
import { ENDPOINTS, endpointName } from '../endpoints.ts';
import { ExchangeUnavailableError } from '../errors.ts';
import type { QueryValue } from '../http.ts';
import { bodyWithCursor, followCursor } from '../paging.ts';
import { checkPageSize, PAGE_SIZE } from '../params.ts';
import { backoffDelay, type RandomSource, type RetryPolicy } from '../recovery.ts';
import {
  ActivitiesPageSchema,
  LpIncentivesResponseSchema,
  PortfolioTradesPageSchema,
  PositionsResponseSchema,
  RebatesSchema,
  SettledPnlSchema,
  SummaryResponseSchema,
  SupportedAssetsResponseSchema,
  type ActivitiesPage,
  type LpIncentivesResponse,
  type PortfolioTradesPage,
  type PositionsResponse,
  type Rebates,
  type SettledPnl,
  type SummaryResponse,
  type SupportedAssetsResponse,
} from '../schemas/index.ts';
import type { Clock } from '../../util/clock.ts';

/** GET /trade/v1/lp-incentives query (§4.1); all optional. */
export interface LpIncentivesQuery {
  /** Active root-category slug. */
  category?: string;
  /** Case-insensitive literal substring of market question and event title. */
  search?: string;
  sort_by?: 'market' | 'close_time' | 'max_spread' | 'min_shares' | 'reward_pool' | 'my_share' | 'projected_payout';
  /** Default desc when sort_by is given. */
  sort_order?: 'asc' | 'desc';
}

export interface PortfolioOptions {
  clock: Clock;
  random: RandomSource;
  logger: Logger;
  /** Re-reads of positions while `unavailable_exchanges` lists our exchange. */
  positionsRetry: Pick<RetryPolicy, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs'>;
  /** pnl_not_ready: "wait and repeat" — a longer patience than the default policy. */
  pnlRetry: Partial<RetryPolicy>;
}

export const DEFAULT_POSITIONS_RETRY = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 10_000 };
export const DEFAULT_PNL_RETRY: Partial<RetryPolicy> = { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 60_000 };

const SERVICE = 'SERVICE';

/** The account's own portfolio: summary, positions, trades, activities, PnL, rebates, withdrawal assets, LP incentives.
 */
export class PortfolioReads {
  constructor(
    private readonly caller: VenueCaller,
    private readonly options: PortfolioOptions,
  ) {}

  summary(signal?: AbortSignal): Promise<Fetched<SummaryResponse>> {
    return this.caller.call({ endpoint: ENDPOINTS.portfolioSummary, schema: SummaryResponseSchema, signal });
  }

  /**
   * Positions, unpaginated. While `unavailable_exchanges` contains SERVICE those positions are not
   * usable (§2.5): the read is repeated with backoff, and after the last attempt an
   * ExchangeUnavailableError is thrown rather than returning positions that must not be used.
   */
  async positions(body: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Fetched<PositionsResponse>> {
    const { clock, random, logger, positionsRetry } = this.options;
    for (let attempt = 1; ; attempt += 1) {
      const answer = await this.caller.call({
        endpoint: ENDPOINTS.positions,
        body,
        schema: PositionsResponseSchema,
        signal,
      });
      const unavailable = answer.value.unavailable_exchanges ?? [];
      if (!unavailable.includes(SERVICE)) return answer;
      if (attempt >= positionsRetry.maxAttempts) throw new ExchangeUnavailableError(unavailable, attempt);
      const delayMs = backoffDelay(attempt, positionsRetry, random);
      logger.info({ attempt, delayMs: Math.round(delayMs) }, 'positions unavailable for SERVICE, reading again');
      await clock.sleep(delayMs, signal);
    }
  }

  /** GET /trade/v1/portfolio/trades. Query and shape not shown: extra query is passed through, `cursor` followed if
   * given. */
  tradePages(
    query: Readonly<Record<string, QueryValue>> = {},
    signal?: AbortSignal,
  ): AsyncGenerator<Fetched<PortfolioTradesPage>, void, undefined> {
    const fixed = Object.freeze({ ...query });
    return followCursor(endpointName(ENDPOINTS.portfolioTrades), (cursor) => this.tradesPage(fixed, cursor, signal));
  }

  /** One page of GET /trade/v1/portfolio/trades at `cursor`; the same `query` on every page. */
  tradesPage(
    query: Readonly<Record<string, QueryValue>>,
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<Fetched<PortfolioTradesPage>> {
    return this.caller.call({
      endpoint: ENDPOINTS.portfolioTrades,
      query: { ...query, cursor },
      schema: PortfolioTradesPageSchema,
      signal,
    });
  }

  /** GET /trade/v1/portfolio/activities, every page; `limit` 1 to 500. */
  activityPages(
    query: { limit?: number } = {},
    signal?: AbortSignal,
  ): AsyncGenerator<Fetched<ActivitiesPage>, void, undefined> {
    checkPageSize('activities', query.limit, PAGE_SIZE.activities);
    return followCursor(endpointName(ENDPOINTS.activities), (cursor) => this.activitiesPage(query, cursor, signal));
  }

  /** One page of GET /trade/v1/portfolio/activities at `cursor`; `limit` 1 to 500. */
  activitiesPage(
    query: { limit?: number },
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<Fetched<ActivitiesPage>> {
    checkPageSize('activities', query.limit, PAGE_SIZE.activities);
    return this.caller.call({
      endpoint: ENDPOINTS.activities,
      query: { limit: query.limit, cursor },
      schema: ActivitiesPageSchema,
      signal,
    });
  }

  /** POST /trade/v1/portfolio/activities/list (request and response not shown): filters and cursor in the body,
   * activities pages back. */
  activityListPages(
    body: { limit?: number; [filter: string]: unknown } = {},
    signal?: AbortSignal,
  ): AsyncGenerator<Fetched<ActivitiesPage>, void, undefined> {
    checkPageSize('activities/list', body.limit, PAGE_SIZE.activities);
    const filters = Object.freeze({ ...body });
    return followCursor(endpointName(ENDPOINTS.activitiesList), (cursor) =>
      this.caller.call({
        endpoint: ENDPOINTS.activitiesList,
        body: bodyWithCursor(filters, cursor),
        schema: ActivitiesPageSchema,
        signal,
      }),
    );
  }

  /** Settled PnL. 425 pnl_not_ready is waited out (bounded); 503 pnl_unavailable stops at once. */
  pnl(signal?: AbortSignal): Promise<Fetched<SettledPnl>> {
    return this.caller.call({
      endpoint: ENDPOINTS.pnl,
      schema: SettledPnlSchema,
      retry: this.options.pnlRetry,
      signal,
    });
  }

  rebates(signal?: AbortSignal): Promise<Fetched<Rebates>> {
    return this.caller.call({ endpoint: ENDPOINTS.rebates, schema: RebatesSchema, signal });
  }

  withdrawalSupportedAssets(signal?: AbortSignal): Promise<Fetched<SupportedAssetsResponse>> {
    return this.caller.call({ endpoint: ENDPOINTS.withdrawalAssets, schema: SupportedAssetsResponseSchema, signal });
  }

  lpIncentives(query: LpIncentivesQuery = {}, signal?: AbortSignal): Promise<Fetched<LpIncentivesResponse>> {
    return this.caller.call({
      endpoint: ENDPOINTS.lpIncentives,
      query: { ...query },
      schema: LpIncentivesResponseSchema,
      signal,
    });
  }
}
