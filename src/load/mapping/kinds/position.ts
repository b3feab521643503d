import { observedMs } from '../record-times.ts';
import { sourceOf } from '../sources.ts';
import type { Mapper } from '../types.ts';
import { positionsRows } from './portfolio-rows.ts';

/** A whole positions read (the sync job publishes the response as one record): the snapshot and its positions. */
export const positionMapper: Mapper<'position'> = {
  table: 'position_snapshots',
  map(record) {
    return positionsRows(record.payload, {
      account: record.key,
      source: sourceOf(record, 'rest:positions/list'),
      observedAt: observedMs(record),
    });
  },
};
