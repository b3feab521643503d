import type { VenueClient } from '../api/client.ts';
import type { Bus } from '../bus/bus.ts';
import type { TopicCatalogue } from '../bus/topics.ts';
import type { ConnectionBudgets } from '../streams/connection-budget.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';
import type { Secret } from '../util/secret.ts';
import type { Shard, MarketCapture } from './market/index.ts';
import type { CoverageStore } from './coverage/index.ts';
import type { CaptureCounters } from './frames/index.ts';

export const STREAM_PATHS = {
  market: '/trade/v1/market-stream',
  account: '/trade/v1/account-stream',
  portfolio: '/trade/v1/portfolio/stream',
  prices: '/api/v1/prices/stream',
  oraclePro: '/api/v1/prices/oracle-pro/stream',
} as const;

export interface CaptureOptions {
  client: VenueClient;
  bus: Bus;
  /** The venue's base URL (http or https); the sockets use ws or wss on the same host. */
  baseUrl: string;
  /** Personal access token: REST re-seeds of books, and the account and portfolio streams. */
  token?: Secret | null;
  topics?: TopicCatalogue;
  /** Label of the account the token belongs to (key of its records). */
  account?: string;
  /**
   * Which streams to capture; account and portfolio default to on when there is a token, the two
   * price feeds (`prices`, `oraclePro`) to on (a deployment without them gets `endpoint_not_offered` gaps).
   */
  streams?: { market?: boolean; account?: boolean; portfolio?: boolean; prices?: boolean; oraclePro?: boolean };
  /** Only these symbols on the price feeds (`?symbols=`); absent: what each feed sends by default. */
  priceSymbols?: readonly string[];
  /** A price feed this deployment does not offer is asked again this long after. */
  notOfferedRetryMs?: number;
  tokensPerConnection?: number;
  /** No frame for this long means the view is untrusted (heartbeats come about every 10 s). */
  silenceMs?: number;
  /** Capture a share of the events (`--shard i/n`). */
  shard?: Shard;
  catalogueRefreshMs?: number;
  anchorEveryMs?: number;
  dropGraceMs?: number;
  reseedConcurrency?: number;
  /** Where the last covered instant of each stream is kept between runs (default: in memory only). */
  coverageStore?: CoverageStore;
  markEveryMs?: number;
  /** More records than this waiting for the bus pause the streams until a fifth of it is left. */
  maxQueuedRecords?: number;
  clock?: Clock;
  /** Attempt budgets per endpoint (§8.5), shared with any other stream of the process. */
  budgets?: ConnectionBudgets;
  log?: Logger;
  /**
   * Aborted: stop waiting for the venue's catalogue (a stop asked for during start-up). The
   * handle still comes back, with nothing subscribed; `stop()` it as usual.
   */
  signal?: AbortSignal;
}

export { CAPTURE_DEFAULTS } from './defaults.ts';

export interface CaptureStats {
  frames: number;
  framesPerSecond: number;
  /** Records durably published, in all and per kind. */
  records: number;
  recordsByKind: Record<string, number>;
  /** Records handed to the bus and not yet durable. */
  queuedRecords: number;
  /** Connections lost (closed, silent, dropped), our own stops excepted. */
  reconnects: number;
  /** `frames` and `reconnects` per stream (market, account, portfolio, prices, oracle_pro). */
  framesByStream: Record<string, number>;
  reconnectsByStream: Record<string, number>;
  /** Scopes not covered right now (a feed the deployment does not offer is not one: see `unavailableStreams`). */
  openGaps: number;
  /** Streams the deployment answered it does not offer (the price feeds), asked again later. */
  unavailableStreams: string[];
  /** Since when (wall-clock ms) each of those is not offered: the venue's first refusal. */
  unavailableSinceMs: Record<string, number>;
  gapsRecorded: number;
  /** Refused stream connection attempts (429) and REST 429s seen by re-seeds. */
  refused429: number;
  rest429: number;
  duplicatesDropped: number;
  /** Book frames older (by the venue's book sequence) than the ladder already held: skipped, the ladder being newer. */
  staleBookFrames: number;
  dataQualityRecords: number;
  marketConnections: number;
  subscribedTokens: number;
  reseedsPending: number;
  reseeds: number;
  counters: CaptureCounters;
}

export interface CaptureHandle {
  /** Closes every stream, publishes what is queued, saves the coverage marks. */
  stop(): Promise<void>;
  stats(): CaptureStats;
  /** Resolves when every record produced so far is durable on the bus. */
  drain(): Promise<void>;
  /**
   * Saves the coverage marks again, after a stop: on a bus that is not durable the stop's save
   * waits for gap records the loaders have not stored yet; once they have, this moves the marks on.
   */
  saveMarks(): Promise<void>;
  readonly market: MarketCapture | null;
}
