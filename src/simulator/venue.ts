import type { Account } from './accounts/account.ts';
import { ActivityLog } from './accounts/activity-log.ts';
import { AccountBatches, type BatchesState } from './engine/batches.ts';
import { deposit } from './accounts/ledger.ts';
import { LpIncentives, type LpState } from './engine/lp-incentives.ts';
import { PnlMarks, type PnlState } from './engine/pnl-marks.ts';
import {
  ALL_SCOPES,
  AccountRegistry,
  READ_SCOPES,
  type AccessToken,
  type RegistryState,
  type Scope,
} from './accounts/registry.ts';
import { DEFAULT_CASES, type InterfaceCases } from './cases.ts';
import { Catalogue } from './catalogue/catalogue.ts';
import { CategoryTree } from './catalogue/categories.ts';
import { DEFAULT_CATALOGUE_SHAPE, generateCatalogue, type CatalogueShape } from './catalogue/generate.ts';
import type { SimEvent, SimMarket } from './catalogue/types.ts';
import type { Clock } from './clock.ts';
import { Exchange, type ExchangeConfig, type ExchangeState } from './engine/exchange.ts';
import { DEFAULT_FEES } from './engine/fees.ts';
import { DEFAULT_ORDER_LIMITS } from './engine/place-request.ts';
import type { SimOrder } from './orders.ts';
import { VenueEvents } from './events.ts';
import type { LifecycleConfig } from './lifecycle/config.ts';
import { MarketLifecycle, type LifecycleState } from './lifecycle/market-lifecycle.ts';
import { prngStreams, type Prng, type PrngStreams } from './prng.ts';
import { Traders, type TradersState } from './traders/traders.ts';

export interface VenueOptions {
  seed: number;
  clock: Clock;
  /** Synthetic book changes per second (0: no synthetic flow). */
  rate: number;
  /** The demo token's secret; generated from the seed when absent. */
  demoToken?: string;
  catalogue?: Partial<CatalogueShape>;
  exchange?: Partial<ExchangeConfig>;
  pnlIntervalMs?: number;
  lpSampleIntervalMs?: number;
  batchDelayMs?: number;
  makers?: number;
  takers?: number;
  /** Resting orders on every tick from 4 to this many ticks either side of the fair value (default 50); 0: books only
   * 1–3 ticks deep, the makers' quotes. */
  depthTicks?: number;
  /** Halts, resolutions, redemptions and recurring rolls on the clock; absent: markets keep their generated state. */
  lifecycle?: LifecycleConfig;
  /** The interface's cases the venue shows (cases.ts); default DEFAULT_CASES. */
  cases?: InterfaceCases;
  /** Which start of a saved venue this is (prng.ts `prngStreams`); 0, an unsaved venue, draws the seed's own streams.
   */
  generation?: number;
  /** How long settled orders stay in memory (README, "Memory"). */
  retention?: Partial<RetentionConfig>;
}

/** Settled history in memory: what REST lists and order fills can still show. */
export interface RetentionConfig {
  /** A settled order (terminal, fills confirmed), its fills and activity leave memory this long after its last change.
   */
  settledMs: number;
  /** And beyond this many settled orders of one account, the oldest leave at once (a bound at any rate). */
  maxSettledPerAccount: number;
  /** How often the venue looks. */
  everyMs: number;
}

export const DEFAULT_RETENTION: RetentionConfig = {
  settledMs: 10 * 60_000,
  maxSettledPerAccount: 10_000,
  everyMs: 10_000,
};

/** An account's role in a saved venue: the account and the token the venue made for it. */
interface RoleState {
  accountId: string;
  tokenId: string;
}

/** Everything a venue is, as plain data (bigints, no class instances): what a saved venue holds. */
export interface WorldState {
  seed: number;
  /** When this world began (LP epochs and PnL blocks count from it). */
  startedAtMs: number;
  /** Venue time when it was saved. */
  clockMs: number;
  catalogue: { events: SimEvent[]; markets: SimMarket[] };
  accounts: RegistryState;
  roles: { demo: RoleState; makers: RoleState[]; takers: RoleState[]; depth?: RoleState; lateFills?: RoleState };
  activitySeq: number;
  exchange: ExchangeState;
  lp: LpState;
  pnl: PnlState;
  batches: BatchesState;
  lifecycle?: LifecycleState;
  traders: TradersState;
}

/** A saved world to resume, and the floor of every sequence when its save may be older than what it issued. */
export interface Resume {
  world: WorldState;
  sequenceFloor: number;
}

export interface Credentials {
  account: Account;
  token: AccessToken;
}

const MAKER_DEPOSIT = 5_000_000_000_000n;
const TAKER_DEPOSIT = 100_000_000_000n;
const DEPTH_DEPOSIT = 50_000_000_000_000n;
const LATE_FILL_DEPOSIT = 50_000_000_000_000n;
const DEFAULT_DEPTH_TICKS = 50;

/** The whole simulated venue: catalogue, accounts, matching, incentives, marks and order flow. */
export class Venue {
  readonly events = new VenueEvents();
  readonly catalogue: Catalogue;
  readonly accounts: AccountRegistry;
  readonly activities: ActivityLog;
  readonly exchange: Exchange;
  readonly lp: LpIncentives;
  readonly pnl: PnlMarks;
  readonly traders: Traders;
  readonly batches: AccountBatches;
  readonly lifecycle: MarketLifecycle | undefined;
  readonly demo: Credentials;
  /** Full-scope tokens of the synthetic trader accounts, for tests and tools. */
  readonly traderCredentials: Credentials[] = [];
  readonly startedAtMs: number;
  readonly cases: InterfaceCases;
  /** Draws of the REST layer's cases (short pages, repeated cursors). */
  readonly restRng: Prng;
  /** The seed of this world (a resumed world keeps the one it was created with). */
  readonly seed: number;
  readonly generation: number;
  /** The generators of this run, by label (prng.ts). */
  readonly prng: PrngStreams;
  readonly retention: RetentionConfig;
  readonly #roles: WorldState['roles'];
  #nextForgetMs = 0;

  constructor(
    readonly options: VenueOptions,
    /** A saved world to go on with, instead of a new one from the seed. */
    resume?: Resume,
  ) {
    const { clock } = options;
    const saved = resume?.world;
    this.seed = saved?.seed ?? options.seed;
    this.generation = options.generation ?? 0;
    this.prng = prngStreams(this.seed, this.generation);
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.startedAtMs = saved?.startedAtMs ?? clock.now();
    this.cases = options.cases ?? DEFAULT_CASES;
    this.restRng = this.prng('rest-cases');
    this.events.setMaxListeners(0);
    const ids = this.prng('ids');
    const floor = resume?.sequenceFloor ?? 0;
    this.catalogue = new Catalogue(
      saved
        ? { tree: new CategoryTree(), events: saved.catalogue.events, markets: saved.catalogue.markets }
        : generateCatalogue(this.prng('catalogue'), this.startedAtMs, {
            ...DEFAULT_CATALOGUE_SHAPE,
            ...options.catalogue,
          }),
      this.events,
    );
    this.accounts = new AccountRegistry(this.prng('accounts'));
    this.activities = new ActivityLog(ids, saved ? Math.max(saved.activitySeq, floor) : 0);
    this.exchange = new Exchange(
      this.catalogue,
      this.accounts,
      this.activities,
      this.events,
      clock,
      this.prng('orders'),
      {
        fees: DEFAULT_FEES,
        limits: DEFAULT_ORDER_LIMITS,
        submissionDelayMs: 0,
        settlementDelayMs: 2_000,
        cancelAllDelayMs: 0,
        cancelAllSlackMs: this.cases.cancelAllSlackMs,
        publicFills: this.cases.publicFills,
        lateFillShare: this.cases.lateFillShare,
        lateFillDelayMs: this.cases.lateFillDelayMs,
        ...options.exchange,
      },
      this.prng('exchange-cases'),
    );
    const orders = new Map<string, SimOrder>((saved?.exchange.orders ?? []).map((o) => [o.id, o]));
    if (saved) {
      this.accounts.restore(saved.accounts, (id) => orders.get(id));
      this.exchange.restore(saved.exchange, orders, floor);
    }
    this.lp = new LpIncentives(
      this.catalogue,
      this.exchange,
      this.accounts,
      this.events,
      this.startedAtMs,
      options.lpSampleIntervalMs ?? 10_000,
    );
    this.batches = new AccountBatches(
      this.catalogue,
      this.exchange.venue,
      this.activities,
      this.events,
      options.batchDelayMs ?? 2_000,
    );
    this.pnl = new PnlMarks(
      this.accounts,
      this.catalogue,
      this.exchange,
      ids,
      this.startedAtMs,
      options.pnlIntervalMs ?? 60_000,
    );
    if (saved) {
      this.lp.restore(saved.lp);
      this.batches.restore(saved.batches);
      this.pnl.restore(saved.pnl);
    }

    this.lifecycle = options.lifecycle
      ? new MarketLifecycle(
          this.catalogue,
          this.exchange,
          this.accounts,
          this.events,
          this.prng('lifecycle'),
          options.lifecycle,
          clock.now(),
          saved?.lifecycle,
        )
      : undefined;

    this.#roles = saved ? saved.roles : this.#createRoles(options);
    this.demo = this.#credentials(this.#roles.demo);
    const makers = this.#roles.makers.map((r) => this.#credentials(r));
    const takers = this.#roles.takers.map((r) => this.#credentials(r));
    const depth = this.#roles.depth && this.#credentials(this.#roles.depth);
    const late = this.#roles.lateFills && this.#credentials(this.#roles.lateFills);
    this.traderCredentials.push(...makers, ...takers, ...(depth ? [depth] : []), ...(late ? [late] : []));
    this.traders = new Traders(
      this.catalogue,
      this.exchange,
      this.prng('traders'),
      {
        makers: makers.map((c) => c.account),
        takers: [this.demo.account, ...takers.map((c) => c.account)],
        depth: depth
          ? { account: depth.account, ticks: options.depthTicks ?? DEFAULT_DEPTH_TICKS, rng: this.prng('depth') }
          : undefined,
      },
      () => clock.now(),
      options.rate,
      saved && { state: saved.traders, orderById: (id) => this.exchange.orders.get(id) },
    );
  }

  /** The accounts of a new world: the demo account, the synthetic traders, the depth and the late-fill account. */
  #createRoles(options: VenueOptions): WorldState['roles'] {
    const role = (c: Credentials): RoleState => ({ accountId: c.account.id, tokenId: c.token.id });
    const demo = role(this.createAccount('demo', TAKER_DEPOSIT, READ_SCOPES, options.demoToken));
    const makers = Array.from({ length: options.makers ?? 3 }, (_, i) =>
      role(this.createAccount(`maker-${i + 1}`, MAKER_DEPOSIT, ALL_SCOPES)),
    );
    const takers = Array.from({ length: options.takers ?? 3 }, (_, i) =>
      role(this.createAccount(`taker-${i + 1}`, TAKER_DEPOSIT, ALL_SCOPES)),
    );
    const depthTicks = options.depthTicks ?? DEFAULT_DEPTH_TICKS;
    const depth = depthTicks > 0 ? role(this.createAccount('depth', DEPTH_DEPOSIT, ALL_SCOPES)) : undefined;
    // The other side of late fills (§3.1): an account that only ever meets orders just before they are cancelled.
    let lateFills: RoleState | undefined;
    if (this.cases.lateFillShare > 0) {
      lateFills = role(this.createAccount('late-fills', LATE_FILL_DEPOSIT, ALL_SCOPES));
      this.exchange.lateFillAccountId = lateFills.accountId;
    }
    return { demo, makers, takers, depth, lateFills };
  }

  #credentials(role: RoleState): Credentials {
    const account = this.accounts.get(role.accountId);
    const token = this.accounts.tokenById(role.tokenId);
    if (!account || !token)
      throw new Error(`saved venue names account ${role.accountId} or token ${role.tokenId}, which it does not hold`);
    return { account, token };
  }

  /** The world as plain data, at this instant (state/ writes it to a file). */
  snapshot(): WorldState {
    return {
      seed: this.seed,
      startedAtMs: this.startedAtMs,
      clockMs: this.options.clock.now(),
      catalogue: { events: this.catalogue.events, markets: this.catalogue.markets },
      accounts: this.accounts.snapshot(),
      roles: this.#roles,
      activitySeq: this.activities.lastSeq,
      exchange: this.exchange.snapshot(),
      lp: this.lp.snapshot(),
      pnl: this.pnl.snapshot(),
      batches: this.batches.snapshot(),
      lifecycle: this.lifecycle?.snapshot(),
      traders: this.traders.snapshot(),
    };
  }

  /** A funded account with one personal access token. */
  createAccount(
    label: string,
    depositMicro: bigint,
    scopes: Iterable<Scope> = ALL_SCOPES,
    secret?: string,
  ): Credentials {
    const account = this.accounts.create(label);
    const token = this.accounts.issueToken(account.id, scopes, this.options.clock.now(), secret);
    if (depositMicro > 0n) this.deposit(account, depositMicro);
    return { account, token };
  }

  deposit(account: Account, amountMicro: bigint): void {
    const atMs = this.options.clock.now();
    deposit(account, amountMicro);
    this.activities.record(account, 'DEPOSIT', atMs, { amountMicro });
    this.events.emit('account', { kind: 'balance', accountId: account.id, reason: 'DEPOSIT', tokenIds: [], atMs });
  }

  /** Everything time-driven: market lifecycle, order flow, submissions, expiry, settlement, LP samples, PnL marks. */
  tick(): void {
    const now = this.options.clock.now();
    this.lifecycle?.tick(now);
    this.traders.runDue(now);
    this.exchange.processDue();
    this.batches.processDue(now, (id) => this.accounts.get(id));
    this.lp.runIfDue(now);
    this.pnl.runIfDue(now);
    if (now >= this.#nextForgetMs) {
      this.#nextForgetMs = now + this.retention.everyMs;
      this.exchange.forgetSettled(now - this.retention.settledMs, this.retention.maxSettledPerAccount);
    }
  }
}
