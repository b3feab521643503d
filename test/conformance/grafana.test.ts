import { readFileSync } from 'node:fs';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { afterAll, describe, expect, it } from 'vitest';
import { dataPanels, loadDashboards } from '../../src/dashboards/dashboard-model.ts';
import { expandSql } from '../../src/dashboards/expand-sql.ts';
import { fieldTypeOf } from '../../src/dashboards/frames.ts';
import { panelIntervalMs } from '../../src/dashboards/panel-data.ts';
import { shapeProblem } from '../../src/dashboards/panel-shapes.ts';
import { conformanceEnv, recordTally } from './conformance-env.ts';
import type { GrafanaReport } from './grafana-report.ts';

/**
 * Judges what the Go program saw (test/conformance/grafana, clickhouse-go v2.47.0 as Grafana's
 * ClickHouse data source v4.20.0 connects): "Save & test" passes; every variable query and panel
 * target ran, with the columns its panel draws and the types ClickHouse gives them; and the
 * built-in viewer expands each query to the same text from the same inputs.
 */

const { url, dir } = conformanceEnv();
const report = JSON.parse(readFileSync(`${dir}/grafana-report.json`, 'utf8')) as GrafanaReport;
const plan = JSON.parse(readFileSync(`${dir}/grafana-plan.json`, 'utf8')) as {
  dashboards: Array<{ uid: string; from: number; to: number }>;
};
const dashboards = loadDashboards().map(({ dashboard }) => dashboard);
const client = createClient({ url, database: 'tapehouse', log: { level: ClickHouseLogLevel.OFF } });

afterAll(async () => {
  const ok = report.queries.filter((q) => q.ok).length;
  const latencies = report.queries.map((q) => q.ms).sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]!.toFixed(1);
  recordTally(
    dir,
    'clickhouse-go v2.47.0 (Grafana plugin v4.20.0 options, HTTP)',
    report.queries.length + report.checks.length,
    ok + report.checks.filter((c) => c.ok).length,
    `59 dashboard queries: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`,
  );
  await client.close();
});

describe("Grafana's ClickHouse data source (clickhouse-go v2.47.0 over HTTP, the plugin's options)", () => {
  it('passes "Save & test": ping, version, time zone; and reads LZ4 blocks with their checksums', () => {
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.checks.map((c) => c.name)).toContain('ping');
  });

  it('runs every variable query and panel target of every dashboard (53 + 6 today)', () => {
    const targets = dashboards.reduce(
      (n, d) => n + dataPanels(d).reduce((m, p) => m + p.targets.filter((t) => !t.hide).length, 0),
      0,
    );
    const variables = dashboards.reduce((n, d) => n + d.templating.list.filter((v) => v.type === 'query').length, 0);
    expect(report.queries.length).toBe(targets + variables);
    expect(report.queries.filter((q) => !q.ok).map((q) => `${q.dashboard} ${q.name}: ${q.error}`)).toEqual([]);
  });

  it.each(report.queries.map((q) => [`${q.dashboard} ${q.kind} ${q.name}`, q] as const))('%s', async (_name, query) => {
    const dashboard = dashboards.find((d) => d.uid === query.dashboard)!;
    const planned = plan.dashboards.find((d) => d.uid === query.dashboard)!;
    const range = { from: new Date(planned.from), to: new Date(planned.to) };
    const variables = new Map(Object.entries(query.bindings));
    if (query.kind === 'variable') {
      const variable = dashboard.templating.list.find((v) => v.name === query.name)!;
      const raw = typeof variable.query === 'string' ? variable.query : String(variable.query?.rawSql ?? '');
      expect(expandSql(raw, { range, intervalMs: 0, variables })).toBe(query.sql);
    } else {
      const panel = dataPanels(dashboard).find((p) => p.id === query.panelId)!;
      const target = panel.targets.find((t) => t.refId === query.refId)!;
      expect(panelIntervalMs(panel, range)).toBe(query.intervalMs);
      expect(expandSql(target.rawSql, { range, intervalMs: query.intervalMs, variables })).toBe(query.sql);
      if (query.rows > 0) {
        const fields = (query.columns ?? []).map((c) => ({ name: c.name, type: fieldTypeOf(c.type), values: [] }));
        expect(shapeProblem(panel, { refId: target.refId, fields })).toBeUndefined();
      }
    }
    // The types clickhouse-go read from the Native blocks are the ones ClickHouse states for the query.
    if (query.rows > 0) {
      const meta = (await (await client.query({ query: query.sql, format: 'JSONCompact' })).json()).meta ?? [];
      expect(query.columns).toEqual(meta.map((m) => ({ name: m.name, type: m.type, scanType: expect.any(String) })));
    }
  });
});
