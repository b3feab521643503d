import {
  anyText,
  arrayField,
  decimalMicro,
  flag,
  integer,
  numberField,
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
 * A catalogue market (from an event detail; `event_id` added by the sync job): one markets row and
 * one outcomes row per outcome. The display fields people filter on have columns; the rest of the
 * display stays in `_raw`.
 */
export const marketMapper: Mapper<'market'> = {
  table: 'markets',
  map(record) {
    const p = record.payload;
    const observedAt = observedMs(record);
    const marketId = requiredText(p, 'id');
    const conditionId = text(p, 'condition_id');
    const outcomes = arrayField(p, 'outcomes').map((outcome, i) => payloadObject(outcome, `outcomes[${i}]`));
    const rows: MappedRow[] = [{ table: 'markets', row: marketRow(p, outcomes, observedAt) }];
    for (const outcome of outcomes) {
      rows.push({ table: 'outcomes', row: outcomeRow(outcome, marketId, conditionId, observedAt) });
    }
    return rows;
  },
};

function marketRow(p: Payload, outcomes: readonly Payload[], observedAt: number) {
  const display = objectField(p, 'display') ?? {};
  const engine = objectField(p, 'engine_config') ?? {};
  const resolution = objectField(p, 'resolution') ?? {};
  const lp = objectField(p, 'lp_incentive');
  return {
    market_id: requiredText(p, 'id'),
    condition_id: text(p, 'condition_id'),
    event_id: text(p, 'event_id'),
    slug: text(p, 'slug'),
    question: text(p, 'question'),
    neg_risk_id: text(p, 'neg_risk_id'),
    state: text(p, 'state'),
    exchange: text(p, 'exchange'),
    display_type: text(p, 'display_type'),
    source_market_type: text(p, 'source_market_type'),
    line: text(p, 'line'),
    display_label: text(p, 'display_label', text(display, 'display_label')),
    resolution_outcome: text(p, 'resolution_outcome'),
    is_accepting_orders: flag(p, 'is_accepting_orders'),
    halted_at: timeField(p, 'halted_at') ?? null,
    halted_reason: text(p, 'halted_reason'),
    resolved_at: timeField(p, 'resolved_at') ?? null,
    archived_at: timeField(p, 'archived_at') ?? null,
    volume_micro: integer(p, 'volume_micro'),
    volume_24h_micro: integer(p, 'volume_24h_micro'),
    liquidity: text(p, 'liquidity'),
    tick_size_micro: integer(p, 'tick_size_micro') ?? null,
    min_order_size_micro: integer(p, 'min_order_size_micro') ?? null,
    engine_tick_size: integer(engine, 'tick_size') ?? null,
    engine_price_scale: integer(engine, 'price_scale') ?? null,
    engine_size_scale: integer(engine, 'size_scale') ?? null,
    engine_min_price: integer(engine, 'min_price') ?? null,
    engine_max_price: integer(engine, 'max_price') ?? null,
    resolution_status: text(p, 'resolution_status'),
    resolution_source: text(resolution, 'source'),
    resolution_reference_value: anyText(resolution, 'reference_value'),
    resolution_observed_value: anyText(resolution, 'observed_value'),
    resolution_observed_at: timeField(resolution, 'observed_at') ?? null,
    three_way_role: text(p, 'three_way_role', text(display, 'three_way_role')),
    is_three_way: flag(p, 'is_three_way') ?? flag(display, 'is_three_way'),
    game_number: integer(p, 'game_number') ?? integer(display, 'game_number') ?? null,
    lp_pool_micro: (lp && integer(lp, 'pool_micro')) ?? null,
    lp_max_spread_micro: (lp && integer(lp, 'max_spread_micro')) ?? null,
    lp_min_shares_micro: (lp && integer(lp, 'min_shares_micro')) ?? null,
    ...displayFilters(display),
    token_ids: outcomes.map((outcome) => text(outcome, 'token_id')),
    // The sync jobs publish markets from event detail reads only.
    is_detail: true,
    observed_at: observedAt,
  };
}

/**
 * What a catalogue is filtered on (§2.9 display): resolution criteria, the reference price and
 * bands of a price-threshold or recurring market (whole units on the wire, micro-units here), its
 * cadence, and the oracle's names for the underlying.
 */
function displayFilters(display: Payload) {
  return {
    resolution_criteria: text(display, 'resolution_criteria'),
    reference_price_micro: decimalMicro(display, 'reference_price') ?? null,
    currency: text(display, 'currency'),
    reference_at: timeField(display, 'reference_at') ?? null,
    observe_at: timeField(display, 'observe_at') ?? null,
    cadence_seconds: integer(display, 'cadence_seconds') ?? null,
    band_index: integer(display, 'band_index') ?? null,
    band_lower_micro: decimalMicro(display, 'band_lower') ?? null,
    band_upper_micro: decimalMicro(display, 'band_upper') ?? null,
    band_label: text(display, 'band_label'),
    oracle_feed_id: anyText(display, 'oracle_feed_id'),
    oracle_benchmark_symbol: text(display, 'oracle_benchmark_symbol'),
    oracle_pro_symbol: text(display, 'oracle_pro_symbol'),
    charting_symbol: text(display, 'charting_symbol'),
  };
}

function outcomeRow(o: Payload, marketId: string, conditionId: string, observedAt: number) {
  const display = objectField(o, 'display') ?? {};
  const shown = (field: string) => text(o, field, text(display, field));
  return {
    token_id: requiredText(o, 'token_id'),
    outcome_id: text(o, 'id'),
    market_id: marketId,
    condition_id: conditionId,
    outcome_index: integer(o, 'index'),
    label: shown('label'),
    short_label: shown('short_label'),
    price_micro: integer(o, 'price_micro') ?? null,
    best_bid_micro: integer(o, 'best_bid_micro') ?? null,
    best_ask_micro: integer(o, 'best_ask_micro') ?? null,
    spread_micro: integer(o, 'spread_micro') ?? null,
    resolution_price_micro: integer(o, 'resolution_price_micro') ?? null,
    bet_slip_title: shown('bet_slip_title'),
    resolution_label: shown('resolution_label'),
    kind: shown('kind'),
    team_side: shown('team_side'),
    side: shown('side'),
    threshold: numberField(o, 'threshold') ?? numberField(display, 'threshold'),
    observed_at: observedAt,
  };
}
