import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataPanels, loadDashboards } from '../src/dashboards/dashboard-model.ts';
import { expandSql } from '../src/dashboards/expand-sql.ts';
import { panelIntervalMs } from '../src/dashboards/panel-data.ts';
import { FIXED_RANGE } from './conformance/grafana-plan.ts';
import type { GrafanaReport } from './conformance/grafana-report.ts';

/**
 * The viewer's expansion of every dashboard query against the plugin's. The file is what the Go
 * conformance program (test/conformance/grafana: Grafana's interval and template service and the
 * plugin's frontend and backend macros, written from their source) makes of the fixed plan; CI
 * remakes it and fails when it differs from the one committed.
 */

const FILE = new URL('./conformance/grafana-expansions.json', import.meta.url);
const expansions = (JSON.parse(readFileSync(FILE, 'utf8')) as GrafanaReport).queries;
const dashboards = loadDashboards().map(({ dashboard }) => dashboard);
const range = { from: new Date(FIXED_RANGE.from), to: new Date(FIXED_RANGE.to) };
const regenerate = 'remake it with `bash test/conformance/run.sh --write-expansions`';

describe("the viewer expands every dashboard query as Grafana's ClickHouse data source does", () => {
  it('covers every variable query and panel target of the dashboards', () => {
    const expected = dashboards.flatMap((dashboard) => [
      ...dashboard.templating.list.filter((v) => v.type === 'query').map((v) => `${dashboard.uid} variable ${v.name}`),
      ...dataPanels(dashboard).flatMap((panel) =>
        panel.targets.filter((t) => !t.hide).map((t) => `${dashboard.uid} target ${panel.id}/${t.refId}`),
      ),
    ]);
    expect(expansions.map((e) => `${e.dashboard} ${e.kind} ${e.name}`).sort(), regenerate).toEqual(expected.sort());
  });

  it.each(expansions.map((e) => [`${e.dashboard} ${e.kind} ${e.name}`, e] as const))('%s', (_name, expansion) => {
    const dashboard = dashboards.find((d) => d.uid === expansion.dashboard)!;
    const variables = new Map(Object.entries(expansion.bindings));
    if (expansion.kind === 'variable') {
      const variable = dashboard.templating.list.find((v) => v.name === expansion.name)!;
      const sql = typeof variable.query === 'string' ? variable.query : String(variable.query?.rawSql ?? '');
      expect(expandSql(sql, { range, intervalMs: 0, variables }), regenerate).toBe(expansion.sql);
      return;
    }
    const panel = dataPanels(dashboard).find((p) => p.id === expansion.panelId)!;
    const target = panel.targets.find((t) => t.refId === expansion.refId)!;
    const intervalMs = panelIntervalMs(panel, range);
    expect(intervalMs).toBe(expansion.intervalMs);
    expect(expandSql(target.rawSql, { range, intervalMs, variables }), regenerate).toBe(expansion.sql);
  });
});
