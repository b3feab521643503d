import { sqlString } from '../warehouse/database.ts';
import { formatInterval, type TimeRange } from './time-range.ts';

/**
 * Turns a panel's SQL into the statement the ClickHouse data source would send, in the plugin's
 * order: `$__conditionalAll` first (its frontend), then dashboard variables and Grafana's
 * `$__interval`, `$__from`, … (Grafana's template service), then the time macros (the plugin's
 * backend: github.com/grafana/clickhouse-datasource pkg/macros). The built-in viewer and the tests
 * both go through here, and test/conformance checks the text against the plugin's expansion.
 *
 * Variable values only ever enter SQL as quoted, escaped string literals (`${var:singlequote}`):
 * a bare `$var` or another format in SQL is refused, since its value would be pasted as code.
 * Grafana's singlequote escapes quotes only; here a backslash is escaped too, so a value ending in
 * one cannot end the literal (for any value without a backslash the two texts are the same).
 */

/** A variable's values as they enter a query. */
export interface BoundVariable {
  /** The values to substitute: the selection, or every option when "All" is selected. */
  values: readonly string[];
  /** "All" is selected: `$__conditionalAll` drops its condition. */
  isAll: boolean;
}

export interface ExpansionContext {
  range: TimeRange;
  /** `$__interval` in milliseconds (see queryIntervalMs). */
  intervalMs: number;
  variables: ReadonlyMap<string, BoundVariable>;
}

export class ExpansionError extends Error {
  override name = 'ExpansionError';
}

const QUOTING_FORMATS = new Set(['singlequote', 'sqlstring']);

export function expandSql(rawSql: string, context: ExpansionContext): string {
  const conditioned = expandConditionalAll(rawSql, context.variables);
  const bound = expandVariables(conditioned, context.variables);
  return expandTimeMacros(bound, context);
}

/**
 * `$__conditionalAll(condition, $var)` as the plugin's frontend expands it (CHDatasource
 * applyConditionalAll, v4.20.0), last macro first: the condition as written when the variable
 * has a selection, `1=1` when All or nothing is selected (Grafana's value `$__all` or ''). Its
 * arguments are split at top-level commas by brackets alone, quotes not considered, and the
 * condition keeps its spacing; no brackets are added around it.
 */
function expandConditionalAll(sql: string, variables: ReadonlyMap<string, BoundVariable>): string {
  const macro = '$__conditionalAll(';
  let out = sql;
  for (let at = out.lastIndexOf(macro); at !== -1; at = out.lastIndexOf(macro)) {
    const args = pluginMacroArguments(out, at + macro.length - 1);
    if (args.length !== 2)
      throw new ExpansionError(
        '$__conditionalAll takes a condition and a variable: $__conditionalAll(x IN (${v:singlequote}), $v)',
      );
    const name = /(?<=\$\{)\w+(?=\})|(?<=\$)\w+/.exec(args[1]!.trim())?.[0];
    let phrase = args[0]!;
    if (name) {
      const variable = variables.get(name);
      if (!variable) throw new ExpansionError(`$__conditionalAll: no variable ${name}`);
      if (variable.isAll || variable.values.join(',') === '') phrase = '1=1';
    }
    // String.replace with a string: the first occurrence of the macro's text, as the plugin does.
    out = out.replace(`${macro}${args[0]},${args[1]})`, phrase);
  }
  return out;
}

/** The plugin's getMacroArgs: arguments of the bracket at `open`, split at depth-1 commas. */
function pluginMacroArguments(sql: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < sql.length; i++) {
    const char = sql[i];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    if (char === ',' && depth === 1) {
      args.push(sql.slice(start, i));
      start = i + 1;
    }
    if (depth === 0) {
      args.push(sql.slice(start, i));
      return args;
    }
  }
  return [];
}

/** `${name:singlequote}` → 'a','b' (escaped); anything else that names a variable is refused. */
function expandVariables(sql: string, variables: ReadonlyMap<string, BoundVariable>): string {
  return sql.replace(
    /\$\{(\w+)(?::([\w]+))?\}|\[\[(\w+)(?::(\w+))?\]\]|\$(?!__)(\w+)/g,
    (match, braced, bracedFormat, old, oldFormat, bare) => {
      const name = (braced ?? old ?? bare) as string;
      const format = (bracedFormat ?? oldFormat) as string | undefined;
      const variable = variables.get(name);
      if (!variable) throw new ExpansionError(`${match}: no variable ${name} on this dashboard`);
      if (!format || !QUOTING_FORMATS.has(format)) {
        throw new ExpansionError(`${match}: variables enter SQL quoted only; write \${${name}:singlequote}`);
      }
      // An empty selection still has to parse: '' matches nothing, as Grafana's empty value does.
      return variable.values.length === 0 ? "''" : variable.values.map(sqlString).join(',');
    },
  );
}

function expandTimeMacros(sql: string, context: ExpansionContext): string {
  const { from, to } = context.range;
  const seconds = (date: Date) => `toDateTime(${Math.floor(date.getTime() / 1000)})`;
  const millis = (date: Date) => `fromUnixTimestamp64Milli(${date.getTime()})`;
  const day = (date: Date) => `toDate('${date.toISOString().slice(0, 10)}')`;
  const intervalSeconds = Math.max(1, Math.floor(context.intervalMs / 1000));
  const intervalMs = Math.max(1, Math.floor(context.intervalMs));

  const withArgument = (name: string, args: string[], build: (column: string) => string) => {
    if (args.length !== 1 || args[0]!.trim() === '')
      throw new ExpansionError(`$__${name} takes one argument (a column)`);
    return build(args[0]!.trim());
  };
  const macros: Record<string, (args: string[] | undefined) => string> = {
    fromTime: () => seconds(from),
    toTime: () => seconds(to),
    fromTime_ms: () => millis(from),
    toTime_ms: () => millis(to),
    timeFilter: (args) =>
      withArgument('timeFilter', args ?? [], (c) => `${c} >= ${seconds(from)} AND ${c} <= ${seconds(to)}`),
    timeFilter_ms: (args) =>
      withArgument('timeFilter_ms', args ?? [], (c) => `${c} >= ${millis(from)} AND ${c} <= ${millis(to)}`),
    dateFilter: (args) => withArgument('dateFilter', args ?? [], (c) => `${c} >= ${day(from)} AND ${c} <= ${day(to)}`),
    timeInterval: (args) =>
      withArgument(
        'timeInterval',
        args ?? [],
        (c) => `toStartOfInterval(toDateTime(${c}), INTERVAL ${intervalSeconds} second)`,
      ),
    timeInterval_ms: (args) =>
      withArgument(
        'timeInterval_ms',
        args ?? [],
        (c) => `toStartOfInterval(toDateTime64(${c}, 3), INTERVAL ${intervalMs} millisecond)`,
      ),
    interval_s: () => String(intervalSeconds),
    // Grafana's own global variables, interpolated before the query reaches the plugin.
    interval: () => formatInterval(intervalMs),
    interval_ms: () => String(intervalMs),
    from: () => String(from.getTime()),
    to: () => String(to.getTime()),
  };

  let out = '';
  let position = 0;
  for (const match of sql.matchAll(/\$__(\w+)/g)) {
    if (match.index < position) continue; // inside the arguments of a macro already expanded
    const name = match[1]!;
    const expand = macros[name];
    if (!expand) throw new ExpansionError(`$__${name} is not a macro of the ClickHouse data source`);
    const afterName = match.index + match[0].length;
    const hasArguments = sql[afterName] === '(';
    const { args, end } = hasArguments ? macroArguments(sql, afterName) : { args: undefined, end: afterName };
    out += sql.slice(position, match.index) + expand(args);
    position = end;
  }
  return out + sql.slice(position);
}

/** The comma-separated arguments of the parenthesis at `open`, nested parentheses and quotes respected. */
function macroArguments(sql: string, open: number): { args: string[]; end: number } {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < sql.length; i += 1) {
    const char = sql[i]!;
    if (char === "'" || char === '"' || char === '`') {
      i = closingQuote(sql, i);
    } else if (char === '(') {
      depth += 1;
    } else if (char === ')') {
      depth -= 1;
      if (depth === 0) {
        args.push(sql.slice(start, i));
        return { args, end: i + 1 };
      }
    } else if (char === ',' && depth === 1) {
      args.push(sql.slice(start, i));
      start = i + 1;
    }
  }
  throw new ExpansionError(`unclosed parenthesis after ${sql.slice(Math.max(0, open - 20), open + 1)}`);
}

function closingQuote(sql: string, open: number): number {
  const quote = sql[open];
  for (let i = open + 1; i < sql.length; i += 1) {
    if (sql[i] === '\\') i += 1;
    else if (sql[i] === quote) return i;
  }
  throw new ExpansionError(`unclosed quote in ${sql.slice(open, open + 40)}`);
}
