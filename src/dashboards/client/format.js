// Display helpers shared by the panels: Grafana's field config (units, decimals, colors,
// overrides, value mappings) read the way Grafana reads it, for the subset the dashboards use.

/** Grafana's classic palette, in order. */
export const PALETTE = [
  '#73BF69',
  '#F2CC0C',
  '#8AB8FF',
  '#FF780A',
  '#F2495C',
  '#5794F2',
  '#B877D9',
  '#705DA0',
  '#37872D',
  '#FADE2A',
  '#447EBC',
  '#C15C17',
];

const NAMED = {
  green: '#73BF69',
  'semi-dark-green': '#37872D',
  red: '#F2495C',
  'semi-dark-red': '#C4162A',
  orange: '#FF9830',
  yellow: '#FADE2A',
  blue: '#5794F2',
  'light-blue': '#8AB8FF',
  'semi-dark-blue': '#3274D9',
  purple: '#B877D9',
  gray: '#8E8E8E',
  grey: '#8E8E8E',
  transparent: 'transparent',
  text: '#CCCCDC',
};

export function color(name, fallback = PALETTE[0]) {
  if (!name) return fallback;
  return NAMED[name] ?? name;
}

/** The field config in force for a field: the panel's defaults, then overrides matching its name. */
export function fieldConfig(panel, fieldName) {
  const source = panel.fieldConfig ?? {};
  const config = { ...(source.defaults ?? {}) };
  for (const override of source.overrides ?? []) {
    if (override.matcher?.id !== 'byName' || override.matcher.options !== fieldName) continue;
    for (const property of override.properties ?? []) config[property.id] = property.value;
  }
  return config;
}

const SUFFIXES = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
];

function fixed(value, decimals) {
  if (decimals !== undefined && decimals !== null) return value.toFixed(decimals);
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs === 0 || abs >= 100 ? 0 : abs >= 1 ? 2 : 3;
  return value.toFixed(digits);
}

/**
 * A value axis's tick: the panel's unit with as many decimals as the tick needs, trailing zeros
 * cut. A panel's `decimals: 0` is for its values, not its ticks: 2500 with no decimals reads "2K"
 * next to 2000, so an axis read "3K, 2K, 2K, 1K"; here it reads "3K, 2.5K, 2K, 1.5K".
 */
export function formatAxisValue(value, config = {}) {
  const text = formatValue(value, { ...config, decimals: undefined });
  return text.replace(/(\.\d*?)0+(?=[^\d.]*$)/, '$1').replace(/\.(?=[^\d]*$)/, '');
}

function short(value, decimals) {
  for (const [size, suffix] of SUFFIXES) {
    if (Math.abs(value) >= size) return `${fixed(value / size, decimals ?? 2)}${suffix}`;
  }
  return fixed(value, decimals);
}

export function formatTime(ms) {
  if (ms === null || ms === undefined) return '';
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.000Z$|Z$/, '');
}

/** A value as Grafana shows it for the units the dashboards use. */
export function formatValue(value, config = {}) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value !== 'number') return String(value);
  const { unit, decimals } = config;
  switch (unit) {
    case 'currencyUSD': {
      const text = Math.abs(value) >= 1e4 ? short(Math.abs(value), decimals ?? 1) : fixed(Math.abs(value), decimals);
      return `${value < 0 ? '-' : ''}$${text}`;
    }
    case 'percentunit':
      return `${fixed(value * 100, decimals ?? 1)}%`;
    case 'percent':
      return `${fixed(value, decimals ?? 1)}%`;
    case 'ms':
      return Math.abs(value) >= 1000 ? `${fixed(value / 1000, decimals ?? 1)} s` : `${fixed(value, decimals ?? 0)} ms`;
    case 's':
      return `${fixed(value, decimals)} s`;
    case 'none':
      return fixed(value, decimals);
    default:
      return short(value, decimals);
  }
}

/** The text and color a value mapping gives a value, if any. */
export function mapValue(config, value) {
  for (const mapping of config.mappings ?? []) {
    if (mapping.type !== 'value') continue;
    const hit = mapping.options?.[String(value)];
    if (hit) return { text: hit.text ?? String(value), color: hit.color ? color(hit.color) : undefined };
  }
  return undefined;
}

/** The color thresholds give a value (absolute mode). */
export function thresholdColor(config, value) {
  const steps = config.thresholds?.steps ?? [];
  let chosen = steps[0]?.color;
  for (const step of steps)
    if (step.value !== null && typeof value === 'number' && value >= step.value) chosen = step.color;
  return color(chosen);
}

/**
 * A series' name: its labels' values when it was widened from a long frame (with the column's
 * name too when the frame widened several columns), else the column's name.
 */
export function displayName(field, fields) {
  const labels = Object.values(field.labels ?? {});
  if (labels.length === 0) return field.name;
  const columns = new Set(fields.filter((entry) => entry.type === 'number').map((entry) => entry.name));
  return columns.size > 1 ? `${field.name} ${labels.join(' ')}` : labels.join(' ');
}
