import { InvalidArgumentError } from './errors.ts';

/** A read endpoint of §4 with its §8.1 read cost. */
export interface Endpoint {
  method: 'GET' | 'POST';
  /** Path template; `{name}` segments are filled and URL-encoded. */
  route: string;
  readCost: 1 | 5;
}

const get = (route: string, readCost: 1 | 5 = 1): Endpoint => ({ method: 'GET', route, readCost });
const post = (route: string, readCost: 1 | 5 = 1): Endpoint => ({ method: 'POST', route, readCost });

/** Every endpoint the client reads. Cost 5 exactly for the six portfolio reads §8.1 lists. */
export const ENDPOINTS = {
  events: get('/api/v1/events'),
  eventDetail: get('/api/v1/events/{slug}'),
  category: get('/categories/{slug}'),
  orderbook: get('/trade/v1/orderbook/{token_id}'),
  order: get('/trade/v1/orders/{order_id}'),
  orderByHash: get('/trade/v1/orders/by-hash/{order_hash}'),
  orderTrades: get('/trade/v1/orders/{order_id}/trades'),
  ordersList: post('/trade/v1/orders/list'),
  batch: get('/trade/v1/batches/{batch_hash}'),
  portfolioSummary: get('/trade/v1/portfolio/summary', 5),
  positions: post('/trade/v1/portfolio/positions/list', 5),
  openOrders: post('/trade/v1/portfolio/open-orders/list', 5),
  portfolioTrades: get('/trade/v1/portfolio/trades', 5),
  activities: get('/trade/v1/portfolio/activities', 5),
  activitiesList: post('/trade/v1/portfolio/activities/list', 5),
  pnl: get('/trade/v1/portfolio/pnl'),
  rebates: get('/trade/v1/portfolio/rebates'),
  withdrawalAssets: get('/trade/v1/portfolio/bridge/withdraw/supported-assets'),
  lpIncentives: get('/trade/v1/lp-incentives'),
} as const satisfies Record<string, Endpoint>;

/** `GET /trade/v1/orders/{order_id}`: how endpoints are named in logs, errors and memory. */
export function endpointName(endpoint: Endpoint): string {
  return `${endpoint.method} ${endpoint.route}`;
}

export function fillRoute(route: string, params: Readonly<Record<string, string>> = {}): string {
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '')
      throw new InvalidArgumentError(`${route}: path parameter ${name} is required`);
    return encodeURIComponent(value);
  });
}
