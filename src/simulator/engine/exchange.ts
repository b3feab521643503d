import { createHash } from 'node:crypto';
import type { Account, Activity } from '../accounts/account.ts';
import type { ActivityLog } from '../accounts/activity-log.ts';
import { reserveShares } from '../accounts/ledger.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { SimMarket } from '../catalogue/types.ts';
import type { Clock } from '../clock.ts';
import type { CancelReason, VenueEvents } from '../events.ts';
import type { Prng } from '../prng.ts';
import { Rejection, codeInfo, type ProblemCode } from '../problems.ts';
import { TakerAllowance } from './allowance.ts';
import { MarketBook, toOutcomePrice } from './book.ts';
import type { FeeSchedule } from './fees.ts';
import type { OrderLimits, PlaceRequest } from './place-request.ts';
import { settleMatch, type Match, type SettleContext } from './settle.ts';
import { isTerminal, remainingShares, type SimFill, type SimOrder } from '../orders.ts';
import { reservationFor, validatePlacement } from './validate.ts';
import { VenueLedger } from './venue-ledger.ts';
import { canFillCompletely, crosses, limitTick, oppositeSide, wouldCross } from './walk.ts';

export interface ExchangeConfig {
  fees: FeeSchedule;
  limits: OrderLimits;
  /** Time between the 202 (PENDING) and the order reaching the book. */
  submissionDelayMs: number;
  /** Time between a match (fill MATCHED) and its on-chain confirmation (CONFIRMED). */
  settlementDelayMs: number;
  /** Time a cancel-all takes to reach the book; `as_of` is the request time plus this (and the slack). */
  cancelAllDelayMs: number;
  /** InterfaceCases.cancelAllSlackMs: `as_of` lies up to this much later than the cutoff. */
  cancelAllSlackMs: number;
  /** InterfaceCases.publicFills: one trade id for everything one taker order meets. */
  publicFills: boolean;
  /** InterfaceCases.lateFillShare and lateFillDelayMs. */
  lateFillShare: number;
  lateFillDelayMs: [number, number];
}

/** A late fill not reported yet (ids only: plain data). */
interface LateReport {
  dueAtMs: number;
  orderId: string;
  takerOrderId: string;
  tradeId: string;
}

interface CancelAllJob {
  accountId: string;
  requestedAtMs: number;
  dueAtMs: number;
}

/** Notional traded in one minute of a market (volume_24h is read from these). */
interface VolumeBucket {
  minute: number;
  notionalMicro: bigint;
}

/**
 * The exchange of a saved venue: every order it holds (all accounts, placement order), the books
 * as the order ids resting at each level in time priority, and the work still to come.
 */
export interface ExchangeState {
  orders: SimOrder[];
  books: Array<{ conditionId: string; sequence: number; resting: string[] }>;
  pending: string[];
  gtd: string[];
  cancelAllJobs: CancelAllJob[];
  unconfirmed: Array<[accountId: string, fillId: string]>;
  lastTrade0: Array<[conditionId: string, price0Micro: bigint]>;
  recentVolume: Array<[conditionId: string, buckets: VolumeBucket[]]>;
  lateReports: LateReport[];
  orderSeq: number;
  fillSeq: number;
  lateFillAccountId: string | undefined;
  ledger: {
    feeRevenueMicro: bigint;
    rebatesPaidMicro: bigint;
    lpIncentivesPaidMicro: bigint;
    escrow: Array<[conditionId: string, escrowMicro: bigint]>;
  };
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Order intake, matching and order lifecycle for every market (§3.1). */
export class Exchange {
  readonly orders = new Map<string, SimOrder>();
  readonly ordersByHash = new Map<string, SimOrder>();
  readonly venue = new VenueLedger();
  /** Called when work was queued that should run soon (the simulator schedules `processDue`). */
  onWorkQueued: (() => void) | undefined;
  readonly #books = new Map<string, MarketBook>();
  #pending: SimOrder[] = [];
  readonly #gtd = new Set<SimOrder>();
  #cancelAllJobs: CancelAllJob[] = [];
  #unconfirmed: SimFill[] = [];
  readonly #lastTrade0 = new Map<string, bigint>();
  readonly #recentVolume = new Map<string, VolumeBucket[]>();
  #lateReports: LateReport[] = [];
  #orderSeq = 0;
  #fillSeq = 0;
  /** Where a book first seen now starts numbering its changes (a resumed venue: restore). */
  #bookSequenceFloor = 0;
  /** The account on the other side of late fills (§3.1); none: no late fills. */
  lateFillAccountId: string | undefined;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly accounts: AccountRegistry,
    private readonly activities: ActivityLog,
    private readonly events: VenueEvents,
    private readonly clock: Clock,
    private readonly ids: Prng,
    readonly config: ExchangeConfig,
    /** Draws of the interface cases (late fills, cancel-all slack). */
    private readonly draws: Prng,
  ) {}

  book(market: SimMarket): MarketBook {
    let book = this.#books.get(market.conditionId);
    if (!book) {
      book = new MarketBook(market.conditionId, market.tickMicro);
      book.sequence = this.#bookSequenceFloor;
      this.#books.set(market.conditionId, book);
    }
    return book;
  }

  /** Synchronous checks, then PENDING (HTTP 202). Throws a Rejection for a synchronous refusal. */
  place(accountId: string, req: PlaceRequest, orderHash?: string): SimOrder {
    const account = this.#account(accountId);
    const ref = this.catalogue.token(req.tokenId);
    if (!ref) throw new Rejection('token_not_found', `No outcome token ${req.tokenId}.`);
    const { market, outcomeIndex } = ref;
    const now = this.clock.now();
    const reservation = validatePlacement(
      req,
      market,
      account,
      this.catalogue.isAcceptingOrders(market),
      this.config.limits,
      this.config.fees,
      now,
    );
    const order: SimOrder = {
      id: this.ids.uuid(),
      seq: ++this.#orderSeq,
      accountId,
      conditionId: market.conditionId,
      tokenId: req.tokenId,
      outcomeIndex,
      side: req.side,
      type: req.type,
      timeInForce: req.timeInForce,
      postOnly: req.postOnly,
      priceMicro: req.priceMicro,
      originalSizeMicro: req.sharesMicro,
      collateralAmountMicro: req.collateralAmountMicro,
      sizeMatchedMicro: 0n,
      notionalMatchedMicro: 0n,
      feesMicro: 0n,
      status: 'PENDING',
      createdAtMs: now,
      updatedAtMs: now,
      expirationMs: req.expirationUnixSeconds === undefined ? undefined : req.expirationUnixSeconds * 1000,
      cancelRequestedAtMs: undefined,
      failure: undefined,
      orderHash,
      reservedCollateralMicro: 0n,
      reservedSharesMicro: 0n,
      fillIds: [],
    };
    const book = this.book(market);
    if (req.postOnly && wouldCross(book, order))
      throw new Rejection('post_only_would_cross', 'Re-fetch the book and re-quote.');
    if (req.timeInForce === 'FOK' && !canFillCompletely(book, order, this.config.fees, this.#lot(market))) {
      throw new Rejection('order_not_fillable', 'The book cannot fill this order completely now.');
    }
    this.#applyReservation(order, account, reservation.collateralMicro, reservation.sharesMicro);
    this.orders.set(order.id, order);
    if (orderHash) this.ordersByHash.set(orderHash, order);
    if (order.expirationMs !== undefined) this.#gtd.add(order);
    account.orders.push(order);
    this.activities.record(account, 'ORDER', now, {
      orderId: order.id,
      conditionId: order.conditionId,
      tokenId: order.tokenId,
    });
    this.#pending.push(order);
    this.onWorkQueued?.();
    return order;
  }

  /** Cancels one order of the account. PENDING orders go without a frame; resting ones with reason USER. */
  cancel(accountId: string, orderId: string): SimOrder {
    const order = this.orders.get(orderId);
    if (!order || order.accountId !== accountId) throw new Rejection('order_not_found', `No order ${orderId}.`);
    if (isTerminal(order.status)) return order;
    order.cancelRequestedAtMs = this.clock.now();
    this.#cancelOpen(order, 'USER');
    return order;
  }

  /**
   * Queues a cancel-all of the orders created up to now; returns `as_of`, a conservative upper bound
   * of that cutoff (§4.1), not the cutoff itself: the delay, plus a drawn slack when the case is on.
   */
  cancelAll(accountId: string): number {
    const now = this.clock.now();
    this.#cancelAllJobs.push({ accountId, requestedAtMs: now, dueAtMs: now + this.config.cancelAllDelayMs });
    this.onWorkQueued?.();
    const slack = this.config.cancelAllSlackMs > 0 ? this.draws.int(1, this.config.cancelAllSlackMs) : 0;
    return now + this.config.cancelAllDelayMs + slack;
  }

  /** Runs everything that is due: submissions, cancel-alls, GTD expiry, settlement confirmations. */
  processDue(): void {
    const now = this.clock.now();
    const due = this.#pending.filter((o) => o.createdAtMs + this.config.submissionDelayMs <= now);
    this.#pending = this.#pending.filter(
      (o) => o.createdAtMs + this.config.submissionDelayMs > now && o.status === 'PENDING',
    );
    const jobs = this.#cancelAllJobs.filter((j) => j.dueAtMs <= now);
    this.#cancelAllJobs = this.#cancelAllJobs.filter((j) => j.dueAtMs > now);
    for (const job of jobs) this.#runCancelAll(job);
    for (const order of due) if (order.status === 'PENDING') this.#submit(order);
    this.#expireGtd(now);
    this.#reportLateFills(now);
    this.#confirmSettled(now);
  }

  /**
   * A market stops trading (it closed or is about to resolve): resting orders leave the book with
   * `order_cancelled` reason MARKET_CLOSED; orders not yet submitted end FAILED (`market_closed`)
   * with `order_rejected`, as they would at submission.
   */
  closeMarket(market: SimMarket): void {
    const book = this.book(market);
    const resting = book.restingOrders();
    for (const order of resting) this.#cancelResting(order, 'MARKET_CLOSED');
    for (const order of this.#pending) {
      if (order.conditionId === market.conditionId && order.status === 'PENDING')
        this.#failAfterAcceptance(order, this.#account(order.accountId), 'FAILED', 'market_closed');
    }
    if (resting.length > 0) this.#bookChanged(market, book);
  }

  pendingCount(): number {
    return this.#pending.length + this.#cancelAllJobs.length + this.#lateReports.length;
  }

  /** Mark price of an outcome: resolution price, else book midpoint, else last trade, else the opening fair price. */
  markPriceMicro(market: SimMarket, index: 0 | 1): bigint {
    const resolved = market.outcomes[index].resolutionPriceMicro;
    if (resolved !== undefined) return resolved;
    const book = this.#books.get(market.conditionId);
    const top = book?.topFor(0);
    let price0: bigint;
    if (top?.bid !== undefined && top.ask !== undefined) price0 = (top.bid + top.ask) / 2n;
    else price0 = this.#lastTrade0.get(market.conditionId) ?? market.initialPriceMicro;
    return toOutcomePrice(price0, index);
  }

  lastTradePriceMicro(market: SimMarket, index: 0 | 1): bigint | undefined {
    const p = this.#lastTrade0.get(market.conditionId);
    return p === undefined ? undefined : toOutcomePrice(p, index);
  }

  /** Notional of the last 24 hours, to the minute (the oldest minute counts whole). */
  volume24hMicro(market: SimMarket): bigint {
    const since = this.clock.now() - DAY_MS;
    let total = 0n;
    for (const bucket of this.#recentVolume.get(market.conditionId) ?? [])
      if ((bucket.minute + 1) * MINUTE_MS > since) total += bucket.notionalMicro;
    return total;
  }

  fillsOf(order: SimOrder): SimFill[] {
    const account = this.#account(order.accountId);
    const ids = new Set(order.fillIds);
    return account.fills.filter((f) => ids.has(f.fillId));
  }

  /** The resting orders of every book (LP scoring reads these). */
  booksWithOrders(): Array<{ market: SimMarket; book: MarketBook }> {
    const out: Array<{ market: SimMarket; book: MarketBook }> = [];
    for (const [conditionId, book] of this.#books) {
      const market = this.catalogue.marketByCondition(conditionId);
      if (market) out.push({ market, book });
    }
    return out;
  }

  /**
   * Settled orders leave memory (their fills and activities with them): those settled — terminal,
   * no late fill still to report, fills confirmed — before `cutoffMs`, and beyond the newest
   * `maxPerAccount` settled ones of an account. Open orders stay whatever their age, so every list
   * and every order's fills stay whole for what the venue still holds. Returns how many left.
   */
  forgetSettled(cutoffMs: number, maxPerAccount: number): number {
    const settledBefore = this.clock.now() - this.config.settlementDelayMs;
    const isSettled = (o: SimOrder): boolean =>
      isTerminal(o.status) && o.reported === undefined && o.updatedAtMs < settledBefore;
    let forgotten = 0;
    for (const account of this.accounts.all()) {
      const settled = account.orders.filter(isSettled);
      const excess = settled.length - maxPerAccount;
      const gone = new Set<string>();
      settled.forEach((o, i) => {
        if (o.updatedAtMs >= cutoffMs && i >= excess) return;
        gone.add(o.id);
        this.orders.delete(o.id);
        if (o.orderHash !== undefined) this.ordersByHash.delete(o.orderHash);
      });
      // Activities that mirror no order (deposits, splits, merges) go by their own time.
      const activityStays = (a: Activity): boolean =>
        a.orderId === undefined ? a.createdAtMs >= cutoffMs : !gone.has(a.orderId);
      if (gone.size === 0 && account.activities.every(activityStays)) continue;
      keepIf(account.orders, (o) => !gone.has(o.id));
      keepIf(account.fills, (f) => !gone.has(f.orderId));
      keepIf(account.activities, activityStays);
      forgotten += gone.size;
    }
    return forgotten;
  }

  snapshot(): ExchangeState {
    const books: ExchangeState['books'] = [];
    for (const [conditionId, book] of this.#books)
      books.push({ conditionId, sequence: book.sequence, resting: book.restingOrders().map((o) => o.id) });
    return {
      orders: [...this.orders.values()],
      books,
      pending: this.#pending.map((o) => o.id),
      gtd: [...this.#gtd].map((o) => o.id),
      cancelAllJobs: this.#cancelAllJobs,
      unconfirmed: this.#unconfirmed.map((f) => [f.accountId, f.fillId]),
      lastTrade0: [...this.#lastTrade0],
      recentVolume: [...this.#recentVolume],
      lateReports: this.#lateReports,
      orderSeq: this.#orderSeq,
      fillSeq: this.#fillSeq,
      lateFillAccountId: this.lateFillAccountId,
      ledger: {
        feeRevenueMicro: this.venue.feeRevenueMicro,
        rebatesPaidMicro: this.venue.rebatesPaidMicro,
        lpIncentivesPaidMicro: this.venue.lpIncentivesPaidMicro,
        escrow: [...this.venue.escrowByCondition],
      },
    };
  }

  /**
   * Takes a saved venue's exchange back, its orders being `orders` (the objects the accounts were
   * restored with). Sequences (orders, fills, every book's) go on from at least `sequenceFloor`:
   * a venue resumed from a save older than what it had issued never numbers anything twice.
   */
  restore(state: ExchangeState, orders: ReadonlyMap<string, SimOrder>, sequenceFloor: number): void {
    const order = (id: string): SimOrder => {
      const found = orders.get(id);
      if (!found) throw new Error(`saved exchange names order ${id}, which it does not hold`);
      return found;
    };
    this.#bookSequenceFloor = sequenceFloor;
    for (const o of orders.values()) {
      this.orders.set(o.id, o);
      if (o.orderHash !== undefined) this.ordersByHash.set(o.orderHash, o);
    }
    for (const saved of state.books) {
      const market = this.catalogue.marketByCondition(saved.conditionId);
      if (!market) continue;
      const book = this.book(market);
      book.sequence = Math.max(saved.sequence, sequenceFloor);
      for (const id of saved.resting) book.add(order(id));
    }
    this.#pending = state.pending.map(order);
    for (const id of state.gtd) this.#gtd.add(order(id));
    this.#cancelAllJobs = state.cancelAllJobs;
    const fill = ([accountId, fillId]: [string, string]): SimFill | undefined =>
      this.accounts.get(accountId)?.fills.find((f) => f.fillId === fillId);
    this.#unconfirmed = state.unconfirmed.map(fill).filter((f): f is SimFill => f !== undefined);
    for (const [conditionId, price] of state.lastTrade0) this.#lastTrade0.set(conditionId, price);
    for (const [conditionId, buckets] of state.recentVolume) this.#recentVolume.set(conditionId, buckets);
    this.#lateReports = state.lateReports;
    this.#orderSeq = Math.max(state.orderSeq, sequenceFloor);
    this.#fillSeq = Math.max(state.fillSeq, sequenceFloor);
    this.lateFillAccountId = state.lateFillAccountId;
    this.venue.feeRevenueMicro = state.ledger.feeRevenueMicro;
    this.venue.rebatesPaidMicro = state.ledger.rebatesPaidMicro;
    this.venue.lpIncentivesPaidMicro = state.ledger.lpIncentivesPaidMicro;
    for (const [conditionId, escrow] of state.ledger.escrow) this.venue.escrowByCondition.set(conditionId, escrow);
  }

  #submit(order: SimOrder): void {
    const account = this.#account(order.accountId);
    const ref = this.catalogue.token(order.tokenId);
    if (!ref) return;
    const market = ref.market;
    const book = this.book(market);
    order.status = 'SUBMITTING';
    if (!this.catalogue.isAcceptingOrders(market))
      return this.#failAfterAcceptance(order, account, 'FAILED', 'market_closed');
    if (order.postOnly && wouldCross(book, order))
      return this.#failAfterAcceptance(order, account, 'REJECTED', 'post_only_would_cross');
    if (order.timeInForce === 'FOK' && !canFillCompletely(book, order, this.config.fees, this.#lot(market))) {
      return this.#failAfterAcceptance(order, account, 'REJECTED', 'order_not_fillable');
    }
    const now = this.clock.now();
    this.events.emit('account', { kind: 'order_accepted', accountId: account.id, order, atMs: now });
    let changed = this.#match(order, account, market, book);
    const rests =
      order.type === 'LIMIT' &&
      (order.timeInForce === 'GTC' || order.timeInForce === 'GTD') &&
      remainingShares(order) > 0n;
    if (rests) {
      order.status = 'LIVE';
      book.add(order);
      changed = true;
    } else {
      order.status = order.sizeMatchedMicro > 0n ? 'MATCHED' : 'CANCELLED';
      this.#gtd.delete(order);
    }
    order.updatedAtMs = now;
    this.#reserveRemaining(order, account);
    if (changed) this.#bookChanged(market, book);
  }

  /** Takes liquidity price-time first; own resting orders are cancelled (self-trade prevention). */
  #match(taker: SimOrder, account: Account, market: SimMarket, book: MarketBook): boolean {
    const allowance = new TakerAllowance(taker, this.config.fees, this.#lot(market));
    const limit = limitTick(book, taker);
    const side = oppositeSide(taker);
    // Public fills (§6.2): everything this taker order meets is one trade, a fill per maker.
    const tradeId = this.config.publicFills ? this.ids.uuid() : undefined;
    let changed = false;
    for (;;) {
      const level = book.bestLevel(side);
      if (!level || !crosses(taker, level, limit)) break;
      const maker = level.orders[0];
      if (!maker) break;
      if (maker.accountId === taker.accountId) {
        this.#cancelResting(maker, 'SELF_TRADE_PREVENTION');
        changed = true;
        continue;
      }
      const price0 = book.priceOfTick(level.tick);
      const takerPrice = toOutcomePrice(price0, taker.outcomeIndex);
      const wanted = allowance.sharesAt(takerPrice);
      if (wanted <= 0n) break;
      const makerLeft = remainingShares(maker);
      const shares = wanted < makerLeft ? wanted : makerLeft;
      const makerAccount = this.#account(maker.accountId);
      const match = settleMatch(
        this.#settleContext(),
        { order: taker, account },
        { order: maker, account: makerAccount },
        shares,
        price0,
        this.clock.now(),
        tradeId,
      );
      allowance.take(takerPrice, shares);
      book.reduce(maker, shares);
      if (remainingShares(maker) === 0n) {
        book.remove(maker);
        maker.status = 'MATCHED';
        this.#gtd.delete(maker);
      }
      this.#reserveRemaining(maker, makerAccount);
      this.#recordMatch(match, market, price0);
      this.#publishMatch(match.takerFill, match.makerFill, taker, maker, match.takerFill.executedAtMs);
      changed = true;
    }
    return changed;
  }

  #settleContext(): SettleContext {
    return { fees: this.config.fees, ids: this.ids, venue: this.venue, nextFillSeq: () => ++this.#fillSeq };
  }

  /** The venue's own state after a match: volume, last price, settlement to come. */
  #recordMatch(match: Match, market: SimMarket, price0: bigint): void {
    const at = match.takerFill.executedAtMs;
    market.volumeMicro += match.notionalMicro;
    this.#recordVolume(market.conditionId, at, match.notionalMicro);
    this.#lastTrade0.set(market.conditionId, price0);
    this.#unconfirmed.push(match.takerFill, match.makerFill);
  }

  /** Per-minute volume, a day of it per market: bounded whatever the rate. */
  #recordVolume(conditionId: string, atMs: number, notionalMicro: bigint): void {
    const minute = Math.floor(atMs / MINUTE_MS);
    let buckets = this.#recentVolume.get(conditionId);
    if (!buckets) {
      buckets = [];
      this.#recentVolume.set(conditionId, buckets);
    }
    const last = buckets.at(-1);
    if (last?.minute === minute) last.notionalMicro += notionalMicro;
    else buckets.push({ minute, notionalMicro });
    const oldest = minute - DAY_MS / MINUTE_MS;
    let stale = 0;
    while (stale < buckets.length && buckets[stale]!.minute < oldest) stale++;
    if (stale > 0) buckets.splice(0, stale);
  }

  /** What the world hears of a match, at `atMs`: the public fill, and each side's account fill. */
  #publishMatch(takerFill: SimFill, makerFill: SimFill, taker: SimOrder, maker: SimOrder, atMs: number): void {
    this.events.emit('trade', {
      tradeId: takerFill.tradeId,
      fillId: this.config.publicFills ? takerFill.fillId : undefined,
      conditionId: takerFill.conditionId,
      tokenId: taker.tokenId,
      side: taker.side,
      priceMicro: takerFill.priceMicro,
      sharesMicro: takerFill.sharesMicro,
      executedAtMs: takerFill.executedAtMs,
      atMs,
    });
    this.events.emit('account', { kind: 'fill', accountId: taker.accountId, order: taker, fill: takerFill, atMs });
    this.events.emit('account', { kind: 'fill', accountId: maker.accountId, order: maker, fill: makerFill, atMs });
  }

  #failAfterAcceptance(order: SimOrder, account: Account, status: 'REJECTED' | 'FAILED', code: ProblemCode): void {
    const info = codeInfo(code);
    order.status = status;
    order.failure = { code, title: info.title, recovery: { strategy: info.strategy } };
    order.updatedAtMs = this.clock.now();
    this.#gtd.delete(order);
    this.#reserveRemaining(order, account);
    this.events.emit('account', { kind: 'order_rejected', accountId: account.id, order, atMs: order.updatedAtMs });
  }

  /**
   * PENDING: cancelled silently. Resting: off the book with an `order_cancelled` frame — or, for a
   * cancel-all or an expiry (`mayFillLate`), now and then filled just before (a late fill, §3.1).
   */
  #cancelOpen(order: SimOrder, reason: CancelReason, mayFillLate = false): void {
    if (order.status === 'PENDING') {
      order.status = 'CANCELLED';
      order.updatedAtMs = this.clock.now();
      this.#gtd.delete(order);
      this.#reserveRemaining(order, this.#account(order.accountId));
      return;
    }
    if (order.status !== 'LIVE') return;
    const ref = this.catalogue.token(order.tokenId);
    if (mayFillLate && ref && this.#drawsLateFill(order)) this.#fillLate(order, reason, ref.market);
    else this.#cancelResting(order, reason);
    if (ref) this.#bookChanged(ref.market, this.book(ref.market));
  }

  #drawsLateFill(order: SimOrder): boolean {
    const share = this.config.lateFillShare;
    return (
      share > 0 &&
      this.lateFillAccountId !== undefined &&
      order.type === 'LIMIT' &&
      order.priceMicro !== undefined &&
      remainingShares(order) > 0n &&
      this.draws.chance(share)
    );
  }

  /**
   * §3.1 "CANCELLED | late fill | order filled just before cancel-all reached it | MATCHED": the
   * order's remainder is matched now against the late-fill account (a BUY of the other outcome
   * for a BUY, a BUY of the same outcome for a SELL) and leaves the book; the venue reports it
   * CANCELLED (with `order_cancelled`) until the fill is reported a moment later, when it turns
   * MATCHED, the fill is listed with its earlier `executed_at`, and the public fill and account
   * fills are sent. Money moves at the match: the accounting holds at every instant.
   */
  #fillLate(order: SimOrder, reason: CancelReason, market: SimMarket): void {
    const account = this.#account(order.accountId);
    const late = this.#account(this.lateFillAccountId as string);
    const now = this.clock.now();
    const shares = remainingShares(order);
    const before = {
      status: 'CANCELLED' as const,
      sizeMatchedMicro: order.sizeMatchedMicro,
      notionalMatchedMicro: order.notionalMatchedMicro,
      feesMicro: order.feesMicro,
    };
    this.book(market).remove(order);
    const price = order.priceMicro as bigint;
    const otherIndex = order.side === 'BUY' ? (order.outcomeIndex === 0 ? 1 : 0) : order.outcomeIndex;
    const taker = this.#lateTakerOrder(
      late,
      market,
      otherIndex,
      order.side === 'BUY' ? 1_000_000n - price : price,
      shares,
      now,
    );
    const price0 = order.outcomeIndex === 0 ? price : 1_000_000n - price;
    const match = settleMatch(
      this.#settleContext(),
      { order: taker, account: late },
      { order, account },
      shares,
      price0,
      now,
    );
    order.status = 'MATCHED';
    taker.status = 'MATCHED';
    this.#gtd.delete(order);
    this.#reserveRemaining(order, account);
    this.#reserveRemaining(taker, late);
    const [lo, hi] = this.config.lateFillDelayMs;
    const untilMs = now + this.draws.int(lo, Math.max(lo, hi));
    order.reported = { ...before, untilMs };
    match.takerFill.reportedFromMs = untilMs;
    match.makerFill.reportedFromMs = untilMs;
    this.#recordMatch(match, market, price0);
    this.#lateReports.push({ dueAtMs: untilMs, orderId: order.id, takerOrderId: taker.id, tradeId: match.tradeId });
    this.events.emit('account', { kind: 'order_cancelled', accountId: account.id, order, reason, atMs: now });
  }

  /** The late-fill account's side of a late fill: a BUY that met the order, matched in full. */
  #lateTakerOrder(
    account: Account,
    market: SimMarket,
    outcomeIndex: 0 | 1,
    priceMicro: bigint,
    sharesMicro: bigint,
    now: number,
  ): SimOrder {
    const order: SimOrder = {
      id: this.ids.uuid(),
      seq: ++this.#orderSeq,
      accountId: account.id,
      conditionId: market.conditionId,
      tokenId: market.outcomes[outcomeIndex].tokenId,
      outcomeIndex,
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'FAK',
      postOnly: false,
      priceMicro,
      originalSizeMicro: sharesMicro,
      collateralAmountMicro: undefined,
      sizeMatchedMicro: 0n,
      notionalMatchedMicro: 0n,
      feesMicro: 0n,
      status: 'SUBMITTING',
      createdAtMs: now,
      updatedAtMs: now,
      expirationMs: undefined,
      cancelRequestedAtMs: undefined,
      failure: undefined,
      orderHash: undefined,
      reservedCollateralMicro: 0n,
      reservedSharesMicro: 0n,
      fillIds: [],
    };
    this.orders.set(order.id, order);
    account.orders.push(order);
    this.activities.record(account, 'ORDER', now, {
      orderId: order.id,
      conditionId: order.conditionId,
      tokenId: order.tokenId,
    });
    return order;
  }

  /** Late fills whose time has come: the order turns MATCHED, the fills are listed and sent. */
  #reportLateFills(now: number): void {
    if (this.#lateReports.length === 0) return;
    const due = this.#lateReports.filter((r) => r.dueAtMs <= now);
    if (due.length === 0) return;
    this.#lateReports = this.#lateReports.filter((r) => r.dueAtMs > now);
    for (const report of due) {
      const order = this.orders.get(report.orderId);
      const taker = this.orders.get(report.takerOrderId);
      if (!order || !taker) continue;
      delete order.reported;
      const makerFill = this.#account(order.accountId).fills.find(
        (f) => f.tradeId === report.tradeId && f.orderId === order.id,
      );
      const takerFill = this.#account(taker.accountId).fills.find(
        (f) => f.tradeId === report.tradeId && f.orderId === taker.id,
      );
      if (makerFill && takerFill) this.#publishMatch(takerFill, makerFill, taker, order, now);
    }
  }

  #cancelResting(order: SimOrder, reason: CancelReason): void {
    const ref = this.catalogue.token(order.tokenId);
    if (ref) this.book(ref.market).remove(order);
    const account = this.#account(order.accountId);
    order.status = 'CANCELLED';
    order.updatedAtMs = this.clock.now();
    this.#gtd.delete(order);
    this.#reserveRemaining(order, account);
    this.events.emit('account', {
      kind: 'order_cancelled',
      accountId: account.id,
      order,
      reason,
      atMs: order.updatedAtMs,
    });
  }

  #runCancelAll(job: CancelAllJob): void {
    const account = this.accounts.get(job.accountId);
    if (!account) return;
    for (const order of account.orders) {
      if (isTerminal(order.status) || order.createdAtMs > job.requestedAtMs) continue;
      order.cancelRequestedAtMs = job.requestedAtMs;
      this.#cancelOpen(order, 'USER', true);
    }
  }

  /** GTD expiry: a PENDING order goes silently, a resting one with `order_cancelled` reason USER. */
  #expireGtd(now: number): void {
    for (const order of [...this.#gtd]) {
      if (order.expirationMs === undefined || order.expirationMs > now) continue;
      if (order.status === 'PENDING' || order.status === 'LIVE') this.#cancelOpen(order, 'USER', true);
      this.#gtd.delete(order);
    }
  }

  #confirmSettled(now: number): void {
    let confirmed = 0;
    for (const fill of this.#unconfirmed) {
      if (fill.executedAtMs + this.config.settlementDelayMs > now) break;
      fill.status = 'CONFIRMED';
      fill.transactionHash = `0x${createHash('sha256').update(fill.tradeId).digest('hex')}`;
      confirmed++;
    }
    if (confirmed > 0) this.#unconfirmed = this.#unconfirmed.slice(confirmed);
  }

  /** Recomputes what an order holds back from what it has left; terminal orders hold nothing. */
  #reserveRemaining(order: SimOrder, account: Account): void {
    if (isTerminal(order.status)) return this.#applyReservation(order, account, 0n, 0n);
    if (order.type === 'MARKET' && order.side === 'BUY') {
      const left = (order.collateralAmountMicro ?? 0n) - order.notionalMatchedMicro - order.feesMicro;
      return this.#applyReservation(order, account, left, 0n);
    }
    const r = reservationFor(order, remainingShares(order), this.config.fees);
    this.#applyReservation(order, account, r.collateralMicro, r.sharesMicro);
  }

  #applyReservation(order: SimOrder, account: Account, collateralMicro: bigint, sharesMicro: bigint): void {
    account.reservedCollateralMicro += collateralMicro - order.reservedCollateralMicro;
    order.reservedCollateralMicro = collateralMicro;
    const shareDelta = sharesMicro - order.reservedSharesMicro;
    if (shareDelta !== 0n) {
      reserveShares(
        account,
        { tokenId: order.tokenId, conditionId: order.conditionId, outcomeIndex: order.outcomeIndex },
        shareDelta,
        this.clock.now(),
      );
    }
    order.reservedSharesMicro = sharesMicro;
  }

  #bookChanged(market: SimMarket, book: MarketBook): void {
    book.sequence++;
    if (this.events.listenerCount('book') === 0) return;
    const atMs = this.clock.now();
    for (const outcome of market.outcomes) {
      const sequence = book.sequence;
      this.events.emit('book', {
        tokenId: outcome.tokenId,
        conditionId: market.conditionId,
        sequence,
        atMs,
        snapshot: () => ({
          tokenId: outcome.tokenId,
          conditionId: market.conditionId,
          sequence,
          atMs,
          ...book.ladderFor(outcome.index),
        }),
      });
    }
  }

  #lot(market: SimMarket): bigint {
    return 1_000_000n / BigInt(market.sizeScale);
  }

  #account(id: string): Account {
    const account = this.accounts.get(id);
    if (!account) throw new Error(`unknown account ${id}`);
    return account;
  }
}

/** Keeps the items `keep` says, in order, in the same array (other parts hold it). */
function keepIf<T>(items: T[], keep: (item: T) => boolean): void {
  let kept = 0;
  for (const item of items) if (keep(item)) items[kept++] = item;
  items.length = kept;
}
