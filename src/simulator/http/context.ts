import type { IncomingMessage } from 'node:http';
import type { Account } from '../accounts/account.ts';
import type { AccessToken, Scope } from '../accounts/registry.ts';
import type { RestFaultHooks } from '../faults/rest-faults.ts';
import type { Venue } from '../venue.ts';
import type { BucketName } from '../access/limits/account-limits.ts';
import type { DeploymentConfig, FeatureName } from './deployment.ts';

export type { FeatureName };

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RequestContext {
  venue: Venue;
  deployment: DeploymentConfig;
  /** Injected faults, when the simulator runs with them. */
  faults: RestFaultHooks | undefined;
  req: IncomingMessage;
  requestId: string;
  nowMs: number;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body ({} when the route allows an empty one). */
  body: unknown;
  /** Set on authenticated routes. */
  account: Account | undefined;
  token: AccessToken | undefined;
}

export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** Segments starting with ':' are parameters. */
  path: string;
  /** pat: personal access token; identity: browser identity token; none: public. */
  auth: 'none' | 'pat' | 'identity';
  scope?: Scope;
  /** Read-bucket cost (§8.1): 1 unless named otherwise. */
  readCost?: number;
  /** The action bucket debited besides read. */
  action?: BucketName;
  /** One of the seven trading actions with a per-IP limit (§8.4). */
  ipAction?: boolean;
  body?: 'json' | 'optional-json';
  maxBodyBytes?: number;
  feature?: FeatureName;
  handler: (ctx: RequestContext) => Reply;
}

export function requireAccount(ctx: RequestContext): Account {
  if (!ctx.account) throw new Error('route needs authentication but none ran');
  return ctx.account;
}
