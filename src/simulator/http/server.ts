import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createLogger } from '../../util/log.ts';
import { Rejection } from '../problems.ts';
import type { Venue } from '../venue.ts';
import { authenticateAccessToken, authenticateIdentity, requireScope } from '../access/auth.ts';
import { parseJsonBody, readBody } from './body.ts';
import type { RequestContext, RouteSpec } from './context.ts';
import type { DeploymentConfig } from './deployment.ts';
import { sendJson } from '../wire/json.ts';
import { AccountLimiter } from '../access/limits/account-limits.ts';
import { EdgeLimiter, IpLimiter } from '../access/limits/ip-limits.ts';
import { sendEdgeRateLimited, sendProblem } from '../wire/problem.ts';
import { Router } from './router.ts';
import { CdnCache } from './cdn-cache.ts';
import { batchRoutes } from './routes/batches.ts';
import { catalogueRoutes } from './routes/catalogue.ts';
import { lpIncentiveRoutes } from './routes/lp-incentives.ts';
import { orderRoutes } from './routes/orders.ts';
import { portfolioRoutes } from './routes/portfolio.ts';
import { RETIRED_PATHS, tokenRoutes } from './routes/tokens.ts';
import type { RestFaultHooks } from '../faults/rest-faults.ts';
import { rateLimitedRefusal, refuseUpgrade } from '../streams/refusal.ts';
import { RateLimitTally } from '../access/limits/rate-limit-tally.ts';

const log = createLogger('simulator.http');

function rateLimited(retryAfterSeconds: number, headers: Record<string, string> = {}): Rejection {
  return new Rejection(
    'rate_limited',
    `Retry after ${retryAfterSeconds} s.`,
    undefined,
    { strategy: 'retry_after', after_seconds: retryAfterSeconds },
    {
      ...headers,
      'Retry-After': String(retryAfterSeconds),
    },
  );
}

/** What serves the stream endpoints (§6) on the same server. */
export interface StreamHooks {
  /** Serves an SSE request and returns true, or returns false for the REST router. */
  handleRequest(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export interface ServerHooks {
  streams?: StreamHooks;
  faults?: RestFaultHooks;
  /** Counts every 429 answered, earned or injected. */
  tally?: RateLimitTally;
}

/** The REST interface of §4 on node:http, with the errors of §7 and the limits of §8; streams and faults when given. */
export function createVenueServer(venue: Venue, deployment: DeploymentConfig, hooks: ServerHooks = {}): Server {
  const { streams, faults } = hooks;
  const tally = hooks.tally ?? new RateLimitTally();
  const router = new Router().add(
    ...catalogueRoutes,
    ...orderRoutes,
    ...portfolioRoutes,
    ...lpIncentiveRoutes,
    ...tokenRoutes,
    ...batchRoutes,
  );
  const scale = deployment.limits.scale;
  const edge = new EdgeLimiter(scale, venue.cases.edgeSettlingMs);
  const cdn = new CdnCache(venue.cases.cdnCacheMs);
  const perIp = new IpLimiter(scale);
  const accountLimits = new AccountLimiter(scale);
  const clock = venue.options.clock;

  /** Admission and authentication; returns the X-RateLimit headers for the response. */
  function admit(
    route: RouteSpec,
    req: IncomingMessage,
    ip: string,
    path: string,
    nowMs: number,
    ctx: RequestContext,
  ): Record<string, string> {
    const mode = route.feature ? deployment.features[route.feature] : 'on';
    if (mode === 'absent') throw new Rejection('route_not_found', `No route ${path} in this deployment.`);
    if (mode === 'unconfigured') throw new Rejection('feature_not_configured', `${route.feature} is not offered here.`);
    if (route.auth === 'identity') authenticateIdentity(req, venue.accounts, nowMs);
    if (route.auth !== 'pat') return {};
    const token = authenticateAccessToken(req, venue.accounts);
    const account = venue.accounts.get(token.accountId);
    if (!account) throw new Rejection('invalid_personal_access_token', 'Token rejected.');
    ctx.token = token;
    ctx.account = account;
    let headers: Record<string, string> = {};
    if (deployment.limits.account) {
      const charge = accountLimits.charge(account.id, account.tier, route.readCost ?? 1, route.action, nowMs);
      if (!charge.ok) {
        tally.earn('account');
        throw rateLimited(charge.retryAfterSeconds, charge.headers);
      }
      // §8.2: the headers are optional on answered requests; a 429 always names its bucket.
      const share = venue.cases.rateLimitHeadersShare;
      headers = share >= 1 || venue.restRng.chance(share) ? charge.headers : {};
    }
    if (route.ipAction && route.action && deployment.limits.ipBurst) {
      const r = perIp.admitAction(ip, `${route.method} ${route.path}`, route.action, nowMs);
      if (!r.ok) {
        tally.earn('ip');
        throw rateLimited(r.retryAfterSeconds);
      }
    }
    if (route.scope) requireScope(token, route.scope);
    return headers;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const nowMs = clock.now();
    const ip = req.socket.remoteAddress ?? 'unknown';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    // In front of every limit: a CDN hit spends no budget (§8.4).
    const cacheable = cdn.covers(req, path);
    if (cacheable && cdn.serve(req, res, nowMs)) return;
    if (deployment.limits.edge) {
      const e = edge.admit(ip, path, nowMs);
      if (!e.ok) {
        tally.earn('edge');
        return sendEdgeRateLimited(res, e.retryAfterSeconds);
      }
    }
    // Stream connections count at the edge and against their own attempt limit (§8.5), not the request buckets.
    if (streams?.handleRequest(req, res, path)) return;
    const requestId = randomUUID();
    let limitHeaders: Record<string, string> = {};
    try {
      if (deployment.limits.ipBurst) {
        const s = perIp.admitService(ip, path, nowMs);
        if (!s.ok) {
          tally.earn('ip');
          throw rateLimited(s.retryAfterSeconds);
        }
      }
      const injected = faults?.before(req.method ?? 'GET', path, nowMs);
      if (injected) {
        if (injected.status === 429) tally.inject();
        throw injected;
      }
      if (RETIRED_PATHS.has(path)) throw new Rejection('endpoint_retired', 'Stop calling this endpoint.');
      const { route, params } = router.resolve(req.method ?? 'GET', path);
      const ctx: RequestContext = {
        venue,
        deployment,
        faults,
        req,
        requestId,
        nowMs,
        params,
        query: url.searchParams,
        body: undefined,
        account: undefined,
        token: undefined,
      };
      limitHeaders = admit(route, req, ip, path, nowMs, ctx);
      if (route.body) {
        const raw = await readBody(req, route.maxBodyBytes ?? deployment.maxBodyBytes);
        ctx.body = parseJsonBody(raw, req.headers['content-type'], route.body === 'optional-json');
      }
      const reply = route.handler(ctx);
      const unknownOutcome = faults?.after(route.method, path, reply.body, nowMs);
      if (unknownOutcome) throw unknownOutcome;
      const headers = { ...limitHeaders, ...reply.headers, 'X-Request-ID': requestId };
      sendJson(
        res,
        reply.status,
        reply.body,
        'application/json',
        cacheable && reply.status === 200 ? cdn.store(req, reply.body, headers, nowMs) : headers,
      );
    } catch (err) {
      if (err instanceof Rejection) return sendProblem(res, requestId, err, limitHeaders);
      log.error({ err, requestId, path }, 'request failed');
      sendProblem(res, requestId, new Rejection('internal_error', 'Keep the request_id and reconcile.'), limitHeaders);
    }
  }

  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    void handle(req, res);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (deployment.limits.edge) {
      const e = edge.admit(req.socket.remoteAddress ?? 'unknown', path, clock.now());
      if (!e.ok) {
        tally.earn('edge');
        return refuseUpgrade(socket, rateLimitedRefusal(e.retryAfterSeconds));
      }
    }
    if (streams) streams.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  return server;
}
