import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { packagePath } from '../util/package-root.ts';

/**
 * The parts of a Grafana dashboard JSON (schema v39+, ClickHouse data source in SQL mode) that the
 * built-in viewer reads. Everything else in the file is kept as it is and handed to the page, so
 * one file serves Grafana and the viewer alike. Grafana's full schema is checked by the tests.
 */

export const DASHBOARDS_DIR = packagePath('dashboards');

const targetSchema = z.looseObject({
  refId: z.string(),
  rawSql: z.string(),
  /** The plugin's format: 0 = time series (long frames widened by their string columns), 1 = table. */
  format: z.number().int(),
  hide: z.boolean().optional(),
});

const gridPosSchema = z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() });

const panelSchema = z.looseObject({
  id: z.number().int(),
  type: z.string(),
  title: z.string(),
  gridPos: gridPosSchema,
  /** Lower bound of $__timeInterval, as Grafana writes it ("1m"). */
  interval: z.string().optional(),
  maxDataPoints: z.number().optional(),
  targets: z.array(targetSchema).default([]),
  options: z.record(z.string(), z.unknown()).default({}),
  fieldConfig: z.looseObject({ defaults: z.record(z.string(), z.unknown()).default({}) }).optional(),
});

const optionSchema = z.object({
  text: z.union([z.string(), z.array(z.string())]),
  value: z.union([z.string(), z.array(z.string())]),
});

const variableSchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  label: z.string().optional(),
  query: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  multi: z.boolean().optional(),
  includeAll: z.boolean().optional(),
  allValue: z.string().optional(),
  current: z
    .looseObject({ text: optionSchema.shape.text.optional(), value: optionSchema.shape.value.optional() })
    .optional(),
  hide: z.number().optional(),
});

const dashboardSchema = z.looseObject({
  uid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
  title: z.string(),
  description: z.string().optional(),
  time: z.object({ from: z.string(), to: z.string() }).default({ from: 'now-6h', to: 'now' }),
  refresh: z.string().optional(),
  panels: z.array(panelSchema),
  templating: z.object({ list: z.array(variableSchema).default([]) }).default({ list: [] }),
});

export type DashboardTarget = z.infer<typeof targetSchema>;
export type DashboardPanel = z.infer<typeof panelSchema>;
export type DashboardVariable = z.infer<typeof variableSchema>;
export type Dashboard = z.infer<typeof dashboardSchema>;

export interface DashboardFile {
  /** File name within the dashboards folder. */
  file: string;
  dashboard: Dashboard;
  /** The file as written, for the page (Grafana fields the viewer does not model included). */
  json: Record<string, unknown>;
}

export function parseDashboard(json: unknown, file = 'dashboard'): Dashboard {
  const parsed = dashboardSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(`${file}: not a dashboard the viewer can read: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Every `*.json` directly in `dir`, in file-name order. */
export function loadDashboards(dir: string = DASHBOARDS_DIR): DashboardFile[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  const loaded = files.map((file) => {
    const json = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
    return { file, dashboard: parseDashboard(json, file), json };
  });
  const seen = new Set<string>();
  for (const { file, dashboard } of loaded) {
    if (seen.has(dashboard.uid)) throw new Error(`${file}: uid ${dashboard.uid} is used by another dashboard`);
    seen.add(dashboard.uid);
  }
  return loaded;
}

/** Panels that draw data (rows and text panels have no queries). */
export function dataPanels(dashboard: Dashboard): DashboardPanel[] {
  return dashboard.panels.filter((panel) => panel.targets.some((target) => !target.hide));
}
