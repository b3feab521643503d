import type { z } from 'zod';
import { accountBatchSchema } from './account-batch.ts';
import { accountEventSchema } from './account-event.ts';
import { activitySchema } from './activity.ts';
import { bookChangeSchema } from './book-change.ts';
import { bookSnapshotSchema } from './book-snapshot.ts';
import { captureGapSchema } from './capture-gap.ts';
import { categorySchema } from './category.ts';
import { dataQualitySchema } from './data-quality.ts';
import { eventSchema } from './event.ts';
import { fillSchema } from './fill.ts';
import type { RecordKind } from './kinds.ts';
import { lookupSchema } from './lookup.ts';
import { lpIncentiveSchema } from './lp-incentive.ts';
import { marketStatusSchema } from './market-status.ts';
import { marketSchema } from './market.ts';
import { orderSchema } from './order.ts';
import type { Payload } from './payloads.ts';
import { pnlSettledSchema } from './pnl-settled.ts';
import { portfolioSummarySchema } from './portfolio-summary.ts';
import { portfolioSyncSchema } from './portfolio-sync.ts';
import { positionSchema } from './position.ts';
import { priceSchema } from './price.ts';
import { quoteSchema } from './quote.ts';
import type { RecordOf } from './record.ts';
import { rebatesSchema } from './rebates.ts';
import { sportsSectionsSchema } from './sports-sections.ts';
import { tradeSchema } from './trade.ts';
import { withdrawalAssetsSchema } from './withdrawal-assets.ts';

/**
 * Each kind's schema for the bus boundary (in the kind's module, next to its payload type): what a
 * payload read back from the bus must be to be loaded. A consumer parses the payload with its
 * kind's schema and reads the result typed (`Read<K>`); a misfit is a dead letter naming its field
 * (src/load/mapping/map-delivery.ts).
 */
export const PAYLOAD_SCHEMAS = {
  trade: tradeSchema,
  book_change: bookChangeSchema,
  book_snapshot: bookSnapshotSchema,
  quote: quoteSchema,
  market_status: marketStatusSchema,
  capture_gap: captureGapSchema,
  data_quality: dataQualitySchema,
  account_event: accountEventSchema,
  portfolio_sync: portfolioSyncSchema,
  event: eventSchema,
  market: marketSchema,
  order: orderSchema,
  fill: fillSchema,
  position: positionSchema,
  portfolio_summary: portfolioSummarySchema,
  pnl_settled: pnlSettledSchema,
  rebates: rebatesSchema,
  activity: activitySchema,
  lp_incentive: lpIncentiveSchema,
  withdrawal_assets: withdrawalAssetsSchema,
  price: priceSchema,
  oracle_pro_price: priceSchema,
  lookup: lookupSchema,
  sports_sections: sportsSectionsSchema,
  category: categorySchema,
  account_batch: accountBatchSchema,
} satisfies { [K in RecordKind]: z.ZodType };

/**
 * A payload of kind K as read at the bus boundary: what its schema gives. It is wider than
 * `Payload<K>` where the loaders read older or foreign records (an id as a number, an amount as a
 * JSON number, the older form of a kind); fields no one checks travel on as sent.
 */
export type Read<K extends RecordKind> = z.output<(typeof PAYLOAD_SCHEMAS)[K]>;

/** A record read back from the bus whose payload its kind's schema has read. */
export type ReadRecord<K extends RecordKind = RecordKind> = K extends RecordKind
  ? Omit<RecordOf<K>, 'payload'> & { payload: Read<K> }
  : never;

/**
 * The type and the schema agree (checked when compiling): every payload a producer can build
 * (`Payload<K>`) is one its kind's schema accepts (`z.input`). A kind whose type and schema drift
 * apart names itself here.
 */
type SchemaRefusesItsType = {
  [K in RecordKind]: Payload<K> extends z.input<(typeof PAYLOAD_SCHEMAS)[K]> ? never : K;
}[RecordKind];
export const EVERY_TYPED_PAYLOAD_FITS_ITS_SCHEMA: [SchemaRefusesItsType] extends [never] ? true : SchemaRefusesItsType =
  true;
