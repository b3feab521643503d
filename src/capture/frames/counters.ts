/**
 * What capture counts, for the main job's status line and for tests: plain counters bumped on
 * the hot path, and a frames-per-second rate over the last few seconds.
 */
export interface CaptureCounters {
  /** Frames received (every frame, heartbeats included) and their characters. */
  frames: number;
  bytes: number;
  /** Frames or trades dropped because the venue sent them twice. */
  duplicates: number;
  /** Connections lost (closed, silent, dropped on request), not counting our own stop. */
  losses: number;
  /** Connection attempts that failed, and those refused with 429. */
  failedAttempts: number;
  refused429: number;
  errorFrames: number;
  /** REST re-seeds done, and those that failed (the ladder was written from the stream instead). */
  reseeds: number;
  reseedFailures: number;
  /** REST answers that were 429 (the client waited them out). */
  rest429: number;
  gaps: number;
  qualityRecords: number;
  /** `frames` and `losses` per stream (market, account, portfolio). */
  framesByStream: Record<string, number>;
  lossesByStream: Record<string, number>;
}

export function newCounters(): CaptureCounters {
  return {
    frames: 0,
    bytes: 0,
    duplicates: 0,
    losses: 0,
    failedAttempts: 0,
    refused429: 0,
    errorFrames: 0,
    reseeds: 0,
    reseedFailures: 0,
    rest429: 0,
    gaps: 0,
    qualityRecords: 0,
    framesByStream: {},
    lossesByStream: {},
  };
}

/** A connection of `stream` lost (closed, silent, dropped), our own stops excepted. */
export function countLoss(counters: CaptureCounters, stream: string): void {
  counters.losses += 1;
  counters.lossesByStream[stream] = (counters.lossesByStream[stream] ?? 0) + 1;
}

/** Frames per second over a sliding window, sampled from a growing counter. */
export class RateMeter {
  readonly #samples: Array<{ atMs: number; count: number }> = [];
  constructor(private readonly windowMs = 10_000) {}

  sample(atMs: number, count: number): number {
    this.#samples.push({ atMs, count });
    while (this.#samples.length > 2 && this.#samples[1]!.atMs <= atMs - this.windowMs) this.#samples.shift();
    const first = this.#samples[0]!;
    const span = atMs - first.atMs;
    return span > 0 ? ((count - first.count) * 1000) / span : 0;
  }
}
