import { BusError, type CommitPosition, type Subscription } from '../bus/bus.ts';
import type { Logger } from '../util/log.ts';
import { partitionKey } from './state/loader-offsets.ts';

/** Wait before a refused commit is sent again, and how often in a row before giving up until the next commit. */
const RETRY_MS = 1_000;
const RETRIES = 30;

/**
 * Bus commits, one call at a time, positions only moving forward. A commit only ever follows what
 * the warehouse has stored (an `after` row), so a failed one only means those records come again
 * — and are skipped as stored. It is still sent again (after a second, until it goes through, the
 * partition is lost, or the subscription closed): otherwise a quiet partition would show a lag
 * until new records arrive.
 */
export class BusCommits {
  readonly #committed = new Map<string, bigint>();
  readonly #waiting = new Map<string, CommitPosition>();
  /** Per partition, how often it was forgotten: a refused commit is not sent again for a partition lost since. */
  readonly #losses = new Map<string, number>();
  #running: Promise<void> | undefined;
  /** Stopping: a refused commit is not sent again (the next loader of the group commits past it). */
  #final = false;

  constructor(
    private readonly subscription: () => Subscription | undefined,
    private readonly log: Logger,
  ) {}

  /** Queues positions; returns once they (or later ones) were committed or refused. */
  commit(positions: readonly CommitPosition[]): Promise<void> {
    for (const position of positions) {
      const key = partitionKey(position.topic, position.partition);
      const known = this.#waiting.get(key)?.next ?? this.#committed.get(key) ?? -1n;
      if (position.next > known) this.#waiting.set(key, position);
    }
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** The loader stops: what is waiting is sent once more, and a refusal is not retried. */
  stopRetrying(): void {
    this.#final = true;
  }

  /** Forgets a partition (lost to another loader): whatever it commits next starts afresh. */
  forget(topic: string, partition: number): void {
    const key = partitionKey(topic, partition);
    this.#committed.delete(key);
    this.#waiting.delete(key);
    this.#losses.set(key, (this.#losses.get(key) ?? 0) + 1);
  }

  async #drain(): Promise<void> {
    for (let refused = 0; this.#waiting.size > 0;) {
      const batch = [...this.#waiting.entries()];
      this.#waiting.clear();
      const subscription = this.subscription();
      if (!subscription) return;
      // Counted as committed from now on, so a lower position queued meanwhile is not sent after it.
      for (const [key, position] of batch) this.#committed.set(key, position.next);
      const losses = new Map(batch.map(([key]) => [key, this.#losses.get(key) ?? 0]));
      try {
        await subscription.commit(batch.map(([, position]) => position));
        refused = 0;
      } catch (error) {
        if ((error instanceof BusError && error.code === 'closed') || this.#final || ++refused > RETRIES) return;
        this.log.debug({ err: error }, 'bus commit refused; sending it again shortly');
        for (const [key, position] of batch) {
          if ((this.#losses.get(key) ?? 0) !== losses.get(key)) continue;
          if (this.#committed.get(key) === position.next) this.#committed.delete(key);
          if (!this.#waiting.has(key)) this.#waiting.set(key, position);
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
  }
}
