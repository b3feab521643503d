import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASHBOARDS_DIR, loadDashboards, type DashboardPanel } from '../src/dashboards/dashboard-model.ts';
import { isPanelType } from '../src/dashboards/panel-shapes.ts';
import { grafanaSchemaErrors } from './dashboards-grafana-schema.ts';

const dashboards = loadDashboards();
const byTitle = new Map(dashboards.map((file) => [file.dashboard.title, file]));

describe('dashboard files', () => {
  it('are the four dashboards of the issue, each with a unique uid', () => {
    expect([...byTitle.keys()].sort()).toEqual(['Account', 'Market detail', 'Markets overview', 'Pipeline health']);
    expect(new Set(dashboards.map(({ dashboard }) => dashboard.uid)).size).toBe(4);
  });

  it("conform to Grafana's dashboard schema and each panel plugin's options (@grafana/schema)", () => {
    const errors = grafanaSchemaErrors(dashboards);
    for (const { file } of dashboards) expect(errors.get(file), file).toEqual([]);
  });

  it('are refused by that check when a panel option is outside its enum or a field is misspelt', () => {
    const json = structuredClone(dashboards[0]!.json) as { panels: Array<Record<string, unknown>> };
    const timeseries = json.panels.find((panel) => panel.type === 'timeseries')!;
    (timeseries.options as { legend: { placement: string } }).legend.placement = 'middle';
    const table = json.panels.find((panel) => panel.type === 'table')!;
    table.gridPoss = table.gridPos;
    const errors = grafanaSchemaErrors([{ file: 'broken.json', json }]).get('broken.json')!;
    expect(errors.join('\n')).toMatch(/"middle"/);
    expect(errors.join('\n')).toMatch(/gridPoss/);
  });
});

describe.each(dashboards.map(({ file, dashboard }) => [file, dashboard] as const))('%s', (_file, dashboard) => {
  const panels = dashboard.panels;
  const variables = dashboard.templating.list;

  it('takes its data source from the ${datasource} variable, a ClickHouse data source', () => {
    const variable = variables.find((entry) => entry.name === 'datasource');
    expect(variable?.type).toBe('datasource');
    expect(variable?.query).toBe('grafana-clickhouse-datasource');
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'grafana-clickhouse-datasource', uid: '${datasource}' });
      for (const target of panel.targets) expect(target.datasource, panel.title).toEqual(panel.datasource);
    }
  });

  it('draws only panel types both viewers draw, with unique ids on a 24-column grid without overlaps', () => {
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    const taken = new Set<string>();
    for (const panel of panels) {
      expect(isPanelType(panel.type), `${panel.title}: ${panel.type}`).toBe(true);
      const { x, y, w, h } = panel.gridPos;
      expect(x + w, panel.title).toBeLessThanOrEqual(24);
      for (let col = x; col < x + w; col += 1) {
        for (let row = y; row < y + h; row += 1) {
          expect(taken.has(`${col},${row}`), `${panel.title} overlaps another panel at ${col},${row}`).toBe(false);
          taken.add(`${col},${row}`);
        }
      }
    }
  });

  it('quotes every variable in SQL with ${var:singlequote} and filters optional ones with $__conditionalAll', () => {
    const sqls = [
      ...panels.flatMap((panel) => panel.targets.map((target) => target.rawSql)),
      ...variables.map((v) => String(v.query ?? '')),
    ];
    for (const sql of sqls) {
      const withoutConditionalRefs = sql.replace(/,\s*\$\w+\)/g, ')'); // $__conditionalAll's second argument names the variable
      for (const [reference] of withoutConditionalRefs.matchAll(/\$\{?(?!__)\w+(:\w+)?\}?/g)) {
        expect(reference, sql).toMatch(/^\$\{\w+:singlequote\}$/);
      }
    }
    for (const variable of variables.filter((entry) => entry.includeAll)) {
      const uses = sqls.filter((sql) => sql.includes(`\${${variable.name}:singlequote}`));
      expect(uses.length, variable.name).toBeGreaterThan(0);
      for (const sql of uses) expect(sql, `${variable.name} (All) must be optional`).toContain(`$__conditionalAll(`);
      for (const sql of uses) expect(sql).toMatch(new RegExp(`IN \\(\\$\\{${variable.name}:singlequote\\}\\)`));
    }
  });

  it('bounds every chart to the time range ($__timeFilter or $__toTime) and buckets time series with $__timeInterval', () => {
    const charts = panels.filter((panel) => ['timeseries', 'candlestick', 'state-timeline'].includes(panel.type));
    for (const panel of charts) {
      for (const { rawSql } of panel.targets) {
        expect(rawSql, panel.title).toMatch(/\$__timeFilter\(|\$__toTime/);
        if (bucketedSeries(panel)) expect(rawSql, panel.title).toContain('$__timeInterval(');
      }
    }
  });

  it('draws no line across a gap: spanNulls false everywhere, and each line panel marks gaps in coverage with NULL rows', () => {
    for (const panel of panels) expect(lineGapErrors(panel), panel.title).toEqual([]);
  });

  it('converts micro-units only at the presentation edge (/ 1e6 in the outer SELECT, never in a filter)', () => {
    for (const panel of panels) {
      for (const { rawSql } of panel.targets) {
        for (const clause of rawSql.split(/\bWHERE\b/i).slice(1)) {
          const filter = clause.split(/\b(GROUP BY|ORDER BY|LIMIT)\b/i)[0]!;
          expect(filter, panel.title).not.toMatch(/1e6/);
        }
      }
    }
  });
});

// Settled PnL buckets are the venue's own; every other series is bucketed per interval.
function bucketedSeries(panel: DashboardPanel): boolean {
  return panel.type !== 'state-timeline' && !panel.targets.some((target) => /bucket_at AS time/.test(target.rawSql));
}

// Settled PnL is the venue's own history (read back by sync, not captured): it has no coverage gaps.
const VENUE_HISTORY = /bucket_at AS time/;

/**
 * Why `panel` could draw a line across minutes when nothing ran: Grafana joins across nulls with
 * spanNulls true (or under a threshold), and across missing rows whatever spanNulls says unless
 * nulls are there. A line panel's query adds a NULL row for every whole bucket inside a capture
 * gap (tapehouse.capture_gaps), or the panel asks Grafana to insert nulls (insertNulls, ms).
 */
function lineGapErrors(panel: DashboardPanel): string[] {
  if (panel.type !== 'timeseries') return [];
  const custom = (panel.fieldConfig?.defaults.custom ?? {}) as Record<string, unknown>;
  const errors: string[] = [];
  if (custom.spanNulls !== false) errors.push(`spanNulls is ${String(custom.spanNulls)}, not false`);
  const lines = custom.drawStyle !== 'bars';
  const marked =
    typeof custom.insertNulls === 'number' ||
    panel.targets.every(({ rawSql }) => VENUE_HISTORY.test(rawSql) || /\btapehouse\.capture_gaps\b/.test(rawSql));
  if (lines && !marked) errors.push('a line panel whose query marks no gap in coverage (and no insertNulls)');
  return errors;
}

describe('the rule against lines across gaps', () => {
  const panel = (custom: Record<string, unknown>, rawSql: string): DashboardPanel => ({
    id: 1,
    type: 'timeseries',
    title: 'new panel',
    gridPos: { x: 0, y: 0, w: 12, h: 8 },
    targets: [{ refId: 'A', format: 0, rawSql }],
    options: {},
    fieldConfig: { defaults: { custom } },
  });
  const plain =
    'SELECT $__timeInterval(sampled_at) AS time, max(value) AS v FROM tapehouse.pipeline_health GROUP BY time';

  it('refuses a new panel with spanNulls true, or a threshold, or none', () => {
    for (const spanNulls of [true, 60_000, undefined]) {
      expect(lineGapErrors(panel({ drawStyle: 'bars', spanNulls }, plain))).toEqual([
        `spanNulls is ${String(spanNulls)}, not false`,
      ]);
    }
  });

  it('refuses a line panel whose missing buckets Grafana would join, and takes one with insertNulls', () => {
    expect(lineGapErrors(panel({ drawStyle: 'line', spanNulls: false }, plain))).toHaveLength(1);
    expect(lineGapErrors(panel({ drawStyle: 'line', spanNulls: false, insertNulls: 120_000 }, plain))).toEqual([]);
  });
});

describe('provisioning', () => {
  const datasource = readFileSync(join(DASHBOARDS_DIR, 'provisioning/datasources/clickhouse.yaml'), 'utf8');
  const provider = readFileSync(join(DASHBOARDS_DIR, 'provisioning/dashboards/tapehouse.yaml'), 'utf8');

  it('provisions the ClickHouse data source over HTTP on database tapehouse, as the read-only user, password from the secret file compose gives Grafana', () => {
    expect(datasource).toMatch(/type: grafana-clickhouse-datasource/);
    expect(datasource).toMatch(/protocol: http\b/);
    expect(datasource).toMatch(/defaultDatabase: tapehouse/);
    expect(datasource).toMatch(/username: grafana\b/);
    const secret = /password: \$__file\{\/run\/secrets\/(\w+)\}/.exec(datasource)?.[1];
    expect(secret).toBe('grafana_clickhouse_password');
    const compose = readFileSync(join(DASHBOARDS_DIR, '../docker-compose.yml'), 'utf8');
    const grafana = /\n {2}grafana:\n((?: {4}.*\n|\s*\n)*)/.exec(compose)?.[1] ?? '';
    expect(grafana).toMatch(new RegExp(`secrets: \\[[^\\]]*\\b${secret}\\b`));
  });

  it("makes that data source every dashboard's default", () => {
    const uid = /uid: (\S+)/.exec(datasource)![1];
    for (const { dashboard } of dashboards) {
      const variable = dashboard.templating.list.find((entry) => entry.name === 'datasource')!;
      expect(variable.current?.value, dashboard.title).toBe(uid);
    }
  });

  it('loads the dashboards from the folder the compose file mounts this directory on', () => {
    const path = /path: (\S+)/.exec(provider)![1];
    const compose = readFileSync(join(DASHBOARDS_DIR, '../docker-compose.yml'), 'utf8');
    expect(compose).toContain(`./dashboards:${path}`);
  });
});
