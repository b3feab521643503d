import type { BusRecord } from '../../bus/record.ts';
import type { AttemptFailure, CoverageLoss } from '../../streams/types.ts';
import { isoToMicros, type Origin, type CaptureCounters } from '../frames/index.ts';
import { gapRecord, type GapReason, type GapRecovery, type GapScope } from './gaps.ts';

/** An instant given by the venue's time (ms) and our receive time (µs), read conservatively. */
export interface FrameTime {
  venueTime: string | null;
  receivedAtUs: bigint;
}

/** The last instant a frame proves covered: the earlier of its venue time and our receive time. */
export function startOf(stamp: FrameTime): bigint {
  const venue = isoToMicros(stamp.venueTime);
  return venue !== null && venue < stamp.receivedAtUs ? venue : stamp.receivedAtUs;
}

/** The first instant a frame proves covered again: the later of the end of its venue millisecond and our receive time.
 */
export function endOf(stamp: FrameTime): bigint {
  const venue = isoToMicros(stamp.venueTime);
  if (venue === null) return stamp.receivedAtUs;
  const end = /\.\d{4,}/.test(stamp.venueTime ?? '') ? venue : venue + 999n;
  return end > stamp.receivedAtUs ? end : stamp.receivedAtUs;
}

interface OpenLoss {
  reason: GapReason;
  details: string[];
  startUs: bigint;
  scope: GapScope;
  refused: number;
}

/**
 * The coverage of one logical connection (kept across its reconnects): the venue's frame numbers
 * (duplicates dropped, jumps noticed), the last frame received, and the loss open since coverage
 * went away until it is proven again.
 */
export class ConnectionCoverage {
  #lastSeq: number | null = null;
  #last: (FrameTime & { origin: Origin }) | null = null;
  #loss: OpenLoss | null = null;
  /** Coverage was established at least once in this run. */
  everCovered = false;
  duplicates = 0;

  constructor(
    readonly stream: string,
    private readonly recovery: GapRecovery,
  ) {}

  /** A new connection: the venue numbers its frames afresh. */
  connected(): void {
    this.#lastSeq = null;
  }

  /**
   * Checks a frame's number: `'duplicate'` for a number already seen on this connection (the
   * venue sent the frame twice), else how many numbers were skipped before it (frames lost).
   */
  admit(seq: number | null): number | 'duplicate' {
    if (seq === null) return 0;
    const last = this.#lastSeq;
    if (last !== null && seq <= last) {
      this.duplicates += 1;
      return 'duplicate';
    }
    this.#lastSeq = seq;
    return last === null ? 0 : seq - last - 1;
  }

  /** Remembers the frame as the last one received (after `admit`). */
  received(stamp: FrameTime, origin: Origin): void {
    this.#last = { venueTime: stamp.venueTime, receivedAtUs: stamp.receivedAtUs, origin };
  }

  get lastFrame(): (FrameTime & { origin: Origin }) | null {
    return this.#last;
  }

  get lost(): boolean {
    return this.#loss !== null;
  }

  /** When coverage was last proven (the last frame), or when the open loss began. */
  coveredThroughUs(): bigint | null {
    if (this.#loss) return this.#loss.startUs;
    return this.#last ? startOf(this.#last) : null;
  }

  /** Coverage went away; nothing is recorded until it comes back. A second loss keeps the first start. */
  lose(reason: GapReason, detail: string, scope: GapScope, since: FrameTime | null = this.#last): void {
    if (!this.everCovered) return;
    if (this.#loss) {
      this.#loss.details.push(detail);
      return;
    }
    const start = since ? startOf(since) : null;
    if (start === null) return;
    this.#loss = { reason, details: [detail], startUs: start, scope, refused: 0 };
  }

  refused(): void {
    if (this.#loss) this.#loss.refused += 1;
  }

  /** Coverage proven again by `stamp` (an acknowledgement): the gap record, if there was a loss. */
  resumed(stamp: FrameTime, origin: Origin): BusRecord | null {
    this.everCovered = true;
    const loss = this.#loss;
    this.#loss = null;
    if (!loss) return null;
    return gapRecord(
      {
        stream: this.stream,
        reason: loss.reason,
        detail: loss.details.join('; '),
        scope: loss.scope,
        startUs: loss.startUs,
        endUs: endOf(stamp),
        recovery: this.recovery,
        refusedAttempts: loss.refused,
      },
      origin,
    );
  }

  /**
   * A loss on a connection that stayed open, known whole when noticed: from the last frame before
   * `stamp` to `stamp` (frame numbers jumped, a sequence reset, a dropped subscription proven back).
   */
  gapUntil(
    reason: GapReason,
    detail: string,
    scope: GapScope,
    since: FrameTime | null,
    stamp: FrameTime,
    origin: Origin,
    framesMissed: number | null = null,
  ): BusRecord | null {
    if (!this.everCovered || since === null) return null;
    return gapRecord(
      {
        stream: this.stream,
        reason,
        detail,
        scope,
        startUs: startOf(since),
        endUs: endOf(stamp),
        recovery: this.recovery,
        framesMissed,
      },
      origin,
    );
  }
}

/** The gap reason of a lost connection (our own stop is never a gap). */
export const LOSS_REASONS: Record<Exclude<CoverageLoss['reason'], 'stopped'>, GapReason> = {
  closed: 'disconnected',
  silent: 'silence',
  reconnect_requested: 'reconnect_requested',
};

/** A failed connection attempt: counted, and noted on the open loss (a refused reconnect lengthens the gap). */
export function attemptFailed(failure: AttemptFailure, counters: CaptureCounters, coverage: ConnectionCoverage): void {
  counters.failedAttempts += 1;
  if (failure.status === 429) counters.refused429 += 1;
  coverage.refused();
}
