/**
 * The market stream: the catalogue of what to subscribe, the connections (tokens shared out among
 * them), trades, quotes and status events into records, anchors and re-seeds scheduled.
 */
export { type Shard } from './catalogue.ts';
export { MarketCapture } from './market-capture.ts';
