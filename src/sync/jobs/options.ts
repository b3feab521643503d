/** A past window for a backfill run, in ms since the epoch (inclusive bounds). */
export interface TimeWindow {
  fromMs: number;
  toMs: number;
}

export interface JobOptions {
  /** Backfill: read the items of this window instead of what is new since the last run. */
  window?: TimeWindow;
}
