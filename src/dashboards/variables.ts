import type { Dashboard, DashboardVariable } from './dashboard-model.ts';
import { expandSql, ExpansionError, type BoundVariable } from './expand-sql.ts';
import type { RunQuery } from './run-query.ts';
import type { TimeRange } from './time-range.ts';

/**
 * Dashboard variables: their options (a query variable's come from the warehouse, with the
 * variables before it bound; a custom one's from its list) and the selection. A requested value
 * that is not among the options is replaced by the default, as Grafana does on load, so a query
 * only ever receives values the variable itself offered.
 */

export const ALL = '$__all';
const MAX_OPTIONS = 10_000;

export interface VariableOption {
  text: string;
  value: string;
}

export interface ResolvedVariable {
  name: string;
  label: string;
  multi: boolean;
  includeAll: boolean;
  hidden: boolean;
  options: VariableOption[];
  /** The selection: option values, or [ALL]. */
  selected: string[];
}

/** What the page asks for: variable name → selected values (or [ALL]). */
export type VariableSelection = Readonly<Record<string, readonly string[] | undefined>>;

export async function resolveVariables(
  dashboard: Dashboard,
  selection: VariableSelection,
  range: TimeRange,
  run: RunQuery,
): Promise<ResolvedVariable[]> {
  const resolved: ResolvedVariable[] = [];
  const bound = new Map<string, BoundVariable>();
  for (const variable of dashboard.templating.list) {
    if (variable.type === 'datasource') continue; // the page has one warehouse
    // Grafana asks a variable's query with no interval (intervalMs 0): the plugin's macros then use 1 s.
    const options = await optionsOf(variable, { range, intervalMs: 0, variables: bound }, run);
    const selected = select(variable, options, selection[variable.name]);
    resolved.push({
      name: variable.name,
      label: variable.label ?? variable.name,
      multi: variable.multi ?? false,
      includeAll: variable.includeAll ?? false,
      hidden: (variable.hide ?? 0) === 2,
      options,
      selected,
    });
    bound.set(variable.name, bindingOf(options, selected));
  }
  return resolved;
}

export function bindingOf(options: readonly VariableOption[], selected: readonly string[]): BoundVariable {
  const isAll = selected.includes(ALL);
  return { isAll, values: isAll ? options.map((option) => option.value) : [...selected] };
}

/** Name → bound values, for expandSql. */
export function bindings(variables: readonly ResolvedVariable[]): Map<string, BoundVariable> {
  return new Map(variables.map((variable) => [variable.name, bindingOf(variable.options, variable.selected)]));
}

async function optionsOf(
  variable: DashboardVariable,
  context: Parameters<typeof expandSql>[1],
  run: RunQuery,
): Promise<VariableOption[]> {
  switch (variable.type) {
    case 'custom':
      return parseCustomOptions(typeof variable.query === 'string' ? variable.query : '');
    case 'constant':
      return typeof variable.query === 'string' ? [{ text: variable.query, value: variable.query }] : [];
    case 'query': {
      const sql = typeof variable.query === 'string' ? variable.query : String(variable.query?.rawSql ?? '');
      const result = await run(expandSql(sql, context));
      // The plugin's rule: one column is both value and text; with two, the first is the value.
      return result.rows.slice(0, MAX_OPTIONS).map((row) => {
        const value = String(row[0] ?? '');
        return { value, text: row.length > 1 ? String(row[1] ?? '') : value };
      });
    }
    default:
      throw new ExpansionError(
        `variable ${variable.name}: type ${variable.type} is not supported (query, custom, constant, datasource)`,
      );
  }
}

/** Grafana's custom list: `a, b, c` or `text : value, …`; `\,` is a literal comma. */
export function parseCustomOptions(query: string): VariableOption[] {
  const items = query.match(/(?:\\,|[^,])+/g) ?? [];
  return items
    .map((item) => item.trim().replace(/\\,/g, ','))
    .filter((item) => item !== '')
    .map((item) => {
      const pair = /^(.*?)\s:\s(.*)$/.exec(item);
      return pair ? { text: pair[1]!.trim(), value: pair[2]!.trim() } : { text: item, value: item };
    });
}

function select(
  variable: DashboardVariable,
  options: VariableOption[],
  requested: readonly string[] | undefined,
): string[] {
  const allowed = new Set(options.map((option) => option.value));
  const usable = (values: readonly string[] | undefined): string[] => {
    if (!values || values.length === 0) return [];
    if (values.includes(ALL)) return variable.includeAll ? [ALL] : [];
    const kept = values.filter((value) => allowed.has(value));
    return kept.length === values.length ? (variable.multi ? kept : kept.slice(0, 1)) : [];
  };
  const fromRequest = usable(requested);
  if (fromRequest.length > 0) return fromRequest;
  const current = variable.current?.value;
  const fromFile = usable(current === undefined ? undefined : Array.isArray(current) ? current : [current]);
  if (fromFile.length > 0) return fromFile;
  if (variable.includeAll) return [ALL];
  return options.length > 0 ? [options[0]!.value] : [];
}
