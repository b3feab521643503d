import { arrayField, MappingError, objectField, payloadObject, text } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { MappedRow, Mapper } from '../types.ts';
import { chainLink, positionsRows, summaryRow, type SnapshotOrigin } from './portfolio-rows.ts';

/**
 * A `portfolio.sync` event of the portfolio stream (§6.4): one position snapshot with its positions
 * — all of them for an anchor of capture's chain, only the changes otherwise —, and a
 * portfolio_summaries row per exchange.
 */
export const portfolioSyncMapper: Mapper<'portfolio_sync'> = {
  table: 'position_snapshots',
  map(record) {
    const p = record.payload;
    const origin: SnapshotOrigin = {
      account: record.key,
      source: 'sse:portfolio.sync',
      observedAt: observedMs(record),
      streamId: text(p, 'stream_id'),
      streamSeq: text(p, 'seq'),
    };
    const rows: MappedRow[] = [];
    const positions = objectField(p, 'positions');
    if (positions) rows.push(...positionsRows(positions, origin, chainLink(p)));
    const summaries = arrayField(objectField(p, 'summary') ?? {}, 'summaries');
    summaries.forEach((summary, i) => rows.push(summaryRow(payloadObject(summary, `summary.summaries[${i}]`), origin)));
    if (rows.length === 0)
      throw new MappingError('positions', 'a portfolio.sync event with neither positions nor summaries');
    return rows;
  },
};
