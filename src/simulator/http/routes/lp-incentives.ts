import { isoTime } from '../../clock.ts';
import type { SimMarket } from '../../catalogue/types.ts';
import { compareKeys, type SortKey } from '../cursor.ts';
import { requireAccount, type RequestContext, type Reply, type RouteSpec } from '../context.ts';
import { QueryReader } from '../query.ts';

const SORTS = [
  'market',
  'close_time',
  'max_spread',
  'min_shares',
  'reward_pool',
  'my_share',
  'projected_payout',
] as const;
type SortBy = (typeof SORTS)[number];

function lpIncentives(ctx: RequestContext): Reply {
  const q = new QueryReader(ctx.query);
  const category = q.string('category');
  const search = q.string('search')?.toLowerCase();
  const sortBy = q.oneOf('sort_by', SORTS);
  const sortOrder = q.oneOf('sort_order', ['asc', 'desc'] as const) ?? (sortBy ? 'desc' : 'asc');
  const { venue } = ctx;
  if (category !== undefined && !venue.catalogue.tree.roots().some((r) => r.slug === category)) {
    q.errors.push({
      path: ['category'],
      code: 'not_a_root_category',
      message: 'category must be an active root-category slug.',
    });
  }
  q.done();
  const account = requireAccount(ctx);
  const lp = venue.lp;
  const rows = venue.catalogue.markets
    .filter(
      (m): m is SimMarket & { lpIncentive: NonNullable<SimMarket['lpIncentive']> } =>
        m.lpIncentive !== undefined && venue.catalogue.isAcceptingOrders(m),
    )
    .map((market) => {
      const event = venue.catalogue.eventOf(market);
      const myScore = lp.score(market.conditionId, account.id);
      const total = lp.totalScore(market.conditionId);
      return {
        market,
        event,
        myScore,
        total,
        share: total > 0 ? myScore / total : 0,
        payout: lp.projectedPayoutMicro(market.conditionId, account.id, market.lpIncentive.poolMicro),
      };
    })
    .filter((r) => category === undefined || r.event.categoryKeys.some((k) => k.split('/')[0] === category))
    .filter(
      (r) =>
        search === undefined ||
        r.market.question.toLowerCase().includes(search) ||
        r.event.title.toLowerCase().includes(search),
    );
  const keyOf = (r: (typeof rows)[number], by: SortBy | undefined): SortKey => {
    const tail = r.market.id;
    switch (by) {
      case 'market':
        return [r.market.question.toLowerCase(), tail];
      case 'close_time':
        return [BigInt(r.market.closeMs), tail];
      case 'max_spread':
        return [BigInt(r.market.lpIncentive.maxSpreadMicro), tail];
      case 'min_shares':
        return [r.market.lpIncentive.minSharesMicro, tail];
      case 'reward_pool':
        return [r.market.lpIncentive.poolMicro, tail];
      case 'my_share':
        return [BigInt(Math.round(r.share * 1e9)), tail];
      case 'projected_payout':
        return [r.payout, tail];
      default:
        return [tail];
    }
  };
  rows.sort((a, b) => compareKeys(keyOf(a, sortBy), keyOf(b, sortBy)) * (sortOrder === 'desc' ? -1 : 1));
  return {
    status: 200,
    body: {
      eligible: !account.frozen,
      epoch_date: isoTime(lp.epochStartMs()).slice(0, 10),
      epoch_ends_at: isoTime(lp.epochEndsAtMs()),
      markets: rows.map((r) => ({
        market_id: r.market.id,
        question: r.market.question,
        event_slug: r.event.slug,
        event_title: r.event.title,
        logo_url: `https://assets.example.invalid/markets/${r.market.slug}.png`,
        close_time: isoTime(r.market.closeMs),
        phase: 'ACTIVE',
        pool_micro: r.market.lpIncentive.poolMicro,
        max_spread_micro: r.market.lpIncentive.maxSpreadMicro,
        min_shares_micro: r.market.lpIncentive.minSharesMicro,
        epoch_score: r.myScore,
        market_total_score: r.total,
        projected_payout_micro: r.payout,
      })),
    },
  };
}

export const lpIncentiveRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/trade/v1/lp-incentives',
    auth: 'pat',
    scope: 'portfolio:read',
    feature: 'lp_incentives',
    handler: lpIncentives,
  },
];
