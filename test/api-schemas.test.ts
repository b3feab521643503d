import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { fieldPath } from '../src/api/caller.ts';
import {
  ActivitiesPageSchema,
  BatchSchema,
  EventDetailSchema,
  EventsResponseSchema,
  FailureSchema,
  FillSchema,
  LpIncentivesResponseSchema,
  OrderbookSchema,
  OrderSchema,
  OrdersPageSchema,
  PositionsResponseSchema,
  ProblemSchema,
  RebatesSchema,
  SettledPnlSchema,
  SummaryResponseSchema,
  SupportedAssetsResponseSchema,
} from '../src/api/schemas/index.ts';
import * as fx from './api-fixtures.ts';

function issuesOf(schema: z.ZodType, payload: unknown): string[] {
  const result = schema.safeParse(payload);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
}

describe('schemas read realistic payloads', () => {
  it('Order: amounts become bigints, null counts as absent, unknown fields survive', () => {
    const order = OrderSchema.parse(fx.orderPayload);
    expect(order.price_micro).toBe(540_000n);
    expect(order.size_matched_micro).toBe(25_000_000n);
    expect(order.expiration).toBeUndefined();
    expect(order.venue_extra).toEqual({ routing: 'smart' });
  });

  it('Order: a MARKET order without price and a status not named by the interface are kept', () => {
    const { price_micro: _, ...market } = fx.orderPayload;
    const order = OrderSchema.parse({ ...market, type: 'MARKET', status: 'LIVE' });
    expect(order.price_micro).toBeUndefined();
    expect(order.status).toBe('LIVE');
  });

  it('Failure embedded in a rejected order', () => {
    const order = OrderSchema.parse(fx.rejectedOrderPayload);
    expect(order.failure?.code).toBe('post_only_would_cross');
    expect(order.failure?.recovery?.strategy).toBe('none');
    expect(
      FailureSchema.parse({ code: 'account_frozen', title: 'Frozen', recovery: { strategy: 'future_strategy' } })
        .recovery?.strategy,
    ).toBe('future_strategy');
  });

  it('fill record, with a taker role name the interface does not show', () => {
    const fill = FillSchema.parse({ ...fx.fillPayload, role: 'TAKER_AGGRESSOR' });
    expect(fill.shares_micro).toBe(25_000_000n);
    expect(fill.role).toBe('TAKER_AGGRESSOR');
    expect(fill.venue_extra).toBe(1);
  });

  it('Batch with withdrawal and an integer-typed shares_micro op', () => {
    const batch = BatchSchema.parse({ ...fx.batchPayload, status: 'EXECUTED' });
    expect(batch.status).toBe('EXECUTED');
    expect(batch.ops?.[0]?.shares_micro).toBe(10_000_000n);
    expect(batch.withdrawal?.destination?.path).toBe('SPOKE_POOL');
    expect(batch.venue_extra).toBe('x');
  });

  it('positions response keeps a negative PnL and unavailable exchanges', () => {
    const response = PositionsResponseSchema.parse(fx.positionsPayload(['SERVICE']));
    expect(response.positions[0]?.profit_loss_micro).toBe(-712_500n);
    expect(response.positions[0]?.venue_extra).toBe(true);
    expect(response.unavailable_exchanges).toEqual(['SERVICE']);
  });

  it('summary, settled PnL and rebates', () => {
    const summary = SummaryResponseSchema.parse(fx.summaryPayload).summaries[0];
    expect(summary?.open_unrealized_pnl_micro).toBe(-712_500n);
    expect(summary?.cash_balance_micro).toBe(1_000_000_000n);
    const pnl = SettledPnlSchema.parse(fx.pnlPayload);
    expect(pnl.lifetime_pnl_micro).toBe(-87_250_000n);
    expect(pnl.custody_through_block).toBe(64_123_456);
    expect(RebatesSchema.parse(fx.rebatesPayload).total_micro).toBe(1_550_000n);
  });

  it('activities page with its lookup maps', () => {
    const page = ActivitiesPageSchema.parse({
      activities: [fx.activityPayload('a1')],
      as_of: '2025-11-20T14:05:00Z',
      conditions: {
        [fx.orderPayload.condition_id]: { market_id: 'm', market_title: 'T', display: { market: { x: 1 } } },
      },
      events: { ev: { event_title: 'Paris weather', display: { event: {} } } },
      markets: { mk: fx.marketLookupPayload },
      pagination: { limit: 50, next_cursor: null },
    });
    expect(page.activities[0]?.filled_amount_micro).toBe(13_462_500n);
    expect(page.markets?.mk?.outcome_name).toBe('Yes');
    expect(page.pagination?.next_cursor).toBeUndefined();
  });

  it('open-orders page', () => {
    const page = OrdersPageSchema.parse({
      as_of: 'x',
      orders: [fx.orderPayload],
      markets: {},
      events: {},
      pagination: { limit: 100, next_cursor: 'c2' },
    });
    expect(page.orders).toHaveLength(1);
    expect(page.pagination?.next_cursor).toBe('c2');
  });

  it('withdrawal supported assets and LP incentives', () => {
    expect(SupportedAssetsResponseSchema.parse(fx.supportedAssetsPayload).supported_assets[0]?.token?.decimals).toBe(6);
    const lp = LpIncentivesResponseSchema.parse(fx.lpIncentivesPayload).markets[0];
    expect(lp?.max_spread_micro).toBe(30_000n);
    expect(lp?.pool_micro).toBe(500_000_000n);
    expect(lp?.epoch_score).toBe(1234.5);
  });

  it('event detail: markets, outcomes, lp_incentive, game_state, display, tabs, related events', () => {
    const event = EventDetailSchema.parse(eventWithNewType());
    const market = event.markets?.[0];
    expect(event.event_type).toBe('FUTURE_TYPE');
    expect(market?.outcomes?.[0]?.best_ask_micro).toBe(550_000n);
    expect(market?.lp_incentive?.max_spread_micro).toBe(30_000n);
    expect(market?.display?.reference_price).toBe('0.2');
    expect(event.game_state?.score?.sets?.[1]?.tiebreak).toEqual({ a: 5, b: 7 });
    expect(event.display?.team_a?.provider_id).toBe(123);
    expect(event.market_tabs?.[0]?.sections?.[0]?.groups?.[0]?.market_ids).toEqual([fx.marketLookupPayload.market_id]);
    expect(event.related_events?.[0]?.id).toBe('ev_2');
    expect(event.main_market_group?.markets).toEqual([fx.marketLookupPayload.market_id]);
  });

  it('events list page and sports_live sections', () => {
    const list = EventsResponseSchema.parse({
      events: [fx.eventListItemPayload('e1')],
      pagination: { next_cursor: 'k2', limit: 20 },
    });
    expect(list.events[0]?.market_count).toBe(3);
    const live = EventsResponseSchema.parse({
      events: [fx.eventListItemPayload('e1')],
      sections: [{ category: { slug: 'atp', label: 'ATP' }, event_ids: ['e1'] }],
    });
    expect(live.sections?.[0]?.event_ids).toEqual(['e1']);
  });

  it('order book (shape not shown): shares_micro per level, size_micro read as its alias', () => {
    const book = OrderbookSchema.parse(fx.orderbookPayload);
    expect(book.bids[0]).toEqual({ price_micro: 530_000n, shares_micro: 1_000_000n });
    const aliased = OrderbookSchema.parse({
      ...fx.orderbookPayload,
      asks: [{ price_micro: '550000', size_micro: '7' }],
    });
    expect(aliased.asks[0]?.shares_micro).toBe(7n);
    expect(issuesOf(OrderbookSchema, { bids: [{ price_micro: '1' }], asks: [] })).toEqual([
      'bids[0].shares_micro: a book level needs shares_micro (or size_micro)',
    ]);
  });

  it('Problem Details with field errors, and the edge variant without request_id', () => {
    const problem = ProblemSchema.parse(
      fx.problem(422, 'validation_failed', {
        field_errors: [{ path: ['orders', 0, 'price_micro'], code: 'too_large', message: 'm' }],
      }),
    );
    expect(problem.field_errors?.[0]?.path).toEqual(['orders', 0, 'price_micro']);
    const edge = ProblemSchema.parse({ code: 'rate_limited', recovery: { strategy: 'retry_after', after_seconds: 2 } });
    expect(edge.request_id).toBeUndefined();
  });
});

describe('wrong types on known fields name the field', () => {
  it('a fractional amount deep in a page', () => {
    const bad = { orders: [fx.orderPayload, { ...fx.orderPayload, price_micro: '0.54' }] };
    expect(issuesOf(OrdersPageSchema, bad)).toEqual([
      'orders[1].price_micro: "0.54" is not a whole number of micro-units (fractional)',
    ]);
  });

  it('a number where a boolean is expected, a missing identity, a negative size', () => {
    const issues = issuesOf(PositionsResponseSchema, {
      positions: [{ ...fx.positionPayload, mergeable: 'no', token_id: undefined, shares_micro: '-5' }],
    });
    expect(issues).toContain('positions[0].mergeable: Invalid input: expected boolean, received string');
    expect(issues).toContain('positions[0].token_id: Invalid input: expected string, received undefined');
    expect(issues).toContain('positions[0].shares_micro: negative value -5 not allowed here');
  });

  it('an exponent in a market-level amount', () => {
    expect(
      issuesOf(EventDetailSchema, {
        ...fx.eventDetailPayload,
        markets: [{ ...fx.marketPayload, volume_micro: '1e3' }],
      }),
    ).toEqual(['markets[0].volume_micro: "1e3" is not a plain decimal integer (exponent notation)']);
  });
});

function eventWithNewType() {
  return { ...fx.eventDetailPayload, event_type: 'FUTURE_TYPE' };
}
