import type { Json } from '../../../bus/record.ts';
import { arrayField, integer, isObject, MappingError, objectField, text, timeField, type Payload } from '../fields.ts';
import { eventMs, frameOrder } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/**
 * A lifecycle event (`market_status` channel): one market_status row, whatever its kind (kinds
 * the interface does not name yet are kept). Split payouts arrive as `payouts: [{token_id,
 * payout_micro}]`; `current_market_changed` names the new market in `market_id`/`condition_id`
 * and its `outcomes` (or in `new_*` fields), and `market_resolution_completed` its `replacement`.
 */
export const marketStatusMapper: Mapper<'market_status'> = {
  table: 'market_status',
  map(record) {
    const p = record.payload;
    const kind = String(p.kind);
    const payouts = arrayField(p, 'payouts').map((entry, i) => payout(entry, i));
    const changed = kind === 'current_market_changed';
    // `market_resolution_completed`: the cycle that took over (null when none did).
    const replacement = objectField(p, 'replacement');
    return [
      {
        table: 'market_status',
        row: {
          condition_id: text(p, 'condition_id'),
          market_id: text(p, 'market_id'),
          event_id: text(p, 'event_id'),
          kind,
          status_at: eventMs(record, p, ['status_at', 'ts']),
          sequence: integer(p, 'sequence'),
          ...frameOrder(record),
          reason: text(p, 'reason', text(p, 'halted_reason')),
          winning_token_id: text(p, 'winning_token_id'),
          payout_token_ids: payouts.map(([token]) => token),
          payouts_micro: payouts.map(([, amount]) => amount),
          new_market_id: text(p, 'new_market_id', changed ? text(p, 'market_id') : ''),
          new_condition_id: text(p, 'new_condition_id', changed ? text(p, 'condition_id') : ''),
          new_token_ids: newTokenIds(p, changed),
          proposed_token_id: text(p, 'proposed_token_id'),
          proposed_outcome: text(p, 'proposed_outcome'),
          proposal_round: integer(p, 'proposal_round'),
          winning_outcome: text(p, 'winning_outcome'),
          payout_outcomes: arrayField(p, 'payouts').map((entry) => (isObject(entry) ? text(entry, 'outcome') : '')),
          resolution: text(p, 'resolution', RESOLUTION_OF_KIND[kind] ?? ''),
          redeemed_positions: integer(p, 'redeemed_positions') ?? null,
          replacement_market_id: replacement ? text(replacement, 'market_id', text(replacement, 'id')) : '',
          replacement_condition_id: replacement ? text(replacement, 'condition_id') : '',
          replacement_slug: replacement ? text(replacement, 'slug') : '',
          replacement_token_ids: replacement ? tokenIdsOf(replacement) : [],
          previous_market_id: text(p, 'previous_market_id'),
          previous_condition_id: text(p, 'previous_condition_id'),
          opens_at: timeField(p, 'opens_at') ?? null,
          closes_at: timeField(p, 'closes_at') ?? null,
        },
      },
    ];
  },
};

function payout(entry: Json, i: number): [string, string | number] {
  if (isObject(entry)) {
    const amount = entry.payout_micro;
    if (typeof entry.token_id === 'string' && (typeof amount === 'string' || typeof amount === 'number'))
      return [entry.token_id, amount];
  }
  throw new MappingError(`payouts[${i}]`, 'is not a {token_id, payout_micro} entry');
}

/** The resolution a kind implies when the frame does not say (`market_resolution_completed` says it in `resolution`).
 */
const RESOLUTION_OF_KIND: Readonly<Record<string, string>> = {
  outcome_proposed: 'winner',
  market_resolved: 'winner',
  payouts_proposed: 'payouts',
  payouts_resolved: 'payouts',
};

function newTokenIds(p: Payload, changed: boolean): string[] {
  const listed = arrayField(p, 'new_token_ids');
  if (listed.length > 0) return listed.map(String);
  if (!changed) return [];
  return tokenIdsOf(p);
}

/** The token ids of a market reference's `outcomes` (`{outcome_id, token_id, label}`). */
function tokenIdsOf(p: Payload): string[] {
  return arrayField(p, 'outcomes').flatMap((outcome) =>
    isObject(outcome) && typeof outcome.token_id === 'string' ? [outcome.token_id] : [],
  );
}
