import {
  arrayField,
  flag,
  integer,
  MappingError,
  numberField,
  payloadObject,
  requiredInteger,
  requiredText,
  text,
  timeField,
  type Payload,
} from '../fields.ts';
import type { MappedRow } from '../types.ts';

/**
 * Rows of a positions response (§2.5) and of portfolio summaries, shared by the REST reads and the
 * portfolio stream's `portfolio.sync` events, which carry both whole.
 */

export interface SnapshotOrigin {
  account: string;
  source: string;
  /** When the read was made, for a response without `as_of`. */
  observedAt: number;
  streamId?: string;
  streamSeq?: string;
}

/**
 * Where a read stands in its chain (capture's `position_chain`, src/capture/account/position-chain.ts): an
 * anchor holds every position, a change read only those that changed and the tokens gone.
 */
export interface ChainLink {
  id: string;
  anchor: boolean;
  anchorAsOf: number;
  positionCount: number;
  removed: string[];
}

/** The chain link of a portfolio stream payload, if capture put one (a whole read has none). */
export function chainLink(p: Payload): ChainLink | undefined {
  const link = p.position_chain;
  if (link === undefined) return undefined;
  const chain = payloadObject(link, 'position_chain');
  const count = chain.position_count;
  if (typeof chain.anchor !== 'boolean' || typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new MappingError('position_chain', 'needs anchor (boolean) and position_count (integer ≥ 0)');
  }
  const anchorAsOf = timeField(chain, 'anchor_as_of');
  if (anchorAsOf === undefined) throw new MappingError('position_chain.anchor_as_of', 'is missing', 'invalid_time');
  return {
    id: requiredText(chain, 'id'),
    anchor: chain.anchor,
    anchorAsOf,
    positionCount: count,
    removed: arrayField(chain, 'removed').map(String),
  };
}

/**
 * One position_snapshots row (even for no positions: it says which rows form the snapshot) and a
 * positions row each — for a change read of a chain, a row per position that changed and one per
 * token gone (`removed`, no shares).
 */
export function positionsRows(response: Payload, origin: SnapshotOrigin, link?: ChainLink): MappedRow[] {
  const asOf = timeField(response, 'as_of') ?? origin.observedAt;
  const positions = arrayField(response, 'positions').map((position, i) => payloadObject(position, `positions[${i}]`));
  const chain = link?.id ?? '';
  const changes = positions.length + (link?.removed.length ?? 0);
  const rows: MappedRow[] = [
    {
      table: 'position_snapshots',
      row: {
        account: origin.account,
        as_of: asOf,
        position_count: link ? link.positionCount : positions.length,
        anchor: link ? link.anchor : true,
        change_count: changes,
        chain,
        chain_start: link ? link.anchorAsOf : asOf,
        unavailable_exchanges: arrayField(response, 'unavailable_exchanges').map(String),
        stream_id: origin.streamId ?? '',
        stream_seq: origin.streamSeq ?? '',
        source: origin.source,
      },
    },
  ];
  for (const position of positions)
    rows.push({
      table: 'position_observations',
      row: { ...positionRow(position, origin, asOf), chain, removed: false },
    });
  for (const token of link?.removed ?? []) {
    rows.push({
      table: 'position_observations',
      row: {
        account: origin.account,
        as_of: asOf,
        token_id: token,
        shares_micro: 0,
        source: origin.source,
        chain,
        removed: true,
      },
    });
  }
  return rows;
}

function positionRow(p: Payload, origin: SnapshotOrigin, asOf: number) {
  return {
    account: origin.account,
    as_of: asOf,
    token_id: requiredText(p, 'token_id'),
    condition_id: text(p, 'condition_id'),
    exchange: text(p, 'exchange'),
    accounting_status: text(p, 'accounting_status'),
    shares_micro: requiredInteger(p, 'shares_micro'),
    available_shares_micro: integer(p, 'available_shares_micro'),
    mergeable_shares_micro: integer(p, 'mergeable_shares_micro'),
    mergeable: flag(p, 'mergeable'),
    redeemable: flag(p, 'redeemable'),
    avg_price_micro: integer(p, 'avg_price_micro') ?? null,
    current_price_micro: integer(p, 'current_price_micro') ?? null,
    current_value_micro: integer(p, 'current_value_micro') ?? null,
    open_cost_basis_micro: integer(p, 'open_cost_basis_micro') ?? null,
    profit_loss_micro: integer(p, 'profit_loss_micro') ?? null,
    profit_loss_percent: numberField(p, 'profit_loss_percent'),
    to_win_micro: integer(p, 'to_win_micro') ?? null,
    source: origin.source,
  };
}

/** A portfolio summary (one exchange's) as a portfolio_summaries row. */
export function summaryRow(s: Payload, origin: SnapshotOrigin): MappedRow {
  return {
    table: 'portfolio_summaries',
    row: {
      account: origin.account,
      exchange: text(s, 'exchange'),
      as_of: timeField(s, 'as_of') ?? origin.observedAt,
      accounting_status: text(s, 'accounting_status'),
      cash_balance_micro: requiredInteger(s, 'cash_balance_micro'),
      free_cash_micro: integer(s, 'free_cash_micro'),
      open_cost_basis_micro: integer(s, 'open_cost_basis_micro'),
      open_unrealized_pnl_micro: integer(s, 'open_unrealized_pnl_micro'),
      portfolio_value_micro: integer(s, 'portfolio_value_micro'),
      positions_value_micro: integer(s, 'positions_value_micro'),
      source: origin.source,
    },
  };
}
