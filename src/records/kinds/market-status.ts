import { declareKind, MARKET_TOPIC } from '../kind.ts';
import { marketStatusSchema, type MarketStatusPayload } from '../market-status.ts';

/** Status kinds about an event rather than one market: keyed by the event. */
export const EVENT_SCOPED_STATUS: ReadonlySet<string> = new Set([
  'current_market_changed',
  'market_resolution_completed',
]);

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** `market_status`: a market's lifecycle event (src/records/market-status.ts). */
export const marketStatus = declareKind<MarketStatusPayload>()({
  name: 'market_status',
  schema: marketStatusSchema,
  topic: {
    suffix: 'market.status',
    partitions: 3,
    ...MARKET_TOPIC,
    lane: 'short',
    key: {
      what: 'condition_id (event id for event-scoped kinds)',
      of: (p) => {
        const condition = text(p.condition_id);
        const event = text(p.event_id);
        return (EVENT_SCOPED_STATUS.has(String(p.kind)) ? (event ?? condition) : (condition ?? event)) ?? '';
      },
    },
  },
  tables: ['market_status'],
  producer: 'capture',
  from: "the frame's data; `payouts: [{token_id, outcome, payout_micro}]`, `current_market_changed`'s new and previous market, proposals, `market_resolution_completed`'s resolution, redeemed positions and replacement",
});
