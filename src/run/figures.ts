import { cursorLoopsRefused, venueAnswers } from '../api/index.ts';
import type { CaptureStats } from '../capture/index.ts';
import type { LoaderStats } from '../load/index.ts';

/**
 * The main job's figures: what the status line shows, `/metrics` exports and `pipeline_health`
 * keeps. Counters are running totals since the process started; gauges are current values.
 */
export interface PipelineFigures {
  /** Frames received, per stream (counter). */
  frames: Record<string, number>;
  /** Reconnections, per stream (counter). */
  reconnects: Record<string, number>;
  /** 429 answers earned, per component ("capture", "sync") (counter). */
  http429: Record<string, number>;
  /** Rows stored, per warehouse table (counter). */
  rowsLoaded: Record<string, number>;
  /** Records dead-lettered (counter). */
  deadLetters: number;
  /** Records on the bus not yet loaded, per topic (gauge). */
  lagRecords: Record<string, number>;
  /** Coverage gaps still open (gauge). */
  openGaps: number;
  /** Streams the deployment does not offer now (a price feed answering 404 or 501): asked again later, not a gap
   * (gauge). */
  unavailableStreams?: string[];
  /** Since when (wall-clock ms) each of them is not offered: the first refusal, not the first scrape (gauge). */
  unavailableSinceMs?: Record<string, number>;
  /** Paged reads refused because the venue handed a cursor out twice, per endpoint (counter). */
  cursorLoops: Record<string, number>;
  /** A Temporal worker's sync jobs: slices run and failed (counters), last success and last duration (gauges). */
  syncJobs?: Record<string, { runs: number; failures: number; lastSuccessMs: number; lastDurationMs: number }>;
  /** The venue's REST answers counted at the wire, per class (`429`, `5xx`), every component's (counter). */
  venueAnswers?: Record<string, number>;
  /** The venue does not answer at all: since when (wall-clock ms) and why (gauge). */
  venueUnreachable?: Trouble;
  /** The loaders cannot store what they hold (a table missing, the warehouse down): since when and why (gauge). */
  loaderFailing?: Trouble;
}

/** Something wrong right now: since when (wall-clock ms) and the last reason given. */
export interface Trouble {
  sinceMs: number;
  reason: string;
}

export function emptyFigures(): PipelineFigures {
  return {
    frames: {},
    reconnects: {},
    http429: {},
    rowsLoaded: {},
    deadLetters: 0,
    lagRecords: {},
    openGaps: 0,
    cursorLoops: {},
    venueAnswers: {},
  };
}

/** What a capture knows of the figures (the main job's, or a `tapehouse capture` process's). */
export function captureFigures(capture: CaptureStats): Pick<
  PipelineFigures,
  'frames' | 'reconnects' | 'openGaps' | 'unavailableStreams' | 'unavailableSinceMs'
> & {
  http429: Record<string, number>;
} {
  return {
    frames: capture.framesByStream,
    reconnects: capture.reconnectsByStream,
    http429: { capture: capture.refused429 + capture.rest429 },
    openGaps: capture.openGaps,
    unavailableStreams: capture.unavailableStreams,
    unavailableSinceMs: capture.unavailableSinceMs,
  };
}

/** What the loaders know of the figures. Dead letters are a figure of their own, not rows of a data table. */
export function loadFigures(
  loaders: LoaderStats,
): Pick<PipelineFigures, 'rowsLoaded' | 'deadLetters' | 'lagRecords' | 'loaderFailing'> {
  const rowsLoaded = Object.fromEntries(Object.entries(loaders.rows).filter(([table]) => table !== 'dead_letters'));
  return {
    rowsLoaded,
    deadLetters: loaders.deadLetters,
    lagRecords: loaders.lagByTopic,
    loaderFailing: loaders.failing,
  };
}

export const sum = (values: Record<string, number>): number => Object.values(values).reduce((a, b) => a + b, 0);

/** Increase of a counter map between two samples (a key new in `now` counts from zero). */
export function increase(before: Record<string, number>, now: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(now)) out[key] = Math.max(0, value - (before[key] ?? 0));
  return out;
}

/**
 * What this process's venue client counted itself, whichever component read: cursor loops per
 * endpoint and REST answers per class (429, 5xx). Every process that reads the venue feeds them.
 */
export function wireFigures(): Pick<PipelineFigures, 'cursorLoops' | 'venueAnswers'> {
  return { cursorLoops: cursorLoopsRefused(), venueAnswers: venueAnswers() };
}
