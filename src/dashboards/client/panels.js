/* global echarts, document, window */
// Draws one panel's frames the way its Grafana panel type does: time series, bar chart,
// candlestick and state timeline with ECharts; stat and table as plain HTML.
import {
  color,
  displayName,
  fieldConfig,
  formatAxisValue,
  formatTime,
  formatValue,
  mapValue,
  PALETTE,
  thresholdColor,
} from './format.js';

const TEXT = '#ccccdc';
const MUTED = '#8e8e9e';
const GRID_LINE = '#2c3036';

/** Draws `data` ({frames, error, problem}) for `panel` into its body element. */
export function drawPanel(body, panel, data, range) {
  const message = messageOf(data);
  // A stat's "no value" text (Grafana's noValue: "never run", "not running") says what nothing means.
  const noValue = panel.fieldConfig?.defaults?.noValue;
  if (message?.kind === 'empty' && panel.type === 'stat' && noValue)
    return drawHtml(
      body,
      `<div class="stat"><div class="stat-item"><div class="stat-value no-value">${escape(noValue)}</div></div></div>`,
    );
  if (message) return showMessage(body, message.text, message.kind);
  switch (panel.type) {
    case 'stat':
      return drawHtml(body, statHtml(panel, data.frames));
    case 'table':
      return drawHtml(body, tableHtml(panel, data.frames));
    case 'timeseries':
      return drawChart(body, timeSeriesOption(panel, data.frames, range));
    case 'barchart':
      return drawChart(body, barChartOption(panel, data.frames));
    case 'candlestick':
      return drawChart(body, candlestickOption(panel, data.frames, range));
    case 'state-timeline':
      return drawChart(body, stateTimelineOption(panel, data.frames, range));
    default:
      return showMessage(body, `panel type ${panel.type} is not drawn here`, 'problem');
  }
}

function messageOf(data) {
  if (data.error) return { text: data.error, kind: 'error' };
  if (data.problem) return { text: data.problem, kind: 'problem' };
  if (!data.frames.some((frame) => (frame.fields[0]?.values.length ?? 0) > 0))
    return { text: 'No data', kind: 'empty' };
  return undefined;
}

function disposeChart(body) {
  const chart = echarts.getInstanceByDom(body);
  if (chart) chart.dispose();
}

function showMessage(body, text, kind) {
  disposeChart(body);
  body.replaceChildren();
  const element = document.createElement('div');
  element.className = `message ${kind}`;
  element.textContent = text;
  body.append(element);
}

function drawHtml(body, html) {
  disposeChart(body);
  body.innerHTML = html;
}

function drawChart(body, option) {
  if (!echarts.getInstanceByDom(body)) body.replaceChildren();
  const chart = echarts.getInstanceByDom(body) ?? echarts.init(body, null, { renderer: 'canvas' });
  chart.setOption(option, true);
}

export function resizeCharts(root) {
  for (const body of root.querySelectorAll('.panel-body')) echarts.getInstanceByDom(body)?.resize();
}

// --- shared pieces of the chart options ---------------------------------------------------

const escape = (text) => String(text).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const timeField = (frame) => frame.fields.find((field) => field.type === 'time');
const numberFields = (frame) => frame.fields.filter((field) => field.type === 'number');

function baseOption(panel, legend) {
  return {
    backgroundColor: 'transparent',
    useUTC: true,
    animation: false,
    color: PALETTE,
    textStyle: { color: TEXT, fontFamily: 'Inter, Helvetica, Arial, sans-serif' },
    grid: { left: 8, right: 16, top: 12, bottom: legend ? 36 : 8, containLabel: true },
    legend: legend
      ? { bottom: 0, type: 'scroll', textStyle: { color: TEXT }, pageTextStyle: { color: TEXT }, itemHeight: 8 }
      : { show: false },
    tooltip: {
      trigger: 'axis',
      backgroundColor: '#22252b',
      borderColor: '#34373d',
      textStyle: { color: TEXT },
      confine: true,
    },
  };
}

function timeAxis(range, extra = {}) {
  return {
    type: 'time',
    min: range.from,
    max: range.to,
    axisLabel: { color: MUTED, hideOverlap: true },
    axisLine: { lineStyle: { color: '#444' } },
    splitLine: { show: false },
    ...extra,
  };
}

function valueAxis(config, extra = {}) {
  return {
    type: 'value',
    min: config.min,
    max: config.max,
    minInterval: config.decimals === 0 ? 1 : undefined,
    axisLabel: { color: MUTED, formatter: (value) => formatAxisValue(value, config) },
    splitLine: { lineStyle: { color: GRID_LINE } },
    ...extra,
  };
}

function valueTooltip(config) {
  return (value) => formatValue(Array.isArray(value) ? value[value.length - 1] : value, config);
}

// --- time series --------------------------------------------------------------------------

/**
 * A series' points with Grafana's two gap options applied, so a line breaks where Grafana's
 * does: `insertNulls` (ms) adds a null wherever consecutive points, or the range's ends and the
 * points next to them, lie further apart (nullInsertThreshold); `spanNulls` as a number (ms) joins
 * only runs of nulls whose neighbours lie closer than that. ECharts breaks a line at every null
 * left (connectNulls false) and joins missing points, as Grafana does.
 */
function withGaps(points, custom, range) {
  const insert = typeof custom.insertNulls === 'number' && custom.insertNulls > 0 ? custom.insertNulls : 0;
  let out = points;
  if (insert > 0 && points.length > 0) {
    out = [];
    const from = new Date(range.from).getTime();
    if (points[0][0] - from > insert) out.push([from, null]);
    points.forEach((point, index) => {
      if (index > 0 && point[0] - points[index - 1][0] > insert) out.push([points[index - 1][0] + insert, null]);
      out.push(point);
    });
    const to = new Date(range.to).getTime();
    if (to - points[points.length - 1][0] > insert) out.push([to, null]);
  }
  if (typeof custom.spanNulls !== 'number') return out;
  return out.filter((point, index) => {
    if (point[1] !== null) return true;
    const before = out.slice(0, index).findLast((entry) => entry[1] !== null);
    const after = out.slice(index + 1).find((entry) => entry[1] !== null);
    return !before || !after || after[0] - before[0] >= custom.spanNulls;
  });
}

function timeSeriesOption(panel, frames, range) {
  const defaults = fieldConfig(panel, '');
  const custom = defaults.custom ?? {};
  const series = [];
  for (const frame of frames) {
    const time = timeField(frame);
    if (!time) continue;
    const measures = numberFields(frame);
    for (const field of measures) {
      const config = fieldConfig(panel, field.name);
      const bars = (config.custom ?? custom).drawStyle === 'bars';
      const stacked = (config.custom ?? custom).stacking?.mode === 'normal';
      const fill = ((config.custom ?? custom).fillOpacity ?? 0) / 100;
      series.push({
        name: displayName(field, frame.fields),
        type: bars ? 'bar' : 'line',
        data: withGaps(
          time.values.map((at, index) => [at, field.values[index]]),
          config.custom ?? custom,
          range,
        ),
        showSymbol: false,
        connectNulls: (config.custom ?? custom).spanNulls === true,
        step: custom.lineInterpolation === 'stepAfter' ? 'end' : false,
        stack: stacked ? 'A' : undefined,
        barMaxWidth: 24,
        lineStyle: { width: custom.lineWidth ?? 1 },
        areaStyle: !bars && fill > 0 ? { opacity: fill } : undefined,
        itemStyle: bars ? { opacity: Math.max(0.5, fill) } : undefined,
        tooltip: { valueFormatter: valueTooltip(config) },
      });
    }
  }
  const legend = panel.options?.legend?.showLegend !== false;
  return {
    ...baseOption(panel, legend),
    xAxis: timeAxis(range),
    yAxis: valueAxis(defaults, { scale: series.every((entry) => entry.type === 'line') && defaults.min === undefined }),
    series,
  };
}

// --- bar chart (categories) ---------------------------------------------------------------

function barChartOption(panel, frames) {
  const frame = frames.find((entry) => entry.fields[0]?.values.length > 0);
  const xName = panel.options?.xField;
  const category =
    frame.fields.find((field) => field.name === xName) ??
    frame.fields.find((field) => field.type === 'string' || field.type === 'time');
  const measures = numberFields(frame);
  const defaults = fieldConfig(panel, '');
  const horizontal = panel.options?.orientation === 'horizontal';
  const maxLength = panel.options?.xTickLabelMaxLength ?? 40;
  const labels = category.values.map((value) => (category.type === 'time' ? formatTime(value) : String(value)));
  const categoryAxis = {
    type: 'category',
    data: labels,
    inverse: horizontal,
    axisLabel: {
      color: TEXT,
      formatter: (text) => (text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text),
    },
    axisLine: { lineStyle: { color: '#444' } },
  };
  const values = valueAxis(defaults);
  return {
    ...baseOption(panel, measures.length > 1),
    grid: { left: 8, right: 56, top: 8, bottom: measures.length > 1 ? 36 : 8, containLabel: true },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      backgroundColor: '#22252b',
      borderColor: '#34373d',
      textStyle: { color: TEXT },
    },
    xAxis: horizontal ? values : categoryAxis,
    yAxis: horizontal ? categoryAxis : values,
    series: measures.map((field, index) => ({
      name: field.name,
      type: 'bar',
      data: field.values,
      barMaxWidth: 28,
      itemStyle: { color: PALETTE[index % PALETTE.length], borderRadius: 2 },
      label: {
        show: panel.options?.showValue !== 'never',
        position: horizontal ? 'right' : 'top',
        color: TEXT,
        formatter: (item) => formatValue(item.value, fieldConfig(panel, field.name)),
      },
      tooltip: { valueFormatter: valueTooltip(fieldConfig(panel, field.name)) },
    })),
  };
}

// --- candlestick --------------------------------------------------------------------------

function candlestickOption(panel, frames, range) {
  const frame = frames.find((entry) => entry.fields[0]?.values.length > 0);
  const names = {
    open: 'open',
    high: 'high',
    low: 'low',
    close: 'close',
    volume: 'volume',
    ...(panel.options?.fields ?? {}),
  };
  const field = (name) => frame.fields.find((entry) => entry.name === name);
  const time = timeField(frame);
  const [open, high, low, close, volume] = ['open', 'high', 'low', 'close', 'volume'].map((key) => field(names[key]));
  const colors = panel.options?.colors ?? {};
  const up = color(colors.up ?? 'green');
  const down = color(colors.down ?? 'red');
  const config = fieldConfig(panel, '');
  const withVolume = volume && panel.options?.mode !== 'candles';
  const candles = time.values.map((at, index) => [
    at,
    open.values[index],
    close.values[index],
    low.values[index],
    high.values[index],
  ]);
  const option = {
    ...baseOption(panel, false),
    grid: withVolume
      ? [
          { left: 8, right: 16, top: 12, height: '62%', containLabel: true },
          { left: 8, right: 16, top: '76%', bottom: 8, containLabel: true },
        ]
      : [{ left: 8, right: 16, top: 12, bottom: 8, containLabel: true }],
    xAxis: withVolume
      ? [timeAxis(range, { axisLabel: { show: false } }), timeAxis(range, { gridIndex: 1 })]
      : [timeAxis(range)],
    yAxis: withVolume
      ? [valueAxis(config, { scale: true }), valueAxis({}, { gridIndex: 1, splitNumber: 2 })]
      : [valueAxis(config, { scale: true })],
    axisPointer: { link: [{ xAxisIndex: 'all' }] },
    series: [
      {
        name: 'price',
        type: 'candlestick',
        data: candles,
        encode: { x: 0, y: [1, 2, 3, 4] },
        barMaxWidth: 10,
        itemStyle: { color: up, color0: down, borderColor: up, borderColor0: down },
      },
    ],
  };
  if (withVolume) {
    option.series.push({
      name: 'volume',
      type: 'bar',
      xAxisIndex: 1,
      yAxisIndex: 1,
      barMaxWidth: 10,
      data: time.values.map((at, index) => ({
        value: [at, volume.values[index]],
        itemStyle: { color: close.values[index] >= open.values[index] ? up : down, opacity: 0.6 },
      })),
    });
  }
  return option;
}

// --- state timeline -----------------------------------------------------------------------

function stateTimelineOption(panel, frames, range) {
  const rows = [];
  const segments = [];
  for (const frame of frames) {
    const time = timeField(frame);
    if (!time) continue;
    const states = frame.fields.filter((field) => field !== time && field.type !== 'other');
    for (const field of states) {
      const row = rows.push(displayName(field, [field])) - 1;
      const config = fieldConfig(panel, field.name);
      let open;
      const close = (end) => {
        if (open && end > open.start)
          segments.push({ value: [open.start, end, row, open.text], itemStyle: { color: open.color } });
      };
      field.values.forEach((value, index) => {
        if (value === null) return;
        if (open && open.value === value && panel.options?.mergeValues !== false) return;
        close(time.values[index]);
        const mapped = mapValue(config, value);
        const colorOf = mapped?.color ?? PALETTE[Math.abs(hash(String(value))) % PALETTE.length];
        open = { start: time.values[index], value, text: mapped?.text ?? String(value), color: colorOf };
      });
      close(range.to);
    }
  }
  return {
    ...baseOption(panel, false),
    tooltip: {
      trigger: 'item',
      backgroundColor: '#22252b',
      borderColor: '#34373d',
      textStyle: { color: TEXT },
      formatter: (item) =>
        `${escape(rows[item.value[2]])}<br><b>${escape(item.value[3])}</b><br>${formatTime(item.value[0])} → ${formatTime(item.value[1])}`,
    },
    grid: { left: 8, right: 16, top: 8, bottom: 8, containLabel: true },
    xAxis: timeAxis(range),
    yAxis: {
      type: 'category',
      data: rows,
      inverse: true,
      axisLabel: { color: TEXT },
      axisLine: { show: false },
      axisTick: { show: false },
    },
    series: [{ type: 'custom', renderItem: renderSegment, encode: { x: [0, 1], y: 2 }, data: segments }],
  };
}

function renderSegment(params, api) {
  const from = api.coord([api.value(0), api.value(2)]);
  const to = api.coord([api.value(1), api.value(2)]);
  const height = api.size([0, 1])[1] * 0.8;
  const shape = echarts.graphic.clipRectByRect(
    { x: from[0], y: from[1] - height / 2, width: Math.max(1, to[0] - from[0]), height },
    { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height },
  );
  if (!shape) return undefined;
  const label = shape.width > 48 ? api.value(3) : '';
  return {
    type: 'rect',
    shape,
    style: api.style(),
    textContent: {
      style: {
        text: label,
        fill: '#111217',
        fontSize: 11,
        fontWeight: 500,
        overflow: 'truncate',
        width: shape.width - 8,
      },
    },
    textConfig: { position: 'inside' },
  };
}

function hash(text) {
  let value = 0;
  for (const char of text) value = (value * 31 + char.charCodeAt(0)) | 0;
  return value;
}

// --- stat ---------------------------------------------------------------------------------

function statHtml(panel, frames) {
  const frame = frames.find((entry) => entry.fields[0]?.values.length > 0);
  const measures = numberFields(frame);
  const showNames = panel.options?.textMode === 'value_and_name' || measures.length > 1;
  const items = measures.map((field) => {
    const config = fieldConfig(panel, field.name);
    const value = [...field.values].reverse().find((entry) => entry !== null && entry !== undefined);
    const tint = config.color?.mode === 'fixed' ? color(config.color.fixedColor) : thresholdColor(config, value);
    const name = showNames ? `<div class="stat-name">${escape(field.name.replace(/_/g, ' '))}</div>` : '';
    return `<div class="stat-item">${name}<div class="stat-value" style="color:${escape(tint)}">${escape(formatValue(value ?? null, config) || '–')}</div></div>`;
  });
  return `<div class="stat ${showNames ? 'named' : ''}" style="--items:${measures.length}">${items.join('')}</div>`;
}

// --- table --------------------------------------------------------------------------------

function tableHtml(panel, frames) {
  const frame = frames[panel.options?.frameIndex ?? 0] ?? frames[0];
  const fields = frame.fields;
  const rows = fields[0]?.values.length ?? 0;
  const configs = fields.map((field) => fieldConfig(panel, field.name));
  const cell = (field, config, index) => {
    const value = field.values[index];
    const text = field.type === 'time' ? formatTime(value) : formatValue(value, config);
    return `<td class="${field.type}">${escape(text)}</td>`;
  };
  const head = fields
    .map((field) => `<th class="${field.type}">${escape(field.name.replace(/_/g, ' '))}</th>`)
    .join('');
  const body = [];
  for (let index = 0; index < rows; index += 1) {
    body.push(`<tr>${fields.map((field, column) => cell(field, configs[column], index)).join('')}</tr>`);
  }
  return `<div class="table-scroll"><table><thead><tr>${head}</tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

window.addEventListener('resize', () => resizeCharts(document));
