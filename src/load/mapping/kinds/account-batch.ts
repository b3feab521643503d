import {
  arrayField,
  integer,
  objectField,
  payloadObject,
  requiredText,
  text,
  timeField,
  type Payload,
} from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { MappedRow, Mapper } from '../types.ts';

/**
 * A read of an account batch (§2.4): one account_batches row, and one withdrawal_states row when
 * it carries a withdrawal object (the withdrawal's state at that read). Ops and the failure's
 * recovery stay in `_raw`; their kinds and the failure's code have columns.
 */
export const accountBatchMapper: Mapper<'account_batch'> = {
  table: 'account_batches',
  map(record) {
    const p = record.payload;
    const observedAt = observedMs(record);
    const hash = String(p.batch_hash);
    const failure = objectField(p, 'failure');
    const withdrawal = objectField(p, 'withdrawal');
    const time = (o: Payload, field: string) => timeField(o, field) ?? null;
    const rows: MappedRow[] = [
      {
        table: 'account_batches',
        row: {
          account: record.key,
          batch_hash: hash,
          seq: integer(p, 'seq') ?? null,
          status: text(p, 'status'),
          origin: text(p, 'origin'),
          created_at: time(p, 'created_at'),
          executed_at: time(p, 'executed_at'),
          unwound_at: time(p, 'unwound_at'),
          deadline_unix_seconds: integer(p, 'deadline_unix_seconds') ?? null,
          tx_hash: text(p, 'tx_hash'),
          heals_batch_hash: text(p, 'heals_batch_hash'),
          superseded_by_batch_hash: text(p, 'superseded_by_batch_hash'),
          failure_code: failure ? text(failure, 'code') : '',
          op_kinds: arrayField(p, 'ops').map((op, i) => requiredText(payloadObject(op, `ops[${i}]`), 'kind')),
          withdrawal_state: withdrawal ? text(withdrawal, 'state') : '',
          observed_at: observedAt,
        },
      },
    ];
    if (withdrawal) {
      const source = objectField(withdrawal, 'source') ?? {};
      const destination = objectField(withdrawal, 'destination') ?? {};
      rows.push({
        table: 'withdrawal_states',
        row: {
          account: record.key,
          batch_hash: hash,
          state: text(withdrawal, 'state'),
          updated_at: time(withdrawal, 'updated_at'),
          source_chain_id: text(source, 'chain_id'),
          source_status: text(source, 'status'),
          source_tx_hash: text(source, 'tx_hash'),
          source_confirmed_at: time(source, 'confirmed_at'),
          destination_chain_id: text(destination, 'chain_id'),
          destination_status: text(destination, 'status'),
          destination_path: text(destination, 'path'),
          destination_tx: text(destination, 'tx'),
          destination_delivered_at: time(destination, 'delivered_at'),
          observed_at: observedAt,
        },
      });
    }
    return rows;
  },
};
