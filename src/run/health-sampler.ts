import type { RateLimiter } from '../api/index.ts';
import type { Reachability } from '../api/reachability.ts';
import type { CaptureHandle } from '../capture/start-capture.ts';
import type { Loaders } from '../load/index.ts';
import type { Logger } from '../util/log.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';
import { emptyFigures, type PipelineFigures } from './figures.ts';
import { PipelineMetrics } from './metrics.ts';
import { healthRows } from './pipeline-health.ts';
import { formatStatus } from './status-line.ts';

export interface HealthSources {
  /** Capture once it has started (it waits for the venue's catalogue first). */
  capture: () => CaptureHandle | undefined;
  /** Whether the venue answers at all. */
  reachability?: Reachability;
  loaders: Loaders;
  /** The account's limiter, shared by capture's re-seeds and the sync jobs. */
  limiter: RateLimiter;
  warehouse: Warehouse;
  onStatus?(line: string): void;
  log: Logger;
  /** How often figures are gathered (status line, /metrics) and stored (pipeline_health). */
  sampleEveryMs?: number;
  storeEveryMs?: number;
}

/** Gathers the job's figures on a timer and hands them to the status line, /metrics and the warehouse. */
export class HealthSampler {
  readonly metrics = new PipelineMetrics();
  #timer: NodeJS.Timeout | null = null;
  #previous = emptyFigures();
  #previousAt = Date.now();
  #stored = emptyFigures();
  #storedAt = Date.now();
  #busy = false;

  constructor(private readonly sources: HealthSources) {}

  start(): void {
    this.#timer = setInterval(() => void this.sample(), this.sources.sampleEveryMs ?? 1_000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.sample(true);
  }

  /** The figures as of now. */
  async figures(): Promise<PipelineFigures> {
    const capture = this.sources.capture()?.stats() ?? { frames: 0, reconnects: 0, refused429: 0, rest429: 0, openGaps: 0 };
    const loaders = await this.sources.loaders.stats();
    const venue = this.sources.reachability?.state();
    // Dead letters are a figure of their own, not rows of a data table.
    const rowsByTable = Object.fromEntries(Object.entries(loaders.rows).filter(([table]) => table !== 'dead_letters'));
    return {
      frames: { market: capture.frames },
      reconnects: { market: capture.reconnects },
      http429: { capture: capture.refused429 + capture.rest429, account: this.sources.limiter.stats().refused },
      rowsLoaded: rowsByTable,
      deadLetters: loaders.deadLetters,
      lagRecords: loaders.lagByTopic,
      openGaps: capture.openGaps,
      venueUnreachable: venue && !venue.reachable ? { sinceMs: venue.unreachableSinceMs!, reason: venue.reason ?? '' } : undefined,
      loaderFailing: loaders.failing,
    };
  }

  async sample(store = false): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const now = await this.figures();
      const at = Date.now();
      this.metrics.update(now);
      this.sources.onStatus?.(formatStatus(this.#previous, now, at - this.#previousAt));
      this.#previous = now;
      this.#previousAt = at;
      if (store || at - this.#storedAt >= (this.sources.storeEveryMs ?? 10_000)) {
        await this.sources.warehouse.insertRows('pipeline_health', healthRows(this.#stored, now, at, at - this.#storedAt));
        this.#stored = now;
        this.#storedAt = at;
      }
    } catch (err) {
      this.sources.log.warn({ err }, 'pipeline figures not sampled');
    } finally {
      this.#busy = false;
    }
  }
}
