import type { RateLimiter } from '../api/index.ts';
import type { Reachability } from '../api/reachability.ts';
import type { CaptureHandle } from '../capture/index.ts';
import type { Loaders } from '../load/index.ts';
import type { Logger } from '../util/log.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';
import { captureFigures, emptyFigures, loadFigures, wireFigures, type PipelineFigures } from './figures.ts';
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
  /** Where the figures go for /metrics (made earlier when the loaders feed it too). */
  metrics?: PipelineMetrics;
  /** How often figures are gathered (status line, /metrics) and stored (pipeline_health). */
  sampleEveryMs?: number;
  storeEveryMs?: number;
}

/** Gathers the job's figures on a timer and hands them to the status line, /metrics and the warehouse. */
export class HealthSampler {
  readonly metrics: PipelineMetrics;
  #timer: NodeJS.Timeout | null = null;
  #previous = emptyFigures();
  #previousAt = Date.now();
  #stored = emptyFigures();
  #storedAt = Date.now();
  #busy = false;

  constructor(private readonly sources: HealthSources) {
    this.metrics = sources.metrics ?? new PipelineMetrics();
  }

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
    const started = this.sources.capture();
    const capture = started
      ? captureFigures(started.stats())
      : { frames: {}, reconnects: {}, http429: {}, openGaps: 0 };
    const loaders = loadFigures(await this.sources.loaders.stats());
    const venue = this.sources.reachability?.state();
    return {
      ...capture,
      ...loaders,
      http429: { ...capture.http429, account: this.sources.limiter.stats().refused },
      ...wireFigures(),
      venueUnreachable:
        venue && !venue.reachable ? { sinceMs: venue.unreachableSinceMs!, reason: venue.reason ?? '' } : undefined,
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
        await this.sources.warehouse.insertRows(
          'pipeline_health',
          healthRows(this.#stored, now, at, at - this.#storedAt),
        );
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
