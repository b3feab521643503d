/* global document, window, URLSearchParams, history, Option */
// A dashboard page: lays out the panels as Grafana's 24-column grid, asks the server for the
// variables and every panel's data (the server runs the dashboard's own queries; the page only
// sends a time range and the variables' selections), and refreshes every few seconds.
import { drawPanel, resizeCharts } from './panels.js';

const ALL = '$__all';
const RANGES = [
  ['now-15m', 'Last 15 minutes'],
  ['now-1h', 'Last hour'],
  ['now-3h', 'Last 3 hours'],
  ['now-6h', 'Last 6 hours'],
  ['now-24h', 'Last 24 hours'],
  ['now-7d', 'Last 7 days'],
];
const REFRESHES = [
  [0, 'Off'],
  [5000, '5s'],
  [10000, '10s'],
  [30000, '30s'],
  [60000, '1m'],
];
const ROW_HEIGHT = 30;
const FITTED = 'fitted';

const body = document.body;
const base = body.dataset.base ?? '';
const uid = body.dataset.uid;

// fit: the range is the dashboard's default (not chosen here or in the URL), so the server starts
// it where the data starts: a first run's minutes fill the charts instead of their last pixels.
const state = { from: 'now-6h', to: 'now', refreshMs: 5000, variables: {}, fit: true };
let dashboard;
let timer;
let inFlight = false;
let pending = false;

function readUrl() {
  const params = new URLSearchParams(window.location.search);
  state.fit = !params.has('from') && !params.has('to');
  state.from = params.get('from') ?? dashboard.time?.from ?? state.from;
  state.to = params.get('to') ?? dashboard.time?.to ?? state.to;
  const refresh = params.get('refresh') ?? dashboard.refresh;
  state.refreshMs = refresh === undefined ? state.refreshMs : parseRefresh(refresh);
  for (const [key, value] of params) {
    if (!key.startsWith('var-')) continue;
    const name = key.slice(4);
    (state.variables[name] ??= []).push(value);
  }
}

function parseRefresh(text) {
  const match = /^(\d+)(s|m)$/.exec(text);
  return match ? Number(match[1]) * (match[2] === 'm' ? 60000 : 1000) : 0;
}

function writeUrl() {
  const params = new URLSearchParams(state.fit ? {} : { from: state.from, to: state.to });
  params.set('refresh', state.refreshMs ? `${state.refreshMs / 1000}s` : 'off');
  for (const [name, values] of Object.entries(state.variables))
    for (const value of values) params.append(`var-${name}`, value);
  history.replaceState(null, '', `${window.location.pathname}?${params}`);
}

function layout() {
  const grid = document.getElementById('grid');
  for (const panel of dashboard.panels) {
    const element = document.createElement('section');
    element.className = `panel panel-${panel.type}`;
    element.dataset.panelId = String(panel.id);
    const { x, y, w, h } = panel.gridPos;
    element.style.gridColumn = `${x + 1} / span ${w}`;
    element.style.gridRow = `${y + 1} / span ${h}`;
    const title = document.createElement('h2');
    title.textContent = panel.title;
    if (panel.description) title.title = panel.description;
    const content = document.createElement('div');
    content.className = 'panel-body';
    content.append(
      Object.assign(document.createElement('div'), { className: 'message empty', textContent: 'Loading…' }),
    );
    element.append(title, content);
    grid.append(element);
  }
  grid.style.gridAutoRows = `${ROW_HEIGHT}px`;
}

function controls() {
  const box = document.getElementById('controls');
  // A default range fitted to the data is named as the status names it, not "Last 6 hours".
  const ranges = state.fit ? [[FITTED, 'Since the data starts'], ...RANGES] : RANGES;
  const rangeSelect = select(ranges, state.fit ? FITTED : state.to === 'now' ? state.from : '', (value) => {
    if (value === FITTED) return;
    state.from = value;
    state.to = 'now';
    state.fit = false;
    refreshNow();
  });
  const refreshSelect = select(REFRESHES, state.refreshMs, (value) => {
    state.refreshMs = Number(value);
    refreshNow();
  });
  const status = Object.assign(document.createElement('span'), { id: 'status' });
  box.replaceChildren(labelled('Time range', rangeSelect), labelled('Refresh', refreshSelect), status);
}

function select(entries, current, onChange) {
  const element = document.createElement('select');
  for (const [value, text] of entries)
    element.append(new Option(text, String(value), false, String(value) === String(current)));
  element.addEventListener('change', () => onChange(element.value));
  return element;
}

function labelled(text, control) {
  const label = document.createElement('label');
  label.append(Object.assign(document.createElement('span'), { textContent: text }), control);
  return label;
}

/** Selects for the variables the server resolved; multi-value ones as a checkbox list. */
function drawVariables(variables) {
  const box = document.getElementById('variables');
  const open = box.querySelector('details[open]')?.dataset.name;
  box.replaceChildren();
  for (const variable of variables.filter((entry) => !entry.hidden)) {
    const options = variable.includeAll ? [{ value: ALL, text: 'All' }, ...variable.options] : variable.options;
    const control = variable.multi
      ? checkboxList(variable, options, open === variable.name)
      : select(
          options.map((o) => [o.value, o.text]),
          variable.selected[0],
          (value) => choose(variable.name, [value]),
        );
    control.dataset.name = variable.name;
    box.append(labelled(variable.label, control));
  }
}

function checkboxList(variable, options, isOpen) {
  const details = document.createElement('details');
  details.open = isOpen;
  const chosen = options.filter((option) => variable.selected.includes(option.value)).map((option) => option.text);
  details.append(Object.assign(document.createElement('summary'), { textContent: chosen.join(' + ') || 'None' }));
  const list = document.createElement('div');
  list.className = 'checkboxes';
  for (const option of options) {
    const box = Object.assign(document.createElement('input'), {
      type: 'checkbox',
      value: option.value,
      checked: variable.selected.includes(option.value),
    });
    box.addEventListener('change', () => {
      const ticked = [...list.querySelectorAll('input:checked')].map((input) => input.value);
      const all = option.value === ALL && box.checked;
      choose(variable.name, all ? [ALL] : ticked.filter((value) => value !== ALL));
    });
    const label = document.createElement('label');
    label.append(box, document.createTextNode(option.text));
    list.append(label);
  }
  details.append(list);
  return details;
}

function choose(name, values) {
  state.variables[name] = values;
  refreshNow();
}

function refreshNow() {
  writeUrl();
  window.clearTimeout(timer);
  if (inFlight) pending = true;
  else void refresh();
}

async function refresh() {
  inFlight = true;
  const status = document.getElementById('status');
  try {
    const response = await fetch(`${base}/api/dashboards/${encodeURIComponent(uid)}/data`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: state.from, to: state.to, variables: state.variables, fit: state.fit }),
    });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error ?? response.statusText);
    // The server may have replaced a selection the variable no longer offers.
    for (const variable of data.variables) state.variables[variable.name] = variable.selected;
    drawVariables(data.variables);
    for (const panel of dashboard.panels) {
      const element = document.querySelector(`[data-panel-id="${panel.id}"] .panel-body`);
      drawPanel(element, panel, data.panels[panel.id] ?? { frames: [] }, data.range);
    }
    const fitted = data.range.fitted
      ? ` · since the data starts, ${new Date(data.range.from).toISOString().slice(0, 16).replace('T', ' ')} UTC`
      : '';
    status.textContent = `updated ${new Date().toISOString().slice(11, 19)} UTC${fitted}`;
    status.className = '';
    body.dataset.refreshes = String(Number(body.dataset.refreshes ?? 0) + 1);
  } catch (err) {
    status.textContent = `refresh failed: ${err.message}`;
    status.className = 'failed';
  } finally {
    inFlight = false;
    if (pending) {
      pending = false;
      void refresh();
    } else if (state.refreshMs > 0) {
      timer = window.setTimeout(refresh, state.refreshMs);
    }
  }
}

async function start() {
  const response = await fetch(`${base}/api/dashboards/${encodeURIComponent(uid)}`);
  dashboard = await response.json();
  readUrl();
  layout();
  controls();
  window.addEventListener('resize', () => resizeCharts(document));
  await refresh();
}

void start();
