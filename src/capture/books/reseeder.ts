import { NotOfferedError, RateLimitedError } from '../../api/errors.ts';
import type { SnapshotReason, RestBook } from './token-books.ts';
import type { Origin } from '../frames/index.ts';
import { scoped } from '../../util/scoped-signal.ts';
import type { Clock } from '../../util/clock.ts';

export type FetchBook = (tokenId: string, signal: AbortSignal) => Promise<RestBook>;

export interface ReseedTask {
  tokenId: string;
  reason: SnapshotReason;
  origin: Origin;
}

/** A re-seed's outcome: the REST book, or why there is none (`unavailable`: no REST book here at all). */
export type ReseedOutcome = { ok: true; book: RestBook } | { ok: false; error: unknown; unavailable: boolean };

/**
 * REST re-seeds of books (`GET /trade/v1/orderbook/{token_id}`), a few at a time so a reconnect of
 * a socket with hundreds of tokens queues behind the account's rate limit instead of flooding it.
 * A token asked for twice while queued is fetched once (for the later reason); asked for while its fetch runs, it is
 * fetched again afterwards (the answer in flight may predate what asked). A failed fetch (after
 * the client's own retries) is tried again later, then given up: the caller writes the streamed
 * ladder instead.
 */
export class Reseeder {
  readonly #queue: ReseedTask[] = [];
  readonly #queued = new Set<string>();
  readonly #running = new Map<string, ReseedTask>();
  readonly #again = new Map<string, ReseedTask>();
  readonly #stopping = new AbortController();
  #active = 0;
  rest429 = 0;

  constructor(
    private fetch: FetchBook | null,
    private readonly done: (task: ReseedTask, outcome: ReseedOutcome) => void,
    private readonly clock: Clock,
    private readonly concurrency = 4,
    private readonly retryDelaysMs: readonly number[] = [5_000, 20_000],
  ) {}

  get pending(): number {
    return this.#queue.length + this.#active + this.#again.size;
  }

  request(tokenIds: readonly string[], reason: SnapshotReason, origin: Origin): void {
    for (const tokenId of tokenIds) {
      if (this.#queued.has(tokenId)) {
        // Still waiting: one fetch serves both; the snapshot names the latest reason.
        const task = this.#queue.find((t) => t.tokenId === tokenId);
        if (task) Object.assign(task, { reason, origin });
        continue;
      }
      if (this.#running.has(tokenId)) {
        this.#again.set(tokenId, { tokenId, reason, origin });
        continue;
      }
      this.#queued.add(tokenId);
      this.#queue.push({ tokenId, reason, origin });
    }
    this.#run();
  }

  cancel(tokenId: string): void {
    this.#again.delete(tokenId);
    this.#running.delete(tokenId);
    if (!this.#queued.delete(tokenId)) return;
    const index = this.#queue.findIndex((t) => t.tokenId === tokenId);
    if (index >= 0) this.#queue.splice(index, 1);
  }

  stop(): void {
    this.#stopping.abort(new Error('capture stopping'));
    this.#queue.length = 0;
    this.#queued.clear();
    this.#running.clear();
    this.#again.clear();
  }

  #run(): void {
    while (this.#active < this.concurrency && this.#queue.length > 0) {
      const task = this.#queue.shift()!;
      this.#queued.delete(task.tokenId);
      this.#running.set(task.tokenId, task);
      this.#active += 1;
      void this.#fetch(task).finally(() => {
        this.#active -= 1;
        if (this.#running.get(task.tokenId) === task) this.#running.delete(task.tokenId);
        const again = this.#again.get(task.tokenId);
        this.#again.delete(task.tokenId);
        if (again && !this.#stopping.signal.aborted) this.request([again.tokenId], again.reason, again.origin);
        else this.#run();
      });
    }
  }

  async #fetch(task: ReseedTask): Promise<void> {
    const signal = this.#stopping.signal;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted || this.#running.get(task.tokenId) !== task) return;
      if (!this.fetch)
        return this.#finish(task, { ok: false, error: new Error('no REST order book configured'), unavailable: true });
      try {
        const fetch = this.fetch;
        const book = await scoped(signal, (s) => fetch(task.tokenId, s));
        return this.#finish(task, { ok: true, book });
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof RateLimitedError) this.rest429 += 1;
        if (error instanceof NotOfferedError) this.fetch = null;
        const delay = this.retryDelaysMs[attempt];
        if (delay === undefined || error instanceof NotOfferedError)
          return this.#finish(task, { ok: false, error, unavailable: this.fetch === null });
        try {
          await this.clock.sleep(delay, signal);
        } catch {
          return;
        }
      }
    }
  }

  #finish(task: ReseedTask, outcome: ReseedOutcome): void {
    // Cancelled meanwhile (the token was dropped): its answer is not wanted.
    if (this.#running.get(task.tokenId) !== task) return;
    this.done(task, outcome);
  }
}
