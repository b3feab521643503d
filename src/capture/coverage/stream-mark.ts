import type { BusRecord } from '../../bus/record.ts';
import type { Logger } from '../../util/log.ts';
import { endOf, type FrameTime } from './connection-coverage.ts';
import type { CoverageStore } from './store.ts';
import { gapRecord, WHOLE_STREAM, type GapRecovery } from './gaps.ts';
import type { Origin } from '../frames/index.ts';

/**
 * A stream's mark in the coverage store: read at start (the previous run's last covered instant),
 * turned into a `capture_not_running` gap once this run covers the stream, then moved forward as
 * coverage and publishing go on. It never moves before the restart gap is handed over, so a run
 * that dies early leaves the old mark for the next one.
 */
export class StreamMark {
  #previous: bigint | null = null;
  #resumed = false;
  #saved: bigint | null = null;

  constructor(
    private readonly store: CoverageStore,
    readonly stream: string,
    private readonly recovery: GapRecovery,
    private readonly log?: Logger,
    /** Key in the store: the stream, and the shard when capture is sharded. */
    private readonly key = stream,
  ) {}

  async load(): Promise<void> {
    this.#previous = await this.store.load(this.key);
    this.#saved = this.#previous;
  }

  /** The stream is covered for the first time in this run: the gap since the previous run, if there was one. */
  resumed(stamp: FrameTime, origin: Origin): BusRecord | null {
    if (this.#resumed) return null;
    this.#resumed = true;
    const previous = this.#previous;
    if (previous === null) return null;
    const detail = 'capture was not running (or had not published) between the previous run and this one';
    return gapRecord(
      {
        stream: this.stream,
        reason: 'capture_not_running',
        detail,
        scope: WHOLE_STREAM,
        startUs: previous,
        endUs: endOf(stamp),
        recovery: this.recovery,
      },
      origin,
    );
  }

  /** Moves the mark to `throughUs` (null: not known covered now) when that is later than the last one saved. */
  async save(throughUs: bigint | null): Promise<void> {
    if (!this.#resumed || throughUs === null || (this.#saved !== null && throughUs <= this.#saved)) return;
    this.#saved = throughUs;
    try {
      await this.store.save(this.key, throughUs);
    } catch (err) {
      this.log?.warn({ err, stream: this.stream }, 'could not save the coverage mark');
    }
  }
}
