import type { IncomingMessage } from 'node:http';
import {
  IDENTITY_PREFIX,
  type AccessToken,
  type AccountRegistry,
  type IdentityToken,
  type Scope,
} from '../accounts/registry.ts';
import { Rejection } from '../problems.ts';

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Personal access token of §5.1; an identity token here is the wrong kind of credential (§5.4). */
export function authenticateAccessToken(req: IncomingMessage, registry: AccountRegistry): AccessToken {
  const secret = bearer(req);
  if (!secret) throw new Rejection('credentials_missing', 'Send Authorization: Bearer <ACCESS_TOKEN>.');
  if (secret.startsWith(IDENTITY_PREFIX))
    throw new Rejection('wrong_credential_type', 'This endpoint takes a personal access token.');
  const token = registry.tokenBySecret(secret);
  if (!token || token.revokedAtMs !== undefined)
    throw new Rejection('invalid_personal_access_token', 'Token rejected.');
  return token;
}

/** Browser identity token of §5.3, needed to manage personal access tokens. */
export function authenticateIdentity(req: IncomingMessage, registry: AccountRegistry, nowMs: number): IdentityToken {
  const secret = bearer(req);
  if (!secret) throw new Rejection('credentials_missing', 'Send Authorization: Bearer <IDENTITY_TOKEN>.');
  if (!secret.startsWith(IDENTITY_PREFIX)) {
    throw new Rejection(
      registry.tokenBySecret(secret) ? 'wrong_credential_type' : 'invalid_identity_token',
      'This endpoint takes a browser identity token.',
    );
  }
  const identity = registry.identityBySecret(secret);
  if (!identity) throw new Rejection('invalid_identity_token', 'Sign in again.');
  if (identity.expiresAtMs <= nowMs)
    throw new Rejection('identity_token_expired', 'Refresh the identity token once and retry.');
  return identity;
}

export function requireScope(token: AccessToken, scope: Scope): void {
  if (!token.scopes.has(scope)) throw new Rejection('forbidden_scope', `The token lacks the scope ${scope}.`);
}
