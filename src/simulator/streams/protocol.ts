/**
 * The streams protocol of this simulator (README, "Streams protocol"): paths, channels, frame
 * types, error actions and close codes. The interface (§6) leaves all of these "not shown".
 */

export const STREAM_PATHS = {
  market: '/trade/v1/market-stream',
  account: '/trade/v1/account-stream',
  portfolio: '/trade/v1/portfolio/stream',
  prices: '/api/v1/prices/stream',
  oracle_pro: '/api/v1/prices/oracle-pro/stream',
} as const;

export type StreamEndpoint = keyof typeof STREAM_PATHS;
export const STREAM_ENDPOINTS = Object.keys(STREAM_PATHS) as StreamEndpoint[];

/** The endpoint a request path names; a trailing slash names the same one (§8.5). */
export function streamEndpointOf(path: string): StreamEndpoint | undefined {
  const bare = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return STREAM_ENDPOINTS.find((e) => STREAM_PATHS[e] === bare);
}

export const MARKET_CHANNELS = ['orderbook', 'best_quote', 'trades', 'market_status'] as const;
export type MarketChannel = (typeof MARKET_CHANNELS)[number];
export const ACCOUNT_CHANNEL = 'account_events';

/** Frame `type`s that are not channels. */
export type ControlType = 'subscribed' | 'unsubscribed' | 'heartbeat' | 'pong' | 'sequence_reset' | 'error';

/** What a client does after an error frame. */
export const ERROR_ACTIONS = ['keep', 'resubscribe', 'reconnect'] as const;
export type ErrorAction = (typeof ERROR_ACTIONS)[number];

/** Close codes the venue sends; 1006 is what a client sees when the venue drops the TCP connection. */
export const CLOSE_CODES = {
  goingAway: 1001,
  messageTooBig: 1009,
  reconnect: 4000,
  slowConsumer: 4001,
  credentialsRevoked: 4003,
} as const;

export interface StreamLimits {
  /** A client message larger than this closes the socket with 1009. */
  maxClientMessageBytes: number;
  /** Subjects (channel × id) one market socket may hold. */
  maxSubjectsPerConnection: number;
  /** Unsent bytes beyond which a socket is closed with 4001 (the client does not read). */
  slowConsumerBytes: number;
  /** Connection attempts per IP per endpoint per 60 s (§8.5). */
  attemptsPerMinute: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxClientMessageBytes: 64 * 1024,
  maxSubjectsPerConnection: 2_000,
  slowConsumerBytes: 16 * 1024 * 1024,
  attemptsPerMinute: 300,
};
