import type { DashboardPanel } from './dashboard-model.ts';
import type { Field, FieldType, Frame } from './frames.ts';

/**
 * The columns each panel type needs to draw anything, as Grafana's panels read them. The
 * viewer shows a panel's mismatch instead of an empty chart, and the tests require none.
 */

/** Panel types both viewers draw. */
export const PANEL_TYPES = ['timeseries', 'barchart', 'candlestick', 'state-timeline', 'stat', 'table'] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

export function isPanelType(type: string): type is PanelType {
  return (PANEL_TYPES as readonly string[]).includes(type);
}

const has = (fields: Field[], ...types: FieldType[]) => fields.some((field) => types.includes(field.type));

/** The candlestick panel's price fields: its `fields` option, else fields named open/high/low/close. */
export function candleFieldNames(panel: DashboardPanel): Record<'open' | 'high' | 'low' | 'close', string> {
  const mapped = (panel.options.fields ?? {}) as Partial<Record<string, string>>;
  return {
    open: mapped.open ?? 'open',
    high: mapped.high ?? 'high',
    low: mapped.low ?? 'low',
    close: mapped.close ?? 'close',
  };
}

/** What is missing for `panel` to draw `frame`, or undefined when it fits. */
export function shapeProblem(panel: DashboardPanel, frame: Frame): string | undefined {
  const { fields } = frame;
  switch (panel.type) {
    case 'timeseries':
      if (!has(fields, 'time')) return 'a time series needs a time column';
      if (!has(fields, 'number')) return 'a time series needs a number column';
      return undefined;
    case 'barchart':
      if (!has(fields, 'string', 'time')) return 'a bar chart needs a string (or time) column for its x axis';
      if (!has(fields, 'number')) return 'a bar chart needs a number column';
      return undefined;
    case 'candlestick': {
      if (!has(fields, 'time')) return 'candles need a time column';
      const missing = Object.values(candleFieldNames(panel)).filter(
        (name) => !fields.some((field) => field.name === name && field.type === 'number'),
      );
      return missing.length > 0 ? `candles need number columns ${missing.join(', ')}` : undefined;
    }
    case 'state-timeline':
      if (!has(fields, 'time')) return 'a state timeline needs a time column';
      if (!has(fields, 'string', 'number', 'boolean')) return 'a state timeline needs a state column';
      return undefined;
    case 'stat':
      return has(fields, 'number') ? undefined : 'a stat needs a number column';
    case 'table':
      return fields.length > 0 ? undefined : 'a table needs a column';
    default:
      return `panel type ${panel.type} is not drawn by the built-in viewer (${PANEL_TYPES.join(', ')})`;
  }
}
