import { isoTime } from '../../clock.ts';
import { ALL_SCOPES, type Scope } from '../../accounts/registry.ts';
import { Rejection, validationFailed } from '../../problems.ts';
import { authenticateIdentity } from '../../access/auth.ts';
import { BodyReader } from '../body-reader.ts';
import type { RequestContext, Reply, RouteSpec } from '../context.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Creates a personal access token; like revocation it needs a browser identity token (README). */
function createToken(ctx: RequestContext): Reply {
  const identity = authenticateIdentity(ctx.req, ctx.venue.accounts, ctx.nowMs);
  const body = new BodyReader(ctx.body);
  const scopes = body.strings('scopes') ?? [...ALL_SCOPES];
  body.done();
  const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw validationFailed([
      { path: ['scopes'], code: 'unknown_scope', message: `Unknown scopes: ${unknown.join(', ')}.` },
    ]);
  const token = ctx.venue.accounts.issueToken(identity.accountId, scopes as Scope[], ctx.nowMs);
  return {
    status: 201,
    body: { id: token.id, token: token.secret, scopes: [...token.scopes], created_at: isoTime(token.createdAtMs) },
  };
}

function revokeToken(ctx: RequestContext): Reply {
  const identity = authenticateIdentity(ctx.req, ctx.venue.accounts, ctx.nowMs);
  const id = ctx.params.token_id ?? '';
  if (!UUID.test(id)) throw new Rejection('invalid_path_parameter', 'token_id must be a uuid.');
  const token = ctx.venue.accounts.tokenById(id);
  if (!token || token.accountId !== identity.accountId) throw new Rejection('token_not_found', `No token ${id}.`);
  token.revokedAtMs ??= ctx.nowMs;
  return { status: 200, body: { id: token.id, revoked_at: isoTime(token.revokedAtMs) } };
}

export const tokenRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/trade/v1/auth/tokens',
    auth: 'identity',
    body: 'optional-json',
    feature: 'token_management',
    handler: createToken,
  },
  {
    method: 'DELETE',
    path: '/trade/v1/auth/tokens/:token_id',
    auth: 'identity',
    feature: 'token_management',
    handler: revokeToken,
  },
];

/** Retired paths answer 410 to everyone (§7.5, §9.3). */
export const RETIRED_PATHS: ReadonlySet<string> = new Set([
  '/trade/v1/positions/merge-all',
  '/trade/v1/positions/redeem',
  '/trade/v1/positions/redeem-all',
]);
