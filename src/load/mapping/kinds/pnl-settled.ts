import { integer, text, timeField } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/** The latest settled PnL bucket as read: one pnl_settled row. */
export const pnlSettledMapper: Mapper<'pnl_settled'> = {
  table: 'pnl_settled',
  map(record) {
    const p = record.payload;
    const observedAt = observedMs(record);
    return [
      {
        table: 'pnl_settled',
        row: {
          account: record.key,
          bucket_at: timeField(p, 'bucket_at') ?? observedAt,
          chain_id: integer(p, 'chain_id'),
          classification_version: integer(p, 'classification_version'),
          collateral_micro: integer(p, 'collateral_micro'),
          cumulative_inflow_micro: integer(p, 'cumulative_inflow_micro'),
          cumulative_outflow_micro: integer(p, 'cumulative_outflow_micro'),
          custody_through_block: integer(p, 'custody_through_block'),
          custody_through_block_hash: text(p, 'custody_through_block_hash'),
          custody_through_block_time: timeField(p, 'custody_through_block_time') ?? null,
          lifetime_pnl_micro: integer(p, 'lifetime_pnl_micro'),
          mark_captured_at: timeField(p, 'mark_captured_at') ?? null,
          mark_run_id: text(p, 'mark_run_id'),
          position_count: integer(p, 'position_count'),
          positions_value_micro: integer(p, 'positions_value_micro'),
          wallet_universe_generation: integer(p, 'wallet_universe_generation'),
          observed_at: observedAt,
        },
      },
    ];
  },
};
