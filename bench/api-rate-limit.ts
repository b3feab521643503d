/**
 * How close the client's pacing runs to the venue's read bucket, and whether it ever earns a 429.
 *
 * A local node:http server on 127.0.0.1, IN ITS OWN PROCESS (this file forked with `--serve`),
 * enforces a token bucket (burst B, refill R tokens/s) on long cursor-paged resources and answers
 * 429 rate_limited when a request does not fit. The client pages them with its own limiter for a
 * few seconds per scenario. (With both on one event loop, a client keeping that loop busy also
 * delayed the server's answers and its clock: "higher tier, 4 pagers" read 0.77 and −0.03.)
 * Printed per scenario:
 * - achieved ÷ R: tokens the server admitted beyond its initial burst, per second, over R, between
 *   the first and the last admitted request, as the server's own clock measures them. The server's
 *   bucket starts full, so nothing can spend more than B + R·T in T seconds: 1.00 is the ceiling.
 * - 429s: answers the server refused (the aim is 0).
 *
 * Run: npm run bench -- api-rate-limit   (about 20 s)
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Availability } from '../src/api/availability.ts';
import { VenueClient } from '../src/api/client.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { READ_TIERS } from '../src/api/rate-limit/account-bucket.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import type { BucketShape } from '../src/api/rate-limit/token-bucket.ts';
import { Secret } from '../src/util/secret.ts';

interface Scenario {
  name: string;
  /** The venue's real bucket. */
  venue: BucketShape;
  /** What the client is configured with (it may be wrong: headers then correct it). */
  client: BucketShape;
  resource: 'orders' | 'activities';
  pagers: number;
  /** X-RateLimit-Reset written with this many decimals; undefined = no X-RateLimit-* headers. */
  resetDecimals?: number;
  seconds: number;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'authenticated tier, one pager',
    venue: READ_TIERS.authenticated,
    client: READ_TIERS.authenticated,
    resource: 'orders',
    pagers: 1,
    seconds: 3,
  },
  {
    name: 'higher tier, 4 pagers share a limiter',
    venue: READ_TIERS.higher,
    client: READ_TIERS.higher,
    resource: 'orders',
    pagers: 4,
    seconds: 3,
  },
  {
    name: 'custom tier learned from headers (ms reset)',
    venue: { capacity: 100, refillPerSecond: 200 },
    client: READ_TIERS.authenticated,
    resource: 'orders',
    pagers: 2,
    resetDecimals: 3,
    seconds: 3,
  },
  {
    name: 'activities (cost 5), whole-second reset',
    venue: READ_TIERS.authenticated,
    client: READ_TIERS.authenticated,
    resource: 'activities',
    pagers: 2,
    resetDecimals: 0,
    seconds: 3,
  },
  {
    name: 'client told higher tier, venue grants less',
    venue: READ_TIERS.authenticated,
    client: READ_TIERS.higher,
    resource: 'orders',
    pagers: 4,
    resetDecimals: 3,
    seconds: 3,
  },
];

const PAGE_SIZE = 20;
const ORDER = {
  status: 'MATCHED',
  is_terminal: true,
  type: 'LIMIT',
  side: 'BUY',
  token_id: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
  exchange: 'SERVICE',
  price_micro: '540000',
  original_size_micro: '25000000',
  size_matched_micro: '25000000',
  created_at: '2025-11-20T14:03:11.123Z',
};
const ACTIVITY = {
  type: 'ORDER',
  side: 'SELL',
  status: 'PENDING',
  fill_status: 'FULL',
  filled_amount_micro: '13462500',
  fees_micro: '12000',
  created_at: '2025-11-20T14:03:11Z',
};

/** The venue side: a continuously refilling bucket that refuses what does not fit. */
class VenueBucket {
  tokens: number;
  #at = performance.now();
  spent = 0;
  served = 0;
  refused = 0;
  firstAt: number | undefined;
  lastAt = 0;

  constructor(readonly shape: BucketShape) {
    this.tokens = shape.capacity;
  }

  admit(cost: number): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.shape.capacity, this.tokens + ((now - this.#at) * this.shape.refillPerSecond) / 1000);
    this.#at = now;
    if (this.tokens < cost) {
      this.refused += 1;
      return false;
    }
    this.tokens -= cost;
    this.spent += cost;
    this.served += 1;
    this.firstAt ??= now;
    this.lastAt = now;
    return true;
  }
}

async function startVenue(scenario: Scenario): Promise<{ url: string; bucket: VenueBucket; close: () => void }> {
  const bucket = new VenueBucket(scenario.venue);
  const server = createServer((req, res) => void handle(req, res, bucket, scenario));
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = (): void => {
    server.close();
    server.closeAllConnections();
  };
  return { url, bucket, close };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  bucket: VenueBucket,
  scenario: Scenario,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? '/', 'http://venue');
  const cost = url.pathname === '/trade/v1/portfolio/activities' ? 5 : 1;
  const admitted = bucket.admit(cost);
  const headers: Record<string, string> = {
    'content-type': admitted ? 'application/json' : 'application/problem+json',
    'x-request-id': 'bench',
  };
  if (scenario.resetDecimals !== undefined) Object.assign(headers, rateLimitHeaders(bucket, scenario.resetDecimals));
  if (!admitted) {
    const retryAfter = Math.max(1, Math.ceil((cost - bucket.tokens) / bucket.shape.refillPerSecond));
    headers['retry-after'] = String(retryAfter);
    const body = {
      type: 'urn:service:problem:rate-limited',
      title: 'Too many requests',
      status: 429,
      code: 'rate_limited',
      request_id: 'bench',
      recovery: { strategy: 'retry_after', after_seconds: retryAfter },
    };
    res.writeHead(429, headers).end(JSON.stringify(body));
    return;
  }
  const cursor =
    url.searchParams.get('cursor') ??
    (chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString()) as { cursor?: string }).cursor : undefined);
  const offset = cursor === undefined || cursor === null ? 0 : Number(cursor);
  res.writeHead(200, headers).end(JSON.stringify(page(scenario.resource, offset)));
}

function rateLimitHeaders(bucket: VenueBucket, decimals: number): Record<string, string> {
  const remaining = Math.max(0, Math.floor(bucket.tokens));
  // Seconds until full, rounded up to the written resolution as a server might.
  const step = 10 ** -decimals;
  const reset = Math.ceil((bucket.shape.capacity - bucket.tokens) / bucket.shape.refillPerSecond / step) * step;
  return {
    'x-ratelimit-bucket': 'read',
    'x-ratelimit-limit': String(bucket.shape.capacity),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': reset.toFixed(decimals),
  };
}

function page(resource: Scenario['resource'], offset: number): object {
  const ids = Array.from({ length: PAGE_SIZE }, (_, i) => `${offset + i}`);
  const pagination = { limit: PAGE_SIZE, next_cursor: String(offset + PAGE_SIZE) };
  if (resource === 'activities') return { activities: ids.map((id) => ({ ...ACTIVITY, id })), pagination };
  return { orders: ids.map((id) => ({ ...ORDER, internal_id: id })), pagination };
}

interface BucketFigures {
  spent: number;
  served: number;
  refused: number;
  /** Between the first and the last admitted request, on the server's clock (s). */
  window: number;
}

/** The venue in a child process: its URL once listening, its bucket's figures when asked. */
async function forkVenue(
  scenario: Scenario,
): Promise<{ url: string; figures(): Promise<BucketFigures>; close(): void }> {
  const child = fork(new URL(import.meta.url).pathname, ['--serve', JSON.stringify(scenario)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  return {
    url: ready.url,
    async figures() {
      child.send('figures');
      const [figures] = (await once(child, 'message')) as [BucketFigures];
      return figures;
    },
    close: () => void child.kill(),
  };
}

/** In the child: serve one scenario's venue until killed. */
async function serve(scenario: Scenario): Promise<void> {
  const venue = await startVenue(scenario);
  process.on('message', () => {
    const { spent, served, refused, firstAt, lastAt } = venue.bucket;
    process.send!({ spent, served, refused, window: (lastAt - (firstAt ?? lastAt)) / 1000 } satisfies BucketFigures);
  });
  process.send!({ url: venue.url });
}

async function run(scenario: Scenario): Promise<string> {
  const venue = await forkVenue(scenario);
  const limiter = new RateLimiter({ read: scenario.client, ipLimits: new IpLimits() });
  const client = new VenueClient({
    baseUrl: venue.url,
    token: new Secret('bench-token'),
    limiter,
    availability: new Availability(),
    logger: pino({ level: 'silent' }),
  });
  const started = performance.now();
  const deadline = started + scenario.seconds * 1000;
  const pager = async (index: number): Promise<void> => {
    const pages =
      scenario.resource === 'activities'
        ? client.portfolio.activityPages({ limit: PAGE_SIZE })
        : client.orders.orderPages({ pager: index });
    for await (const _page of pages) if (performance.now() >= deadline) break;
  };
  await Promise.all(Array.from({ length: scenario.pagers }, (_, i) => pager(i)));
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  const { spent, served, refused, window } = await venue.figures();
  venue.close();

  const R = scenario.venue.refillPerSecond;
  // Measured at the venue between the first and last admitted request: the most it can admit
  // there is its full bucket plus R per second.
  const steady = (spent - scenario.venue.capacity) / window / R;
  const learned = limiter.stats().read;
  return [
    scenario.name.padEnd(46),
    `R=${R}/s B=${scenario.venue.capacity}`.padEnd(16),
    `${served} requests`.padEnd(15),
    `${(served / seconds).toFixed(1)} req/s`.padEnd(14),
    `achieved/R=${steady.toFixed(3)}`.padEnd(19),
    `429s=${refused}`.padEnd(8),
    `client refill=${learned.refillPerSecond.toFixed(1)}/s`,
  ].join(' ');
}

const serving = process.argv.indexOf('--serve');
if (serving >= 0) {
  await serve(JSON.parse(process.argv[serving + 1]!) as Scenario);
} else {
  console.log(
    "venue (token bucket) in its own process; achieved/R = tokens admitted beyond the burst per second ÷ the refill R, by the venue's clock (1.00 is the ceiling)",
  );
  for (const scenario of SCENARIOS) console.log(await run(scenario));
}
