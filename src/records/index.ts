/**
 * The record contract's door: the envelope every record shares (record.ts), the kinds' declarations
 * (kinds/, one module per kind: name, schema, topic, tables) and everything derived from them
 * (catalogue.ts, payloads.ts, schemas.ts), and one module per kind with its payload type. Every
 * import of the contract from outside src/records comes through here (.dependency-cruiser.cjs).
 * docs/records.md says how to add a kind.
 */
export * from './catalogue.ts';
export * from './kind.ts';
export { EVENT_SCOPED_STATUS } from './kinds/market-status.ts';
export * from './json.ts';
export * from './record.ts';
export * from './payloads.ts';
export * from './schemas.ts';
export * from './schema.ts';
export * from './account-batch.ts';
export * from './account-event.ts';
export * from './activity.ts';
export * from './book-change-form.ts';
export * from './book-change.ts';
export * from './book-snapshot.ts';
export * from './capture-gap.ts';
export * from './category.ts';
export * from './data-quality.ts';
export * from './event.ts';
export * from './fill.ts';
export * from './lookup.ts';
export * from './lp-incentive.ts';
export * from './market-status.ts';
export * from './market.ts';
export * from './order.ts';
export * from './pnl-settled.ts';
export * from './portfolio-summary.ts';
export * from './portfolio-sync.ts';
export * from './position.ts';
export * from './price.ts';
export * from './quote.ts';
export * from './rebates.ts';
export * from './sports-sections.ts';
export * from './trade.ts';
export * from './withdrawal-assets.ts';
