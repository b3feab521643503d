import { resolve } from 'node:path';
import ts from 'typescript';

/**
 * Checks dashboard JSON against Grafana's own schema as @grafana/schema publishes it (TypeScript
 * types generated from Grafana's CUE kinds): the dashboard model, and each panel's options and
 * field config against its panel plugin's types. The JSON goes in as an object literal, so a
 * misspelt or unknown field and a value outside an enum are errors, as Grafana's validator has them.
 * Targets are checked against the ClickHouse data source's SQL query (its src/types/sql.ts).
 */

const SCHEMA = '@grafana/schema/dist/esm/raw/composable';

const PRELUDE = `
import type { Dashboard, DataQuery, FieldConfig, FieldConfigSource, Panel } from '@grafana/schema';
import type * as TimeSeries from '${SCHEMA}/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';
import type * as Stat from '${SCHEMA}/stat/panelcfg/x/StatPanelCfg_types.gen';
import type * as Table from '${SCHEMA}/table/panelcfg/x/TablePanelCfg_types.gen';
import type * as BarChart from '${SCHEMA}/barchart/panelcfg/x/BarChartPanelCfg_types.gen';
import type * as Candlestick from '${SCHEMA}/candlestick/panelcfg/x/CandlestickPanelCfg_types.gen';
import type * as StateTimeline from '${SCHEMA}/statetimeline/panelcfg/x/StateTimelinePanelCfg_types.gen';

// JSON spells enum members as their values.
type Json<T> = T extends string ? \`\${T}\` : T extends readonly (infer U)[] ? Json<U>[] : T extends object ? { [K in keyof T]: Json<T[K]> } : T;

interface ClickHouseSqlQuery extends DataQuery {
  datasource: { type: 'grafana-clickhouse-datasource'; uid: string };
  editorType: 'sql';
  queryType: 'table' | 'timeseries' | 'logs' | 'traces';
  format: 0 | 1;
  rawSql: string;
  database?: string;
  table?: string;
  meta?: { timezone?: string };
  expand?: boolean;
}

type Fields<Custom> = Omit<FieldConfigSource, 'defaults'> & { defaults: Omit<FieldConfig, 'custom'> & { custom?: Custom } };
type PanelOf<Type extends string, Options, Custom> = Omit<Panel, 'type' | 'options' | 'fieldConfig' | 'targets'> & {
  type: Type;
  options: Json<Options>;
  fieldConfig: Json<Fields<Custom>>;
  targets: ClickHouseSqlQuery[];
};
type TapehousePanel =
  | PanelOf<'timeseries', TimeSeries.Options, TimeSeries.FieldConfig>
  | PanelOf<'stat', Stat.Options, never>
  | PanelOf<'table', Table.Options, Table.FieldConfig>
  | PanelOf<'barchart', BarChart.Options, BarChart.FieldConfig>
  | PanelOf<'candlestick', Candlestick.Options, Candlestick.FieldConfig>
  | PanelOf<'state-timeline', StateTimeline.Options, StateTimeline.FieldConfig>;
type TapehouseDashboard = Json<Omit<Dashboard, 'panels'>> & { panels: TapehousePanel[] };
`;

/** Grafana schema errors of each dashboard, by file name (an empty list when it conforms). */
export function grafanaSchemaErrors(dashboards: ReadonlyArray<{ file: string; json: unknown }>): Map<string, string[]> {
  const root = resolve(import.meta.dirname, '..');
  const sources = new Map(
    dashboards.map(({ file, json }) => [
      resolve(root, 'test', `.schema-check-${file}.ts`),
      `${PRELUDE}\nexport const dashboard = ${JSON.stringify(json, null, 2)} satisfies TapehouseDashboard;\n`,
    ]),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => sources.get(name) ?? readFile(name);
  host.fileExists = (name) => sources.has(name) || ts.sys.fileExists(name);
  host.getSourceFile = (name, language, onError, create) => {
    const text = sources.get(name);
    return text === undefined
      ? getSourceFile(name, language, onError, create)
      : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  const errors = new Map<string, string[]>();
  for (const [index, name] of [...sources.keys()].entries()) {
    const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(name));
    errors.set(
      dashboards[index]!.file,
      diagnostics.map((diagnostic) => {
        const at =
          diagnostic.file && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
            : undefined;
        const where = at ? `line ${at.line + 1 - PRELUDE.split('\n').length - 1}: ` : '';
        return where + ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      }),
    );
  }
  return errors;
}
