import { observedMs } from '../record-times.ts';
import { sourceOf } from '../sources.ts';
import type { Mapper } from '../types.ts';
import { summaryRow } from './portfolio-rows.ts';

/** One exchange's portfolio summary as read by the sync job: one portfolio_summaries row. */
export const portfolioSummaryMapper: Mapper<'portfolio_summary'> = {
  table: 'portfolio_summaries',
  map(record) {
    const origin = {
      account: record.key,
      source: sourceOf(record, 'rest:portfolio/summary'),
      observedAt: observedMs(record),
    };
    return [summaryRow(record.payload, origin)];
  },
};
