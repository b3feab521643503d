/**
 * The venue's two price feeds (SSE).
 */
export { PRICE_FEEDS, PriceCapture } from './price-streams.ts';
