import type { CommitPosition, Subscription } from '../bus/bus.ts';
import type { Logger } from '../util/log.ts';
import { partitionKey } from './state/loader-offsets.ts';

/**
 * Bus commits, one call at a time, positions only moving forward. A commit only ever follows what
 * the warehouse has stored (an `after` row), so a failed one (a rebalance moved the partition, the
 * subscription stopped) only means those records come again — and are skipped as stored.
 */
export class BusCommits {
  readonly #committed = new Map<string, bigint>();
  readonly #waiting = new Map<string, CommitPosition>();
  #running: Promise<void> | undefined;

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

  /** Forgets a partition (lost to another loader): whatever it commits next starts afresh. */
  forget(topic: string, partition: number): void {
    const key = partitionKey(topic, partition);
    this.#committed.delete(key);
    this.#waiting.delete(key);
  }

  async #drain(): Promise<void> {
    while (this.#waiting.size > 0) {
      const batch = [...this.#waiting.entries()];
      this.#waiting.clear();
      const subscription = this.subscription();
      if (!subscription) return;
      // Counted as committed from now on, so a lower position queued meanwhile is not sent after it.
      for (const [key, position] of batch) this.#committed.set(key, position.next);
      try {
        await subscription.commit(batch.map(([, position]) => position));
      } catch (error) {
        this.log.debug({ err: error }, 'bus commit refused; the records will be delivered again and skipped as stored');
      }
    }
  }
}
