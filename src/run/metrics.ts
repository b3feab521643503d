import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { increase, type PipelineFigures, type Trouble } from './figures.ts';

/**
 * `/metrics` in the Prometheus text format: the same figures as the status line. Counters are fed
 * the increase since the last update, so they stay monotonic as Prometheus expects.
 */
export class PipelineMetrics {
  readonly registry = new Registry();
  #last: PipelineFigures | null = null;
  readonly #frames = new Counter({ name: 'tapehouse_frames_total', help: 'Stream frames received', labelNames: ['stream'], registers: [this.registry] });
  readonly #reconnects = new Counter({ name: 'tapehouse_reconnects_total', help: 'Stream reconnections', labelNames: ['stream'], registers: [this.registry] });
  readonly #http429 = new Counter({ name: 'tapehouse_http_429_total', help: '429 answers earned', labelNames: ['component'], registers: [this.registry] });
  readonly #rows = new Counter({ name: 'tapehouse_rows_loaded_total', help: 'Rows stored in the warehouse', labelNames: ['table'], registers: [this.registry] });
  readonly #deadLetters = new Counter({ name: 'tapehouse_dead_letters_total', help: 'Records dead-lettered', registers: [this.registry] });
  readonly #lag = new Gauge({ name: 'tapehouse_bus_lag_records', help: 'Records on the bus not yet loaded', labelNames: ['topic'], registers: [this.registry] });
  readonly #openGaps = new Gauge({ name: 'tapehouse_open_gaps', help: 'Coverage gaps still open', registers: [this.registry] });
  // 1 while it lasts, with since (Unix seconds) and the last reason as labels; `tapehouse status` reads them back.
  readonly #venueUnreachable = new Gauge({ name: 'tapehouse_venue_unreachable', help: 'The venue does not answer at all (1 while so)', labelNames: ['since', 'reason'], registers: [this.registry] });
  readonly #loaderFailing = new Gauge({ name: 'tapehouse_loader_failing', help: 'The loaders cannot store what they hold (1 while so)', labelNames: ['since', 'reason'], registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tapehouse_process_' });
  }

  update(now: PipelineFigures): void {
    const before = this.#last ?? { ...now, frames: {}, reconnects: {}, http429: {}, rowsLoaded: {}, deadLetters: 0 };
    const inc = (counter: Counter<string>, label: string, values: Record<string, number>) => {
      for (const [key, value] of Object.entries(values)) if (value > 0) counter.inc({ [label]: key }, value);
    };
    inc(this.#frames, 'stream', increase(before.frames, now.frames));
    inc(this.#reconnects, 'stream', increase(before.reconnects, now.reconnects));
    inc(this.#http429, 'component', increase(before.http429, now.http429));
    inc(this.#rows, 'table', increase(before.rowsLoaded, now.rowsLoaded));
    if (now.deadLetters > before.deadLetters) this.#deadLetters.inc(now.deadLetters - before.deadLetters);
    for (const [topic, lag] of Object.entries(now.lagRecords)) this.#lag.set({ topic }, lag);
    this.#openGaps.set(now.openGaps);
    setTrouble(this.#venueUnreachable, now.venueUnreachable);
    setTrouble(this.#loaderFailing, now.loaderFailing);
    this.#last = structuredClone(now);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** One sample while the trouble lasts (its labels say since when and why), 0 without labels once over. */
function setTrouble(gauge: Gauge<string>, trouble: Trouble | undefined): void {
  gauge.reset();
  if (trouble) gauge.set({ since: String(Math.floor(trouble.sinceMs / 1000)), reason: trouble.reason.slice(0, 300) }, 1);
  else gauge.set(0);
}
