import { dataPanels, type Dashboard, type DashboardPanel } from './dashboard-model.ts';
import { expandSql } from './expand-sql.ts';
import { longToWide, rowCount, toFrame, type Frame } from './frames.ts';
import { shapeProblem } from './panel-shapes.ts';
import type { RunQuery } from './run-query.ts';
import { intervalToMs, queryIntervalMs, type TimeRange } from './time-range.ts';
import { bindings, resolveVariables, type ResolvedVariable, type VariableSelection } from './variables.ts';

export interface PanelData {
  frames: Frame[];
  /** The query failed (expansion or warehouse), with the message. */
  error?: string;
  /** Rows came back but not the columns this panel type draws (see panel-shapes.ts). */
  problem?: string;
}

export interface DashboardData {
  variables: ResolvedVariable[];
  panels: Record<number, PanelData>;
}

/** A panel full width (24 columns) gets about this many points, as a wide browser window would. */
const FULL_WIDTH_POINTS = 1600;
const PANEL_CONCURRENCY = 3;

/** The data points Grafana asks a panel for: its own maxDataPoints, else its width in pixels. */
export function panelMaxDataPoints(panel: DashboardPanel): number {
  return panel.maxDataPoints ?? Math.round((FULL_WIDTH_POINTS * panel.gridPos.w) / 24);
}

/** `$__interval` for a panel, as Grafana computes it, never below the panel's `interval`. */
export function panelIntervalMs(panel: DashboardPanel, range: TimeRange): number {
  return queryIntervalMs(range, panelMaxDataPoints(panel), intervalToMs(panel.interval));
}

/** The statements a panel runs, expanded for a range and variables. */
export function panelStatements(panel: DashboardPanel, range: TimeRange, variables: readonly ResolvedVariable[]) {
  const context = { range, intervalMs: panelIntervalMs(panel, range), variables: bindings(variables) };
  return panel.targets
    .filter((target) => !target.hide)
    .map((target) => ({ target, sql: expandSql(target.rawSql, context) }));
}

export async function queryPanel(
  panel: DashboardPanel,
  range: TimeRange,
  variables: readonly ResolvedVariable[],
  run: RunQuery,
): Promise<PanelData> {
  try {
    const frames: Frame[] = [];
    for (const { target, sql } of panelStatements(panel, range, variables)) {
      const frame = toFrame(target.refId, await run(sql));
      frames.push(target.format === 0 ? longToWide(frame) : frame);
    }
    const withRows = frames.find((frame) => rowCount(frame) > 0);
    const problem = withRows ? shapeProblem(panel, withRows) : undefined;
    return problem ? { frames, problem } : { frames };
  } catch (err) {
    return { frames: [], error: err instanceof Error ? err.message : String(err) };
  }
}

/** Variables first (their options and the selection in force), then every data panel with them. */
export async function queryDashboard(
  dashboard: Dashboard,
  range: TimeRange,
  selection: VariableSelection,
  run: RunQuery,
  panelIds?: ReadonlySet<number>,
): Promise<DashboardData> {
  const variables = await resolveVariables(dashboard, selection, range, run);
  const panels = dataPanels(dashboard).filter((panel) => !panelIds || panelIds.has(panel.id));
  const results: Record<number, PanelData> = {};
  let next = 0;
  const worker = async () => {
    while (next < panels.length) {
      const panel = panels[next++]!;
      results[panel.id] = await queryPanel(panel, range, variables, run);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PANEL_CONCURRENCY, panels.length) }, worker));
  return { variables, panels: results };
}
