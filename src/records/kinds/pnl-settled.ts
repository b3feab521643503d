import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { pnlSettledSchema, type PnlSettledPayload, type PnlSettledSource } from '../pnl-settled.ts';

/** `pnl_settled`: a REST read of the sync jobs (src/records/pnl-settled.ts). */
export const pnlSettled = declareKind<PnlSettledPayload, PnlSettledSource>()({
  name: 'pnl_settled',
  schema: pnlSettledSchema,
  topic: { suffix: 'sync.pnl', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['pnl_settled'],
  producer: 'sync',
  from: 'sync `pnl`: one row each',
});
