import type { Prng } from '../prng.ts';
import type { SimOrder } from '../orders.ts';
import { Account, type AccountState } from './account.ts';

/** Scopes of §5.2 plus the ones this simulator names for rows the interface leaves "not shown" (README). */
export const ALL_SCOPES = [
  'orders:read',
  'orders:place',
  'orders:cancel',
  'orders:place_signed',
  'orders:cancel_all',
  'portfolio:read',
  'batches:submit',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

/** The scopes the demo token carries: every read scope, nothing that moves money. */
export const READ_SCOPES: Scope[] = ['orders:read', 'portfolio:read'];

export interface AccessToken {
  /** The token's uuid (what token revocation takes), not the secret. */
  id: string;
  secret: string;
  accountId: string;
  scopes: Set<Scope>;
  createdAtMs: number;
  revokedAtMs: number | undefined;
}

export interface IdentityToken {
  secret: string;
  accountId: string;
  expiresAtMs: number;
}

/** Users and credentials in a saved venue; accounts in the order they were created. */
export interface RegistryState {
  accounts: AccountState[];
  tokens: Array<Omit<AccessToken, 'scopes'> & { scopes: Scope[] }>;
  identity: IdentityToken[];
}

export const PAT_PREFIX = 'pat_';
export const IDENTITY_PREFIX = 'idt_';

/** Users and their credentials. Rate limits are per account, shared by all its tokens (§5.1). */
export class AccountRegistry {
  readonly #accounts = new Map<string, Account>();
  readonly #tokens = new Map<string, AccessToken>();
  readonly #tokenById = new Map<string, AccessToken>();
  readonly #identity = new Map<string, IdentityToken>();

  constructor(private readonly rng: Prng) {}

  create(label: string): Account {
    const account = new Account(this.rng.uuid(), label, `0x${this.rng.hex(40)}`);
    this.#accounts.set(account.id, account);
    return account;
  }

  get(id: string): Account | undefined {
    return this.#accounts.get(id);
  }

  all(): Account[] {
    return [...this.#accounts.values()];
  }

  issueToken(accountId: string, scopes: Iterable<Scope>, nowMs: number, secret?: string): AccessToken {
    const token: AccessToken = {
      id: this.rng.uuid(),
      secret: secret ?? `${PAT_PREFIX}${this.rng.hex(40)}`,
      accountId,
      scopes: new Set(scopes),
      createdAtMs: nowMs,
      revokedAtMs: undefined,
    };
    this.#tokens.set(token.secret, token);
    this.#tokenById.set(token.id, token);
    return token;
  }

  issueIdentityToken(accountId: string, expiresAtMs: number, secret?: string): IdentityToken {
    const token: IdentityToken = { secret: secret ?? `${IDENTITY_PREFIX}${this.rng.hex(40)}`, accountId, expiresAtMs };
    this.#identity.set(token.secret, token);
    return token;
  }

  tokenBySecret(secret: string): AccessToken | undefined {
    return this.#tokens.get(secret);
  }

  tokenById(id: string): AccessToken | undefined {
    return this.#tokenById.get(id);
  }

  identityBySecret(secret: string): IdentityToken | undefined {
    return this.#identity.get(secret);
  }

  snapshot(): RegistryState {
    return {
      accounts: this.all().map((a) => a.snapshot()),
      tokens: [...this.#tokenById.values()].map((t) => ({ ...t, scopes: [...t.scopes] })),
      identity: [...this.#identity.values()],
    };
  }

  /** Takes a saved venue's users back (into an empty registry). */
  restore(state: RegistryState, orderById: (id: string) => SimOrder | undefined): void {
    for (const a of state.accounts) this.#accounts.set(a.id, Account.restore(a, orderById));
    for (const t of state.tokens) {
      const token: AccessToken = { ...t, scopes: new Set(t.scopes) };
      this.#tokens.set(token.secret, token);
      this.#tokenById.set(token.id, token);
    }
    for (const i of state.identity) this.#identity.set(i.secret, i);
  }
}
