/** Every resource of the venue's interface as a zod schema (tolerant reader, `_micro` as bigint). */
export * from './common.ts';
export * from './failure.ts';
export * from './lookups.ts';
export * from './order.ts';
export * from './batch.ts';
export * from './portfolio.ts';
export * from './withdrawal-assets.ts';
export * from './lp-incentives.ts';
export * from './market.ts';
export * from './event.ts';
export * from './orderbook.ts';
export * from './problem.ts';
