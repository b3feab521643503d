import type { Clock } from '../../util/clock.ts';
import type { Logger } from '../../util/log.ts';
import type { CoverageStore } from './store.ts';
import type { GapRecovery } from './gaps.ts';
import { StreamMark } from './stream-mark.ts';

export interface CoverageMarksOptions {
  store: CoverageStore;
  clock: Clock;
  /** Save every this often. */
  everyMs: number;
  /** The shard's suffix of the store's keys (`:i/n`), '' when capture is not sharded. */
  keySuffix: string;
  /** Up to when everything handed over is out of capture's hands (durable on the bus, nothing held for batching). */
  handedOverThroughUs(): bigint;
  log?: Logger;
}

/**
 * The coverage marks of a capture (README "Gaps", "Coverage marks"): one StreamMark per stream,
 * saved every `everyMs` — and at a stop — as the earlier of "covered through" (the stream's own
 * measure) and "handed over through" (nothing captured before it is still in capture's hands).
 * The next run's `capture_not_running` gap starts there.
 */
export class CoverageMarks {
  readonly #marks: Array<{ mark: StreamMark; coveredThroughUs: () => bigint | null }> = [];
  readonly #stopping = new AbortController();
  #loop: Promise<void> | null = null;

  constructor(private readonly o: CoverageMarksOptions) {}

  /** The mark of `stream`; `coveredThroughUs` says up to when the stream is known covered (null: not now). */
  add(stream: string, recovery: GapRecovery, coveredThroughUs: () => bigint | null): StreamMark {
    const mark = new StreamMark(this.o.store, stream, recovery, this.o.log, `${stream}${this.o.keySuffix}`);
    this.#marks.push({ mark, coveredThroughUs });
    return mark;
  }

  /** Reads the previous run's marks. */
  async load(): Promise<void> {
    await Promise.all(this.#marks.map(({ mark }) => mark.load()));
  }

  /** Saves on the schedule until `stop`. */
  start(): void {
    this.#loop ??= (async () => {
      while (!this.#stopping.signal.aborted) {
        try {
          await this.o.clock.sleep(this.o.everyMs, this.#stopping.signal);
        } catch {
          return;
        }
        await this.save();
      }
    })();
  }

  /** Ends the schedule (a save under way completes). */
  async stop(): Promise<void> {
    this.#stopping.abort(new Error('capture stopping'));
    await this.#loop;
  }

  async save(): Promise<void> {
    const handedOver = this.o.handedOverThroughUs();
    await Promise.all(
      this.#marks.map(({ mark, coveredThroughUs }) => {
        const covered = coveredThroughUs();
        return mark.save(covered === null ? null : covered < handedOver ? covered : handedOver);
      }),
    );
  }
}
