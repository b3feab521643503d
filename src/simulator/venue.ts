import type { Account } from './accounts/account.ts';
import { ActivityLog } from './accounts/activity-log.ts';
import { AccountBatches } from './accounts/batches.ts';
import { deposit } from './accounts/ledger.ts';
import { LpIncentives } from './accounts/lp-incentives.ts';
import { PnlMarks } from './accounts/pnl-marks.ts';
import { ALL_SCOPES, AccountRegistry, READ_SCOPES, type AccessToken, type Scope } from './accounts/registry.ts';
import { DEFAULT_CASES, type InterfaceCases } from './cases.ts';
import { Catalogue } from './catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE_SHAPE, generateCatalogue, type CatalogueShape } from './catalogue/generate.ts';
import type { Clock } from './clock.ts';
import { Exchange, type ExchangeConfig } from './engine/exchange.ts';
import { DEFAULT_FEES } from './engine/fees.ts';
import { DEFAULT_ORDER_LIMITS } from './engine/place-request.ts';
import { VenueEvents } from './events.ts';
import type { LifecycleConfig } from './lifecycle/config.ts';
import { MarketLifecycle } from './lifecycle/market-lifecycle.ts';
import { Prng } from './prng.ts';
import { Traders } from './traders/traders.ts';

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
  /** Resting orders on every tick from 4 to this many ticks either side of the fair value (default 50); 0: books only 1–3 ticks deep, the makers' quotes. */
  depthTicks?: number;
  /** Halts, resolutions, redemptions and recurring rolls on the clock; absent: markets keep their generated state. */
  lifecycle?: LifecycleConfig;
  /** The interface's cases the venue shows (cases.ts); default DEFAULT_CASES. */
  cases?: InterfaceCases;
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

  constructor(readonly options: VenueOptions) {
    const { seed, clock } = options;
    this.startedAtMs = clock.now();
    this.cases = options.cases ?? DEFAULT_CASES;
    this.restRng = Prng.forStream(seed, 'rest-cases');
    this.events.setMaxListeners(0);
    const ids = Prng.forStream(seed, 'ids');
    this.catalogue = new Catalogue(generateCatalogue(seed, this.startedAtMs, { ...DEFAULT_CATALOGUE_SHAPE, ...options.catalogue }), this.events);
    this.accounts = new AccountRegistry(Prng.forStream(seed, 'accounts'));
    this.activities = new ActivityLog(ids);
    this.exchange = new Exchange(this.catalogue, this.accounts, this.activities, this.events, clock, Prng.forStream(seed, 'orders'), {
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
    }, Prng.forStream(seed, 'exchange-cases'));
    this.lp = new LpIncentives(this.catalogue, this.exchange, this.accounts, this.events, this.startedAtMs, options.lpSampleIntervalMs ?? 10_000);
    this.batches = new AccountBatches(this.catalogue, this.exchange.venue, this.activities, this.events, options.batchDelayMs ?? 2_000);
    this.pnl = new PnlMarks(this.accounts, this.catalogue, this.exchange, ids, this.startedAtMs, options.pnlIntervalMs ?? 60_000);

    this.lifecycle = options.lifecycle
      ? new MarketLifecycle(this.catalogue, this.exchange, this.accounts, this.events, Prng.forStream(seed, 'lifecycle'), options.lifecycle, this.startedAtMs)
      : undefined;

    this.demo = this.createAccount('demo', TAKER_DEPOSIT, READ_SCOPES, options.demoToken);
    const makers = Array.from({ length: options.makers ?? 3 }, (_, i) => this.createAccount(`maker-${i + 1}`, MAKER_DEPOSIT, ALL_SCOPES));
    const takers = Array.from({ length: options.takers ?? 3 }, (_, i) => this.createAccount(`taker-${i + 1}`, TAKER_DEPOSIT, ALL_SCOPES));
    const depthTicks = options.depthTicks ?? DEFAULT_DEPTH_TICKS;
    const depth = depthTicks > 0 ? this.createAccount('depth', DEPTH_DEPOSIT, ALL_SCOPES) : undefined;
    this.traderCredentials.push(...makers, ...takers, ...(depth ? [depth] : []));
    // The other side of late fills (§3.1): an account that only ever meets orders just before they are cancelled.
    if (this.cases.lateFillShare > 0) {
      const late = this.createAccount('late-fills', LATE_FILL_DEPOSIT, ALL_SCOPES);
      this.exchange.lateFillAccountId = late.account.id;
      this.traderCredentials.push(late);
    }
    this.traders = new Traders(
      this.catalogue,
      this.exchange,
      Prng.forStream(seed, 'traders'),
      {
        makers: makers.map((c) => c.account),
        takers: [this.demo.account, ...takers.map((c) => c.account)],
        depth: depth ? { account: depth.account, ticks: depthTicks, rng: Prng.forStream(seed, 'depth') } : undefined,
      },
      () => clock.now(),
      options.rate,
    );
  }

  /** A funded account with one personal access token. */
  createAccount(label: string, depositMicro: bigint, scopes: Iterable<Scope> = ALL_SCOPES, secret?: string): Credentials {
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
  }
}
