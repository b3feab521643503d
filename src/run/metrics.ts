import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ANSWER_CLASSES, ENDPOINTS, endpointName } from '../api/index.ts';
import { JOB_NAMES } from '../sync/jobs.ts';
import type { StoredBatch } from '../load/index.ts';
import type { QueryTimer } from '../warehouse/endpoint/index.ts';
import { emptyFigures, increase, type PipelineFigures, type Trouble } from './figures.ts';

/**
 * The parts of the pipeline a process runs. Its `/metrics` carries their series and no others, so
 * that a load process does not report `tapehouse_open_gaps 0` for a capture it does not run.
 */
export type MetricsPart = 'capture' | 'sync' | 'load' | 'endpoint' | 'jobs';
export const ALL_PARTS: readonly MetricsPart[] = ['capture', 'sync', 'load', 'endpoint'];

// Freshness spans a live stream (well under a second) to a backlog after an outage (hours).
const FRESHNESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];
const INSERT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const QUERY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * `/metrics` in the Prometheus text format: the same figures as the status line, plus histograms
 * of freshness, insert time and endpoint query time. Counters are fed the increase since the last
 * update, so they stay monotonic as Prometheus expects. Node's own metrics keep prom-client's
 * names (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`, …), as stock dashboards expect.
 */
export class PipelineMetrics {
  readonly registry = new Registry();
  #last: PipelineFigures = emptyFigures();
  readonly #frames?: Counter<string>;
  readonly #reconnects?: Counter<string>;
  readonly #http429?: Counter<string>;
  readonly #rows?: Counter<string>;
  readonly #deadLetters?: Counter<string>;
  readonly #lag?: Gauge<string>;
  readonly #openGaps?: Gauge<string>;
  readonly #unavailable?: Gauge<string>;
  /** Since when (Unix seconds) this process saw each stream not offered. */
  readonly #unavailableSince = new Map<string, number>();
  readonly #cursorLoops?: Counter<string>;
  readonly #venueAnswers?: Counter<string>;
  readonly #jobRuns?: Counter<string>;
  readonly #jobFailures?: Counter<string>;
  readonly #jobLastSuccess?: Gauge<string>;
  readonly #jobDuration?: Gauge<string>;
  // Since when (Unix seconds) while it lasts, with the last reason as a label; `tapehouse status` reads them back.
  readonly #venueUnreachable?: Gauge<string>;
  readonly #loaderFailing?: Gauge<string>;
  readonly #freshness?: Histogram<string>;
  readonly #insert?: Histogram<string>;
  readonly #query?: Histogram<string>;

  constructor(parts: readonly MetricsPart[] = ALL_PARTS) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    const has = (part: MetricsPart): boolean => parts.includes(part);
    if (has('capture')) {
      this.#frames = new Counter({
        name: 'tapehouse_frames_total',
        help: 'Stream frames received, heartbeats included',
        labelNames: ['stream'],
        registers,
      });
      this.#reconnects = new Counter({
        name: 'tapehouse_reconnects_total',
        help: 'Stream connections lost (our own stops excepted)',
        labelNames: ['stream'],
        registers,
      });
      this.#openGaps = new Gauge({
        name: 'tapehouse_open_gaps',
        help: 'Coverage gaps still open (scopes not covered now)',
        registers,
      });
      this.#unavailable = new Gauge({
        name: 'tapehouse_stream_unavailable_since_seconds',
        help: 'Since when (Unix time) the deployment does not offer a stream (asked again later, not a gap); 0 once it does',
        labelNames: ['stream'],
        registers,
      });
    }
    if (has('capture') || has('sync')) {
      this.#http429 = new Counter({
        name: 'tapehouse_http_429_total',
        help: '429 answers earned from the venue',
        labelNames: ['component'],
        registers,
      });
      this.#cursorLoops = new Counter({
        name: 'tapehouse_cursor_loops_total',
        help: 'Paged reads stopped because the venue handed a cursor out twice',
        labelNames: ['endpoint'],
        registers,
      });
      this.#venueAnswers = new Counter({
        name: 'tapehouse_venue_answers_total',
        help: "The venue's REST answers by class (429, 5xx), counted at the wire: every component's, catalogue reads included",
        labelNames: ['class'],
        registers,
      });
      this.#venueUnreachable = new Gauge({
        name: 'tapehouse_venue_unreachable_since_seconds',
        help: 'Since when (Unix time) the venue does not answer at all; 0 while it answers',
        labelNames: ['reason'],
        registers,
      });
    }
    if (has('load')) {
      this.#rows = new Counter({
        name: 'tapehouse_rows_loaded_total',
        help: 'Rows stored in the warehouse',
        labelNames: ['table'],
        registers,
      });
      this.#deadLetters = new Counter({
        name: 'tapehouse_dead_letters_total',
        help: 'Records dead-lettered',
        registers,
      });
      this.#lag = new Gauge({
        name: 'tapehouse_bus_lag_records',
        help: 'Records on the bus not yet loaded',
        labelNames: ['topic'],
        registers,
      });
      this.#loaderFailing = new Gauge({
        name: 'tapehouse_loader_failing_since_seconds',
        help: 'Since when (Unix time) the loaders cannot store what they hold; 0 while they can',
        labelNames: ['reason'],
        registers,
      });
      this.#freshness = new Histogram({
        name: 'tapehouse_freshness_seconds',
        help: 'Per record: from its receipt (a stream frame, a REST page) to its rows stored in the warehouse',
        labelNames: ['topic'],
        buckets: FRESHNESS_BUCKETS,
        registers,
      });
      this.#insert = new Histogram({
        name: 'tapehouse_insert_duration_seconds',
        help: 'Per loader batch: storing all of its tables in the warehouse, retries included',
        labelNames: ['topic'],
        buckets: INSERT_BUCKETS,
        registers,
      });
    }
    if (has('jobs')) {
      this.#jobRuns = new Counter({
        name: 'tapehouse_sync_job_runs_total',
        help: 'Sync job slices this worker ran (Temporal activities), per job',
        labelNames: ['job'],
        registers,
      });
      this.#jobFailures = new Counter({
        name: 'tapehouse_sync_job_failures_total',
        help: 'Sync job slices that failed on this worker (Temporal retries them), per job',
        labelNames: ['job'],
        registers,
      });
      this.#jobLastSuccess = new Gauge({
        name: 'tapehouse_sync_job_last_success_seconds',
        help: 'When (Unix time) a slice of the job last succeeded on this worker; 0 before the first',
        labelNames: ['job'],
        registers,
      });
      this.#jobDuration = new Gauge({
        name: 'tapehouse_sync_job_last_duration_seconds',
        help: 'How long the last slice of the job took on this worker, whatever its outcome',
        labelNames: ['job'],
        registers,
      });
    }
    this.#bornAtZero(parts);
    if (has('endpoint')) {
      this.#query = new Histogram({
        name: 'tapehouse_endpoint_query_duration_seconds',
        help: 'Queries of the read-only endpoint, from the statement handed to chDB to its result',
        labelNames: ['outcome'],
        buckets: QUERY_BUCKETS,
        registers,
      });
    }
  }

  /**
   * Every labelled counter starts with a 0 sample for each label value it is known to take, so
   * that an alert's `increase()` sees the first 429, reconnect or cursor loop after a start (a
   * series born at 1 has no increase to show).
   */
  #bornAtZero(parts: readonly MetricsPart[]): void {
    const streams = parts.includes('capture') ? ['market', 'account', 'portfolio', 'prices', 'oracle_pro'] : [];
    for (const stream of streams) {
      this.#frames?.labels({ stream }).inc(0);
      this.#reconnects?.labels({ stream }).inc(0);
    }
    const components = [...(parts.includes('capture') ? ['capture'] : []), ...(parts.includes('sync') ? ['sync'] : [])];
    // The main job also counts the account limiter's refusals apart.
    if (parts.includes('capture') && parts.includes('sync')) components.push('account');
    for (const component of components) this.#http429?.labels({ component }).inc(0);
    for (const endpoint of Object.values(ENDPOINTS))
      this.#cursorLoops?.labels({ endpoint: endpointName(endpoint) }).inc(0);
    for (const job of parts.includes('jobs') ? JOB_NAMES : []) {
      this.#jobRuns?.labels({ job }).inc(0);
      this.#jobFailures?.labels({ job }).inc(0);
      this.#jobLastSuccess?.labels({ job }).set(0);
    }
    for (const answerClass of ANSWER_CLASSES) this.#venueAnswers?.labels({ class: answerClass }).inc(0);
  }

  /** Takes the figures a process has (a capture has no rows, a loader no frames). */
  update(now: Partial<PipelineFigures>): void {
    const before = this.#last;
    const inc = (
      counter: Counter<string> | undefined,
      label: string,
      previous: Record<string, number>,
      values: Record<string, number> | undefined,
    ) => {
      if (!counter || !values) return;
      for (const [key, value] of Object.entries(increase(previous, values)))
        if (value > 0) counter.inc({ [label]: key }, value);
    };
    inc(this.#frames, 'stream', before.frames, now.frames);
    inc(this.#reconnects, 'stream', before.reconnects, now.reconnects);
    inc(this.#http429, 'component', before.http429, now.http429);
    inc(this.#rows, 'table', before.rowsLoaded, now.rowsLoaded);
    inc(this.#cursorLoops, 'endpoint', before.cursorLoops, now.cursorLoops);
    inc(this.#venueAnswers, 'class', before.venueAnswers ?? {}, now.venueAnswers);
    if (now.syncJobs) {
      const runs = (jobs: PipelineFigures['syncJobs']) =>
        Object.fromEntries(Object.entries(jobs ?? {}).map(([job, f]) => [job, f.runs]));
      const failures = (jobs: PipelineFigures['syncJobs']) =>
        Object.fromEntries(Object.entries(jobs ?? {}).map(([job, f]) => [job, f.failures]));
      inc(this.#jobRuns, 'job', runs(before.syncJobs), runs(now.syncJobs));
      inc(this.#jobFailures, 'job', failures(before.syncJobs), failures(now.syncJobs));
      for (const [job, f] of Object.entries(now.syncJobs)) {
        this.#jobLastSuccess?.set({ job }, Math.floor(f.lastSuccessMs / 1000));
        if (f.runs > 0) this.#jobDuration?.set({ job }, f.lastDurationMs / 1000);
      }
    }
    if (this.#deadLetters && now.deadLetters !== undefined && now.deadLetters > before.deadLetters)
      this.#deadLetters.inc(now.deadLetters - before.deadLetters);
    if (this.#lag && now.lagRecords)
      for (const [topic, lag] of Object.entries(now.lagRecords)) this.#lag.set({ topic }, lag);
    if (this.#openGaps && now.openGaps !== undefined) this.#openGaps.set(now.openGaps);
    if (this.#unavailable && now.unavailableStreams) {
      for (const [stream] of this.#unavailableSince) {
        if (now.unavailableStreams.includes(stream)) continue;
        this.#unavailableSince.delete(stream);
        this.#unavailable.set({ stream }, 0);
      }
      for (const stream of now.unavailableStreams) {
        // From the venue's first refusal when capture says when it was; else from this first look.
        const firstMs = now.unavailableSinceMs?.[stream];
        if (firstMs !== undefined) this.#unavailableSince.set(stream, Math.floor(firstMs / 1000));
        else if (!this.#unavailableSince.has(stream)) this.#unavailableSince.set(stream, Math.floor(Date.now() / 1000));
        this.#unavailable.set({ stream }, this.#unavailableSince.get(stream)!);
      }
    }
    setTrouble(this.#venueUnreachable, now.venueUnreachable);
    setTrouble(this.#loaderFailing, now.loaderFailing);
    this.#last = { ...before, ...structuredClone(now) };
  }

  /** The loaders' hook: each stored batch's records' freshness and the batch's insert time. */
  readonly batchStored = (stored: StoredBatch): void => {
    if (!this.#freshness || !this.#insert) return;
    const fresh = this.#freshness.labels({ topic: stored.topic });
    for (const receivedAtUs of stored.receivedAtUs)
      fresh.observe(Math.max(0, Number(stored.storedAtUs - receivedAtUs)) / 1e6);
    this.#insert.observe({ topic: stored.topic }, stored.insertMs / 1000);
  };

  /** The endpoint's hook: one observation per query run. */
  readonly queryTimer: QueryTimer = (seconds, outcome) => {
    this.#query?.observe({ outcome }, seconds);
  };

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** While the trouble lasts, one sample: since when (Unix seconds), its reason as a label; 0 without labels once over.
 */
function setTrouble(gauge: Gauge<string> | undefined, trouble: Trouble | undefined): void {
  if (!gauge) return;
  gauge.reset();
  if (trouble) gauge.set({ reason: trouble.reason.slice(0, 300) }, Math.floor(trouble.sinceMs / 1000));
  else gauge.set(0);
}
