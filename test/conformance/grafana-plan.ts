import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dataPanels, loadDashboards, type Dashboard } from '../../src/dashboards/dashboard-model.ts';
import { panelMaxDataPoints } from '../../src/dashboards/panel-data.ts';
import { parseTimeRange } from '../../src/dashboards/time-range.ts';
import { parseCustomOptions } from '../../src/dashboards/variables.ts';

/**
 * Writes what the Go program (test/conformance/grafana) runs: every dashboard's variables and
 * panel targets, with the data points Grafana would ask each panel for (the viewer's choice, so
 * that both expand from the same inputs). `--fixed` writes the plan of the committed expansion
 * file: a fixed range and fixed options for the query variables, so nothing needs a warehouse.
 */

export const FIXED_RANGE = { from: Date.parse('2026-05-01T10:00:00Z'), to: Date.parse('2026-05-01T16:00:00Z') };
/** Options the query variables offer in the fixed plan. */
export const FIXED_OPTIONS: Readonly<Record<string, string[]>> = {
  account: ['default', "o'hare"],
  event: ['ev-1', 'ev-2'],
  market: ['mk-1'],
  outcome: ['tok-yes', 'tok-no'],
  category: ['crypto', 'politics', 'sports'],
  table: ['trades', 'book_changes'],
};

/**
 * Selections in the fixed plan, whatever the dashboards save as current: the expansion file then
 * changes only when a query's SQL does. Some All, some values, to take both paths of
 * $__conditionalAll.
 */
export const FIXED_SELECTIONS: Readonly<Record<string, string[]>> = {
  account: ['$__all'],
  event: ['ev-2'],
  market: ['mk-1'],
  outcome: ['tok-no'],
  distance: ['10000', '100000'],
  category: ['crypto', 'sports'],
  table: ['$__all'],
};

export interface PlanVariable {
  name: string;
  type: string;
  query: string;
  multi: boolean;
  includeAll: boolean;
  current: string[];
  options: string[];
}

/** The fixed plan has one range; a live one each dashboard's own default range, as of `now`. */
export function planOf(dashboards: readonly Dashboard[], fixed: boolean, now = new Date()) {
  const rangeOf = (dashboard: Dashboard) => {
    if (fixed) return FIXED_RANGE;
    const { from, to } = parseTimeRange(dashboard.time.from, dashboard.time.to, now);
    return { from: from.getTime(), to: to.getTime() };
  };
  return {
    dashboards: dashboards.map((dashboard) => ({
      uid: dashboard.uid,
      title: dashboard.title,
      ...rangeOf(dashboard),
      variables: dashboard.templating.list
        .filter((variable) => variable.type !== 'datasource')
        .map((variable): PlanVariable => {
          const query = typeof variable.query === 'string' ? variable.query : String(variable.query?.rawSql ?? '');
          const current = variable.current?.value;
          return {
            name: variable.name,
            type: variable.type,
            query,
            multi: variable.multi ?? false,
            includeAll: variable.includeAll ?? false,
            current: fixed
              ? [...(FIXED_SELECTIONS[variable.name] ?? [])]
              : current === undefined
                ? []
                : Array.isArray(current)
                  ? current.map(String)
                  : [String(current)],
            options:
              variable.type === 'custom'
                ? parseCustomOptions(query).map((option) => option.value)
                : fixed
                  ? [...(FIXED_OPTIONS[variable.name] ?? [])]
                  : [],
          };
        }),
      targets: dataPanels(dashboard).flatMap((panel) =>
        panel.targets
          .filter((target) => !target.hide)
          .map((target) => ({
            panelId: panel.id,
            panelTitle: panel.title,
            panelType: panel.type,
            refId: target.refId,
            rawSql: target.rawSql,
            format: target.format,
            maxDataPoints: panelMaxDataPoints(panel),
            minInterval: panel.interval ?? '',
          })),
      ),
    })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, fixed: { type: 'boolean' } } });
  const dashboards = loadDashboards().map(({ dashboard }) => dashboard);
  writeFileSync(values.out!, `${JSON.stringify(planOf(dashboards, values.fixed ?? false), null, 2)}\n`);
}
