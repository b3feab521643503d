import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport, venueAnswers } from '../src/api/index.ts';
import { wireFigures } from '../src/run/figures.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { startLoaders } from '../src/load/index.ts';
import { PipelineMetrics } from '../src/run/metrics.ts';
import { serveMetrics } from '../src/run/metrics-server.ts';
import { metricsUrlStatus, parsePrometheus } from '../src/run/status-report.ts';
import { createLogger } from '../src/util/log.ts';
import { serveEmbeddedEndpoint } from '../src/warehouse/endpoint/embedded-endpoint.ts';
import { MARKET_KINDS, RecordGenerator } from './load-fixtures.ts';
import { migratedWarehouse, type TestWarehouse } from './warehouse-fixtures.ts';
import { nowMicros } from '../src/util/clock.ts';

const log = createLogger('metrics.test', 'silent');

/** The value of one sample (name and labels as written), or undefined when absent. */
async function sample(
  metrics: PipelineMetrics,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const found = parsePrometheus(await metrics.text()).find(
    (s) =>
      s.name === name &&
      Object.entries(labels).every(([key, value]) => s.labels[key] === value) &&
      Object.keys(s.labels).length === Object.keys(labels).length,
  );
  return found?.value;
}

describe('/metrics names', () => {
  it("carries Node's and the process's metrics under prom-client's own names, not prefixed twice", async () => {
    const text = await new PipelineMetrics().text();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toMatch(new RegExp(`^${name} `, 'm'));
    }
    expect(text).not.toContain('tapehouse_process_');
  });

  it('a process exports the series of the parts it runs and no others', async () => {
    const capture = await new PipelineMetrics(['capture']).text();
    const load = await new PipelineMetrics(['load']).text();
    const worker = await new PipelineMetrics(['sync']).text();
    expect(capture).toContain('# TYPE tapehouse_frames_total counter');
    expect(capture).toContain('tapehouse_open_gaps 0');
    expect(capture).not.toContain('tapehouse_rows_loaded_total');
    expect(load).toContain('# TYPE tapehouse_freshness_seconds histogram');
    expect(load).toContain('# TYPE tapehouse_insert_duration_seconds histogram');
    expect(load).not.toContain('tapehouse_open_gaps');
    expect(load).not.toContain('tapehouse_frames_total');
    expect(worker).toContain('# TYPE tapehouse_http_429_total counter');
    expect(worker).not.toContain('tapehouse_bus_lag_records');
  });

  it('counts frames and reconnects of every stream from partial figures, counters never going back', async () => {
    const metrics = new PipelineMetrics(['capture']);
    metrics.update({ frames: { market: 10, account: 2 }, reconnects: { portfolio: 1 }, openGaps: 1 });
    metrics.update({ frames: { market: 25, account: 2, portfolio: 4 }, openGaps: 0 });
    expect(await sample(metrics, 'tapehouse_frames_total', { stream: 'market' })).toBe(25);
    expect(await sample(metrics, 'tapehouse_frames_total', { stream: 'account' })).toBe(2);
    expect(await sample(metrics, 'tapehouse_frames_total', { stream: 'portfolio' })).toBe(4);
    expect(await sample(metrics, 'tapehouse_reconnects_total', { stream: 'portfolio' })).toBe(1);
    expect(await sample(metrics, 'tapehouse_open_gaps')).toBe(0);
  });

  it('names a price feed the deployment does not offer, since when, while it does not, and says 0 once it does', async () => {
    const metrics = new PipelineMetrics(['capture']);
    const before = Math.floor(Date.now() / 1000);
    metrics.update({ unavailableStreams: ['prices/oracle_pro'] });
    const since = await sample(metrics, 'tapehouse_stream_unavailable_since_seconds', { stream: 'prices/oracle_pro' });
    expect(since).toBeGreaterThanOrEqual(before);
    metrics.update({ unavailableStreams: ['prices/oracle_pro'] });
    expect(await sample(metrics, 'tapehouse_stream_unavailable_since_seconds', { stream: 'prices/oracle_pro' })).toBe(
      since,
    );
    metrics.update({ unavailableStreams: [] });
    expect(await sample(metrics, 'tapehouse_stream_unavailable_since_seconds', { stream: 'prices/oracle_pro' })).toBe(
      0,
    );
  });
});

describe('/metrics that see the first fault', () => {
  it('starts every labelled counter at 0 for the label values it is known to take, so increase() sees the first one', async () => {
    const capture = new PipelineMetrics(['capture']);
    expect(await sample(capture, 'tapehouse_http_429_total', { component: 'capture' })).toBe(0);
    for (const stream of ['market', 'account', 'portfolio', 'prices', 'oracle_pro'])
      expect(await sample(capture, 'tapehouse_reconnects_total', { stream }), stream).toBe(0);
    const worker = new PipelineMetrics(['sync', 'jobs']);
    expect(await sample(worker, 'tapehouse_http_429_total', { component: 'sync' })).toBe(0);
    expect(await sample(worker, 'tapehouse_cursor_loops_total', { endpoint: 'POST /trade/v1/orders/list' })).toBe(0);
    expect(await sample(worker, 'tapehouse_venue_answers_total', { class: '429' })).toBe(0);
    expect(await sample(worker, 'tapehouse_venue_answers_total', { class: '5xx' })).toBe(0);
    expect(await sample(worker, 'tapehouse_sync_job_runs_total', { job: 'catalogue' })).toBe(0);
    expect(await sample(worker, 'tapehouse_sync_job_failures_total', { job: 'catalogue' })).toBe(0);
    worker.update({
      http429: { sync: 1 },
      venueAnswers: { '429': 1, '5xx': 2 },
      syncJobs: { catalogue: { runs: 3, failures: 1, lastSuccessMs: 1_700_000_000_000, lastDurationMs: 1500 } },
    });
    expect(await sample(worker, 'tapehouse_http_429_total', { component: 'sync' })).toBe(1);
    expect(await sample(worker, 'tapehouse_venue_answers_total', { class: '5xx' })).toBe(2);
    expect(await sample(worker, 'tapehouse_sync_job_runs_total', { job: 'catalogue' })).toBe(3);
    expect(await sample(worker, 'tapehouse_sync_job_failures_total', { job: 'catalogue' })).toBe(1);
    expect(await sample(worker, 'tapehouse_sync_job_last_success_seconds', { job: 'catalogue' })).toBe(1_700_000_000);
    expect(await sample(worker, 'tapehouse_sync_job_last_duration_seconds', { job: 'catalogue' })).toBe(1.5);
    // The main job has no Temporal worker: no per-job series that would stay 0 for ever.
    expect(await new PipelineMetrics().text()).not.toContain('tapehouse_sync_job_runs_total');
  });

  it("dates a feed not offered from the venue's first refusal, not from the first scrape", async () => {
    const metrics = new PipelineMetrics(['capture']);
    metrics.update({ unavailableStreams: ['prices'], unavailableSinceMs: { prices: 1_700_000_000_000 } });
    expect(await sample(metrics, 'tapehouse_stream_unavailable_since_seconds', { stream: 'prices' })).toBe(
      1_700_000_000,
    );
  });

  it("counts the venue's 429 and 5xx answers at the wire, whoever read", async () => {
    const statuses = [429, 503, 200];
    const server = createServer((_, response) => {
      response.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const transport = new HttpTransport({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const before = venueAnswers();
    try {
      for (let i = 0; i < 3; i++) await transport.send({ method: 'GET', path: '/api/v1/events', authenticate: false });
    } finally {
      await transport.close();
      server.close();
    }
    const after = venueAnswers();
    expect(after['429'] - before['429']).toBe(1);
    expect(after['5xx'] - before['5xx']).toBe(1);
    const metrics = new PipelineMetrics(['capture']);
    metrics.update(wireFigures());
    expect(await sample(metrics, 'tapehouse_venue_answers_total', { class: '429' })).toBe(after['429']);
  });
});

describe('tapehouse status --metrics-url', () => {
  it("shows a scale-out process's live figures, read from its /metrics, and names one that does not answer", async () => {
    const metrics = new PipelineMetrics(['sync', 'jobs']);
    metrics.update({
      http429: { sync: 2 },
      venueAnswers: { '429': 2, '5xx': 1 },
      syncJobs: { fills: { runs: 4, failures: 1, lastSuccessMs: 1_700_000_000_000, lastDurationMs: 10 } },
    });
    const server = createServer((_, response) => void metrics.text().then((text) => response.end(text)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const report = await metricsUrlStatus(url);
      expect(report).toContain(`the process at ${url}/metrics serves:`);
      expect(report).toMatch(/429s earned +2/);
      expect(report).toContain('429: 2, 5xx: 1');
      expect(report).toMatch(/fills +4, 1, 2023-11-14T22:13:20.000Z/);
      expect(report).not.toContain('frames received');
    } finally {
      server.close();
    }
    await expect(metricsUrlStatus(url)).rejects.toThrow(`${url}/metrics does not answer`);
  });
});

describe('histograms fed by the loaders and the endpoint', () => {
  let w: TestWarehouse;

  beforeAll(async () => {
    w = await migratedWarehouse();
  });

  afterAll(async () => {
    await w?.cleanup();
  });

  it('every stored record is one freshness observation, every batch one insert-time observation', async () => {
    const catalogue = createTopicCatalogue(`fresh${Date.now()}`);
    const bus = new EmbeddedBus({ topics: catalogue.topics });
    const metrics = new PipelineMetrics(['load']);
    // Received two seconds before they were published: no record can be fresher than that.
    const generator = new RecordGenerator(5, catalogue, { kinds: MARKET_KINDS, clock: () => nowMicros() - 2_000_000n });
    const records = generator.take(300);
    const loaders = await startLoaders({
      bus,
      warehouse: w.warehouse,
      group: 'metrics',
      topics: catalogue.topics.map((t) => t.name),
      log,
      onBatchStored: metrics.batchStored,
    });
    for (const { topic, record } of records) await bus.publish(topic, [record]);
    for (;;) {
      const stats = await loaders.stats();
      if (stats.lag === 0 && stats.queuedRows === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { batches } = await loaders.stats();
    await loaders.stop();
    await bus.close();

    const samples = parsePrometheus(await metrics.text());
    const total = (name: string, le?: string) =>
      samples
        .filter((s) => s.name === name && (le === undefined || s.labels.le === le))
        .reduce((sum, s) => sum + s.value, 0);
    expect(total('tapehouse_freshness_seconds_count')).toBe(records.length);
    expect(total('tapehouse_freshness_seconds_bucket', '1')).toBe(0);
    expect(total('tapehouse_freshness_seconds_bucket', '+Inf')).toBe(records.length);
    expect(total('tapehouse_freshness_seconds_sum')).toBeGreaterThanOrEqual(2 * records.length);
    expect(total('tapehouse_insert_duration_seconds_count')).toBe(batches);
    const topics = new Set(
      samples.filter((s) => s.name === 'tapehouse_freshness_seconds_count').map((s) => s.labels.topic),
    );
    expect(topics).toEqual(new Set(records.map((r) => r.topic)));
  });

  it('times every query of the read-only endpoint, answered or failed', async () => {
    const metrics = new PipelineMetrics(['endpoint']);
    const endpoint = await serveEmbeddedEndpoint(w.warehouse, { onQuery: metrics.queryTimer });
    try {
      const query = (sql: string) => fetch(`${endpoint.url}/?query=${encodeURIComponent(sql)}`).then((r) => r.status);
      expect(await query('SELECT count() FROM tapehouse.trades')).toBe(200);
      expect(await query('SELECT 1')).toBe(200);
      expect(await query('SELECT no_such_column FROM tapehouse.trades')).not.toBe(200);
    } finally {
      await endpoint.close();
    }
    expect(await sample(metrics, 'tapehouse_endpoint_query_duration_seconds_count', { outcome: 'ok' })).toBe(2);
    expect(await sample(metrics, 'tapehouse_endpoint_query_duration_seconds_count', { outcome: 'error' })).toBe(1);
  });
});

describe('the /metrics port of a scale-out process', () => {
  it('serves the figures as of the scrape, keeps the last ones when a figure cannot be read, and nothing else', async () => {
    const served = await serveMetrics({ port: 0, host: '127.0.0.1', parts: ['capture'], log });
    try {
      let frames = 5;
      let failing = false;
      served.feed(() => {
        if (failing) throw new Error('Kafka away');
        return { frames: { market: frames } };
      });
      const scrape = async () => {
        const response = await fetch(served.url);
        expect(response.headers.get('content-type')).toContain('text/plain');
        return parsePrometheus(await response.text()).find((s) => s.name === 'tapehouse_frames_total')?.value;
      };
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(await scrape()).toBe(5);
      frames = 12;
      expect(await scrape()).toBe(12);
      failing = true;
      expect(await scrape()).toBe(12);
      expect((await fetch(served.url.replace('/metrics', '/'))).status).toBe(404);
    } finally {
      await served.close();
    }
  });
});
