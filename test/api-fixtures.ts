/**
 * Realistic venue payloads (shaped after ../shared/interface.md) and a stubbed venue on undici's
 * MockAgent, shared by the api tests. Each payload carries a field the interface does not name
 * (`venue_extra`) so tests can check it survives parsing.
 */
import { MockAgent } from 'undici';
import { Availability } from '../src/api/availability.ts';
import { VenueClient, type VenueClientOptions } from '../src/api/client.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import { createLogger } from '../src/util/log.ts';
import { Secret } from '../src/util/secret.ts';
import { ManualClock } from '../src/util/clock.ts';

export const BASE_URL = 'http://venue.test';
export const TOKEN = 'pat_live_9f8e7d6c5b4a';

export const failurePayload = {
  code: 'post_only_would_cross',
  title: 'Post-only order would cross',
  detail: 'The book moved after acceptance.',
  recovery: { strategy: 'none' },
};

export const orderPayload = {
  internal_id: '1b6f3c2e-8d0a-4c55-9a57-2f0e1d3c4b5a',
  status: 'MATCHED',
  is_terminal: true,
  type: 'LIMIT',
  side: 'BUY',
  token_id: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
  condition_id: '0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1',
  exchange: 'SERVICE',
  price_micro: '540000',
  original_size_micro: '25000000',
  size_matched_micro: '25000000',
  avg_fill_price_micro: '538500',
  created_at: '2025-11-20T14:03:11.123Z',
  expiration: null,
  venue_extra: { routing: 'smart' },
};

export const rejectedOrderPayload = {
  ...orderPayload,
  internal_id: '2c7f4d3f-9e1b-4d66-8b68-3f1f2e4d5c6b',
  status: 'REJECTED',
  failure: failurePayload,
};

export const fillPayload = {
  trade_id: 'tr_01HGW3',
  fill_id: 'fl_01HGW3_1',
  order_id: orderPayload.internal_id,
  token_id: orderPayload.token_id,
  status: 'CONFIRMED',
  exchange: 'SERVICE',
  side: 'BUY',
  role: 'MAKER',
  price_micro: '538500',
  shares_micro: '25000000',
  fee_micro: '0',
  executed_at: '2025-11-20T14:03:12.004Z',
  transaction_hash: '0x9a8b7c',
  venue_extra: 1,
};

export const batchPayload = {
  batch_hash: '0xbatch01',
  seq: 42,
  status: 'PENDING',
  origin: 'API',
  created_at: '2025-11-20T10:00:00Z',
  deadline_unix_seconds: 1763640000,
  failure: null,
  ops: [
    {
      kind: 'SPLIT',
      condition_id: orderPayload.condition_id,
      market_id: '6a1e0c7d-0f3b-4d8e-9a1b-2c3d4e5f6a7b',
      shares_micro: 10000000,
    },
  ],
  withdrawal: {
    state: 'QUEUED',
    updated_at: '2025-11-20T10:00:01Z',
    source: { chain_id: 137, status: 'QUEUED', tx_hash: '0xsrc', confirmed_at: null },
    destination: { chain_id: 8453, status: 'WAITING', path: 'SPOKE_POOL', tx: null, delivered_at: null },
  },
  venue_extra: 'x',
};

export const marketLookupPayload = {
  market_id: '6a1e0c7d-0f3b-4d8e-9a1b-2c3d4e5f6a7b',
  market_title: 'Will it rain in Paris on Friday?',
  event_slug: 'paris-rain-friday',
  logo_url: 'https://cdn.example/paris.png',
  neg_risk_id: 'nr_1',
  outcome_name: 'Yes',
  state: 'DRAFT',
  display: { market: { color: '#123456' }, outcome: {} },
};

export const positionPayload = {
  token_id: orderPayload.token_id,
  condition_id: orderPayload.condition_id,
  exchange: 'SERVICE',
  accounting_status: 'AVAILABLE',
  shares_micro: '25000000',
  available_shares_micro: '25000000',
  mergeable_shares_micro: '0',
  mergeable: false,
  redeemable: false,
  avg_price_micro: '538500',
  current_price_micro: '510000',
  current_value_micro: '12750000',
  open_cost_basis_micro: '13462500',
  profit_loss_micro: '-712500',
  profit_loss_percent: -5.29,
  to_win_micro: '25000000',
  market: { title: 'Will it rain in Paris on Friday?' },
  venue_extra: true,
};

export const positionsPayload = (unavailable: string[] = []) => ({
  as_of: '2025-11-20T14:05:00Z',
  positions: [positionPayload],
  unavailable_exchanges: unavailable,
});

export const summaryPayload = {
  summaries: [
    {
      exchange: 'SERVICE',
      accounting_status: 'AVAILABLE',
      as_of: '2025-11-20T14:05:00Z',
      cash_balance_micro: '1000000000',
      free_cash_micro: '986537500',
      open_cost_basis_micro: '13462500',
      open_unrealized_pnl_micro: '-712500',
      portfolio_value_micro: '1012750000',
      positions_value_micro: '12750000',
      venue_extra: null,
    },
  ],
};

export const pnlPayload = {
  bucket_at: '2025-11-20T00:00:00Z',
  chain_id: 137,
  classification_version: 3,
  collateral_micro: '1000000000',
  cumulative_inflow_micro: '1500000000',
  cumulative_outflow_micro: '400000000',
  custody_through_block: 64123456,
  custody_through_block_hash: '0xblock',
  custody_through_block_time: '2025-11-20T13:59:58Z',
  lifetime_pnl_micro: '-87250000',
  mark_captured_at: '2025-11-20T14:00:00Z',
  mark_run_id: '0f0e0d0c-0b0a-4908-8706-050403020100',
  position_count: 1,
  positions_value_micro: '12750000',
  wallet_universe_generation: 7,
};

export const rebatesPayload = {
  lp_incentive_micro: '1250000',
  maker_rebate_micro: '300000',
  vip_rebate_micro: '0',
  total_micro: '1550000',
};

export const activityPayload = (id: string) => ({
  id,
  type: 'ORDER',
  order_id: orderPayload.internal_id,
  condition_id: orderPayload.condition_id,
  token_id: orderPayload.token_id,
  exchange: 'SERVICE',
  side: 'SELL',
  status: 'PENDING',
  fill_status: 'FULL',
  filled_amount_micro: '13462500',
  filled_shares_micro: '25000000',
  average_fill_price_micro: '538500',
  fees_micro: '12000',
  created_at: '2025-11-20T14:03:11Z',
});

export const supportedAssetsPayload = {
  note: 'Withdrawals settle asynchronously.',
  wallet_address: '0xwallet',
  supported_assets: [
    {
      address_type: 'EVM',
      chain_id: 8453,
      chain_name: 'Base',
      chain_icon_url: 'https://cdn.example/base.svg',
      min_checkout_usd: '5.00',
      token: { address: '0xusdc', decimals: 6, name: 'USD Coin', symbol: 'USDC' },
    },
  ],
};

export const lpIncentivesPayload = {
  eligible: true,
  epoch_date: '2025-11-20',
  epoch_ends_at: '2025-11-21T00:00:00Z',
  markets: [
    {
      market_id: marketLookupPayload.market_id,
      question: 'Will it rain in Paris on Friday?',
      event_slug: 'paris-rain-friday',
      event_title: 'Paris weather',
      logo_url: 'https://cdn.example/paris.png',
      close_time: '2025-11-22T00:00:00Z',
      phase: 'ACTIVE',
      pool_micro: '500000000',
      max_spread_micro: 30000,
      min_shares_micro: '100000000',
      epoch_score: 1234.5,
      market_total_score: 98765.25,
      projected_payout_micro: '6250000',
    },
  ],
};

export const outcomePayload = {
  id: 'oc_yes',
  index: 0,
  label: 'Yes',
  short_label: 'Y',
  token_id: orderPayload.token_id,
  price_micro: '540000',
  best_bid_micro: '530000',
  best_ask_micro: '550000',
  spread_micro: '20000',
  resolution_price_micro: null,
  bet_slip_title: 'Rain on Friday',
  resolution_label: 'Yes',
  kind: 'team_home',
  team_side: 'home',
  side: 'left',
  threshold: 2.5,
  display: { label: 'Yes', kind: 'team_home', threshold: 2.5, service_cms: { badge: 'hot' } },
};

export const marketPayload = {
  id: marketLookupPayload.market_id,
  slug: 'paris-rain-friday-yes',
  question: 'Will it rain in Paris on Friday?',
  condition_id: orderPayload.condition_id,
  neg_risk_id: 'nr_1',
  state: 'DRAFT',
  exchange: 'SERVICE',
  display_type: 'BINARY',
  is_accepting_orders: true,
  volume_micro: '125000000000',
  volume_24h_micro: '2500000000',
  liquidity: '45000.25',
  tick_size_micro: '10000',
  min_order_size_micro: '5000000',
  engine_config: { tick_size: 100, price_scale: 10000, size_scale: 1000000, min_price: 100, max_price: 9900 },
  resolution_status: 'DISPUTED',
  resolution: { source: 'Meteo France', reference_value: 0.2, observed_value: null, observed_at: null },
  three_way_role: 'home',
  is_three_way: false,
  game_number: 1,
  outcomes: [outcomePayload, { ...outcomePayload, id: 'oc_no', index: 1, label: 'No', token_id: '99' }],
  lp_incentive: { pool_micro: '500000000', max_spread_micro: 30000, min_shares_micro: '100000000' },
  display: {
    image_url: 'https://cdn.example/m.png',
    liquidity: 45000.25,
    resolution_sources: [{ title: 'MF', url: 'https://mf.example' }],
    reference_price: '0.2',
  },
};

export const eventListItemPayload = (id: string) => ({
  id,
  slug: `event-${id}`,
  title: `Event ${id}`,
  event_type: 'GAME',
  state: 'DRAFT',
  resolution_status: 'ACTIVE',
  is_accepting_orders: true,
  is_live: false,
  is_group_root: true,
  start_time: '2025-11-22T18:00:00Z',
  end_time: '2025-11-22T21:00:00Z',
  volume_micro: '9900000000',
  main_market_id: marketLookupPayload.market_id,
  primary_category: { slug: 'tennis', label: 'Tennis' },
  market_count: 3,
  game_state: {
    id: 'gs1',
    score: {
      sport: 'tennis',
      match: { a: 1, b: 0 },
      sets: [
        { a: 6, b: 4 },
        { a: 5, b: 6, tiebreak: { a: 5, b: 7 } },
      ],
    },
    match: { lifecycle: 'scheduled', live_label: 'Set 3' },
  },
  display: {
    image_url: 'https://cdn.example/e.png',
    liquidity: 12000.5,
    has_three_way_markets: false,
    layout: 'regular',
    spreads_main_line: -1.5,
    team_a: { name: 'A. Player', abbreviation: 'APL', provider_id: 123 },
    service_cms: { promo: { id: 4 } },
  },
});

export const eventDetailPayload = {
  ...eventListItemPayload('ev_1'),
  categories: [
    {
      slug: 'atp',
      label: 'ATP',
      root_slug: 'sports',
      path: [
        { slug: 'sports', label: 'Sports' },
        { slug: 'tennis', label: 'Tennis' },
      ],
    },
  ],
  markets: [marketPayload],
  main_market_group: { neg_risk_id: 'nr_1', markets: [marketLookupPayload.market_id] },
  featured_spread_markets: [],
  featured_totals_market: marketPayload,
  sport_group: 'tennis',
  market_tabs: [
    {
      key: 'main',
      label: 'Main',
      order: 1,
      sections: [
        {
          key: 's1',
          label: 'Match',
          order: 1,
          render_hint: 'card_list',
          groups: [{ key: 'g1', market_ids: [marketLookupPayload.market_id] }],
          meta: { selector_axis: 'line', default_line: 2.5, line_owner_side: 'first', grid_cols_hint: 2 },
        },
      ],
    },
  ],
  disputed_market_count: 0,
  resolved_market_count: 1,
  related_events: [eventListItemPayload('ev_2')],
};

export const orderbookPayload = {
  token_id: orderPayload.token_id,
  bids: [{ price_micro: '530000', shares_micro: '1000000' }],
  asks: [{ price_micro: '550000', shares_micro: '2500000' }],
  sequence: 1042,
  as_of: '2025-11-20T14:05:00Z',
};

export function problem(status: number, code: string, extra: Record<string, unknown> = {}) {
  return {
    type: `urn:service:problem:${code.replace(/_/g, '-')}`,
    title: 'Display text',
    status,
    code,
    request_id: '7d3c1f0a-1111-4222-8333-944455556666',
    recovery: { strategy: 'none' },
    ...extra,
  };
}

export const PROBLEM_HEADERS = {
  'content-type': 'application/problem+json',
  'x-request-id': '7d3c1f0a-1111-4222-8333-944455556666',
};
export const JSON_HEADERS = { 'content-type': 'application/json' };

/** A silent client on a MockAgent, in virtual time, with its own limiter and memory. */
export function stubVenue(options: Partial<VenueClientOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(BASE_URL);
  const clock = new ManualClock();
  const limiter = new RateLimiter({ clock, ipLimits: new IpLimits() });
  const client = new VenueClient({
    baseUrl: BASE_URL,
    token: new Secret(TOKEN),
    dispatcher: agent,
    clock,
    random: () => 0.5,
    availability: new Availability(),
    limiter,
    logger: createLogger('test', 'silent'),
    ...options,
  });
  return { agent, pool, clock, client, limiter };
}
