import type { Bus, TopicPartition } from '../bus/bus.ts';
import { nowMicros } from '../bus/record.ts';
import type { Logger } from '../util/log.ts';
import { recordCovered, recordDrained, type EpochScope } from './state/bus-coverage.ts';
import { partitionKey } from './state/loader-offsets.ts';

export interface CoverageOptions {
  /** How often the group's lag is looked at. */
  intervalMs: number;
  /** A partition with nothing new is recorded covered again after this long. */
  refreshMs: number;
}

const DEFAULT_COVERAGE: CoverageOptions = { intervalMs: 5_000, refreshMs: 60_000 };

/**
 * Embedded bus only: records in `bus_coverage` when a partition has nothing left unstored (the
 * group's lag is 0: everything published before then is committed, so stored). Should the process
 * be killed, the gap written at the next start begins there rather than at the last stored
 * record — a quiet partition does not look like it lost an hour. Partitions with new records are
 * recorded at each look; quiet ones once a minute.
 */
export class CoverageTracker {
  readonly #last = new Map<string, { end: bigint; atUs: bigint }>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(
    private readonly scope: EpochScope,
    private readonly bus: Bus,
    private readonly topics: readonly string[],
    private readonly log: Logger,
    private readonly options: CoverageOptions = DEFAULT_COVERAGE,
  ) {}

  start(): void {
    this.#timer = setInterval(() => {
      this.#running = this.#running.then(() => this.#look(false)).catch((error: unknown) => this.log.debug({ err: error }, 'recording bus coverage failed; trying again later'));
    }, this.options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** At a clean stop: `drained` when nothing is left unstored, else the partitions that are covered. */
  async finish(): Promise<void> {
    const atUs = nowMicros();
    const lags = await this.bus.lag(this.scope.group, this.topics);
    if (lags.every((entry) => entry.lag === 0n)) await recordDrained(this.scope, atUs);
    else await this.#look(true);
  }

  async #look(all: boolean): Promise<void> {
    const atUs = nowMicros();
    const covered: TopicPartition[] = [];
    for (const { topic, partition, lag, end } of await this.bus.lag(this.scope.group, this.topics)) {
      if (lag !== 0n) continue;
      const key = partitionKey(topic, partition);
      const last = this.#last.get(key);
      if (!all && last && last.end === end && atUs - last.atUs < BigInt(this.options.refreshMs) * 1000n) continue;
      covered.push({ topic, partition });
      this.#last.set(key, { end, atUs });
    }
    await recordCovered(this.scope, covered, atUs);
  }
}
