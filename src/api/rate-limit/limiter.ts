import { parseRetryAfter } from '../../util/retry-after.ts';
import { AccountReadBucket, READ_TIERS } from './account-bucket.ts';
import { readRateLimitHeaders } from './headers.ts';
import { pathFamily, processIpLimits, type IpLimits } from './ip-limits.ts';
import type { BucketShape } from './token-bucket.ts';
import { type Clock, systemClock } from '../../util/clock.ts';

export interface RateLimiterOptions {
  /** The account's read bucket; default the authenticated tier (burst 100, refill 50/s). */
  read?: BucketShape;
  /** Tokens assumed at start (default: a full bucket). Lower it when other processes share the account. */
  initialReadTokens?: number;
  /**
   * This process's share of the account's read budget, in (0, 1] (default 1): when other processes
   * read the same account (capture and the sync worker in scale-out), each keeps to its share so
   * that together they never earn a 429.
   */
  readShare?: number;
  /**
   * Tokens left unspent to absorb jitter between our dispatch and the venue's count (default: 50 ms
   * of refill, at least 2). It lowers the burst slightly, never the sustained rate.
   */
  reserveTokens?: number;
  /** Per-IP limits; default the process-wide instance. */
  ipLimits?: IpLimits;
  clock?: Clock;
}

export interface AdmissionRequest {
  path: string;
  /** §8.1 read cost: 5 for the listed portfolio reads, 1 otherwise. */
  readCost: number;
  /** Only requests that carry the token spend the account's bucket. */
  authenticated: boolean;
}

export interface Permit {
  readonly seq: number;
  readonly request: AdmissionRequest;
}

export interface LimiterAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
}

interface Waiter {
  request: AdmissionRequest;
  resolve: (permit: Permit) => void;
  reject: (reason: unknown) => void;
}

const MIN_RESERVE_TOKENS = 2;
const JITTER_ALLOWANCE_SECONDS = 0.05;
/** Timers re-check at least this often (a bucket with no refill would otherwise mean an endless timer). */
const MAX_TIMER_MS = 60_000;
/** Used when a per-IP 429 comes without Retry-After. */
const DEFAULT_IP_BACKOFF_SECONDS = 1;
/** Longest a 429's Retry-After holds admission. */
const LONGEST_HOLD_SECONDS = 15 * 60;

/**
 * Paces requests so that the venue never has to refuse them: one account's read bucket plus the
 * per-IP caps. Share one instance between every caller of an account (sync jobs do); admission is
 * strictly first-come first-served, so a large request is not starved by a stream of small ones.
 */
export class RateLimiter {
  readonly #read: AccountReadBucket;
  readonly #ip: IpLimits;
  readonly #clock: Clock;
  readonly #reserve: number | undefined;
  readonly #queue: Waiter[] = [];
  readonly #inFlight = new Map<number, Permit>();
  #seq = 0;
  #lastReportSeq = -1;
  #timer: AbortController | undefined;
  #wakeAt = Number.POSITIVE_INFINITY;
  #admitted = 0;
  #refused = 0;

  constructor(options: RateLimiterOptions = {}) {
    const read = options.read ?? READ_TIERS.authenticated;
    this.#read = new AccountReadBucket(read, options.initialReadTokens, options.readShare);
    this.#ip = options.ipLimits ?? processIpLimits();
    this.#clock = options.clock ?? systemClock;
    this.#reserve = options.reserveTokens;
  }

  /** Resolves when the request may be sent. Call `settle` with the answer (or none) afterwards. */
  acquire(request: AdmissionRequest, signal?: AbortSignal): Promise<Permit> {
    return new Promise<Permit>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      // The abort listener goes as soon as the waiter is settled either way: callers pass
      // long-lived signals (a job's whole run), which must not collect one listener per request.
      const onAbort = (): void => {
        const index = this.#queue.indexOf(waiter);
        if (index < 0) return;
        this.#queue.splice(index, 1);
        reject(signal?.reason);
        this.#pump();
      };
      const waiter: Waiter = {
        request,
        resolve: (permit) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(permit);
        },
        reject: (reason) => {
          signal?.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      this.#queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pump();
    });
  }

  /** Feeds the answer back: `X-RateLimit-*` corrects the model, a 429 holds admission until Retry-After. */
  settle(permit: Permit, answer?: LimiterAnswer): void {
    this.#inFlight.delete(permit.seq);
    if (!answer) return;
    const now = this.#clock.now();
    const report = readRateLimitHeaders(answer.headers);
    if (answer.status === 429) {
      this.#refused += 1;
      // A Retry-After of days (a broken or hostile header) would freeze every later read: hold at most 15 minutes, then
      // ask again.
      const asked = parseRetryAfter(answer.headers['retry-after']);
      const retryAfter = asked === undefined ? undefined : Math.min(asked, LONGEST_HOLD_SECONDS);
      // §8.2: account 429s carry the bucket headers, per-IP ones do not.
      if (report) this.#read.trip(retryAfter, report, now);
      else this.#ip.block(pathFamily(permit.request.path), now + (retryAfter ?? DEFAULT_IP_BACKOFF_SECONDS) * 1000);
    } else if (report?.bucket === 'read' && permit.request.authenticated && permit.seq > this.#lastReportSeq) {
      // An older report than one already applied would count requests twice.
      this.#lastReportSeq = permit.seq;
      this.#read.observe(report, this.#costSentAfter(permit.seq), now);
    }
    this.#pump();
  }

  /** `refused`: 429 answers earned so far (the figure our pacing exists to keep at zero). */
  stats(): {
    admitted: number;
    refused: number;
    queued: number;
    inFlight: number;
    read: BucketShape & { tokens: number };
  } {
    return {
      admitted: this.#admitted,
      refused: this.#refused,
      queued: this.#queue.length,
      inFlight: this.#inFlight.size,
      read: { ...this.#read.shape, tokens: this.#read.tokens(this.#clock.now()) },
    };
  }

  #pump(): void {
    const now = this.#clock.now();
    while (this.#queue.length > 0) {
      const head = this.#queue[0] as Waiter;
      const wait = this.#waitMs(head.request, now);
      if (wait > 0) {
        this.#wakeIn(Math.min(wait, MAX_TIMER_MS), now);
        return;
      }
      this.#queue.shift();
      head.resolve(this.#admit(head.request, now));
    }
    this.#cancelTimer();
  }

  #waitMs(request: AdmissionRequest, now: number): number {
    const ip = this.#ip.waitMs(pathFamily(request.path), now);
    const account = request.authenticated ? this.#read.waitMs(request.readCost, now, this.#reserveTokens()) : 0;
    return Math.max(ip, account);
  }

  /** Default: 50 ms of refill, at least 2 tokens — the jitter between our dispatch and the venue's count. */
  #reserveTokens(): number {
    return this.#reserve ?? Math.max(MIN_RESERVE_TOKENS, this.#read.shape.refillPerSecond * JITTER_ALLOWANCE_SECONDS);
  }

  #admit(request: AdmissionRequest, now: number): Permit {
    this.#ip.record(pathFamily(request.path), now);
    if (request.authenticated) this.#read.take(request.readCost, now);
    const permit: Permit = { seq: this.#seq++, request };
    this.#inFlight.set(permit.seq, permit);
    this.#admitted += 1;
    return permit;
  }

  #costSentAfter(seq: number): number {
    let cost = 0;
    for (const permit of this.#inFlight.values()) {
      if (permit.seq > seq && permit.request.authenticated) cost += permit.request.readCost;
    }
    return cost;
  }

  // One timer, for the earliest moment the head can go; cancelled once the queue is empty so an
  // idle limiter keeps nothing alive. An early wake-up only re-checks the queue.
  #wakeIn(waitMs: number, now: number): void {
    const at = now + waitMs;
    if (this.#timer && at >= this.#wakeAt) return;
    this.#timer?.abort();
    const timer = new AbortController();
    this.#timer = timer;
    this.#wakeAt = at;
    this.#clock.sleep(waitMs, timer.signal).then(
      () => {
        if (this.#timer === timer) this.#timer = undefined;
        this.#pump();
      },
      () => undefined,
    );
  }

  #cancelTimer(): void {
    this.#timer?.abort();
    this.#timer = undefined;
  }
}
