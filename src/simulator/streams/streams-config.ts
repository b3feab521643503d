import type { BookFrames } from './market-stream.ts';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from './protocol.ts';

// Its own module, light on purpose: `tapehouse simulate --help` shows these defaults without
// loading the stream server (and ws).

export interface StreamsConfig {
  /** Heartbeat period of every stream (§6.1: about 10 s). */
  heartbeatMs: number;
  /** `snapshot`: a replacement ladder for every book change (the venue today); `delta`: changed levels only. */
  bookFrames: BookFrames;
  /** The portfolio stream syncs at least this often, besides on every change. */
  portfolioSyncMs: number;
  /**
   * Price streams served (`on`), answered 503 `price_stream_not_configured` (`unconfigured`), or not
   * routed at all: 404 `route_not_found` (`absent`) — §7.5's two ways a deployment leaves them out.
   */
  priceStreams: 'on' | 'unconfigured' | 'absent';
  priceIntervalMs: number;
  /**
   * The "shared symbol budget" of §7.5: symbols subscribed at once over every price-stream
   * connection; an attempt that would pass it gets 503 `price_stream_capacity_exceeded`. 0: no limit.
   */
  priceSymbolCapacity: number;
  limits: StreamLimits;
}

export const DEFAULT_STREAMS: StreamsConfig = {
  heartbeatMs: 10_000,
  bookFrames: 'snapshot',
  portfolioSyncMs: 30_000,
  priceStreams: 'unconfigured',
  priceIntervalMs: 1_000,
  priceSymbolCapacity: 0,
  limits: DEFAULT_STREAM_LIMITS,
};
