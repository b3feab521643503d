import type { BoundVariable } from '../../src/dashboards/expand-sql.ts';

/** One query of the Go program's report (test/conformance/grafana/main.go, type Query). */
export interface GrafanaQuery {
  dashboard: string;
  kind: 'variable' | 'target';
  /** The variable's name, or `<panel id>/<refId>`. */
  name: string;
  panelId?: number;
  refId?: string;
  intervalMs: number;
  bindings: Record<string, BoundVariable>;
  sql: string;
  ok: boolean;
  error?: string;
  columns?: Array<{ name: string; type: string; scanType: string }>;
  rows: number;
  ms: number;
}

export interface GrafanaReport {
  checks: Array<{ name: string; ok: boolean; error?: string; note?: string }>;
  queries: GrafanaQuery[];
}
