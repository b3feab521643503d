/** Time ranges as Grafana writes them ("now-6h" … "now", or absolute times) and its query interval. */

export interface TimeRange {
  from: Date;
  to: Date;
}

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  M: 30 * 86_400_000,
  y: 365 * 86_400_000,
};

/** The longest range a page may ask for: bounds the work one refresh can cause. */
export const MAX_RANGE_MS = 400 * 86_400_000;

/** `now`, `now-15m`, `now-7d`, an ISO time, or epoch milliseconds (as a string or number). */
export function parseTimePoint(text: string | number, now: Date): Date {
  if (typeof text === 'number' || /^\d{10,}$/.test(text)) return new Date(Number(text));
  const relative = /^now(?:-(\d+)([smhdwMy]))?$/.exec(text);
  if (relative) {
    const [, amount, unit] = relative;
    return new Date(now.getTime() - (amount ? Number(amount) * UNIT_MS[unit!]! : 0));
  }
  const absolute = new Date(text);
  if (Number.isNaN(absolute.getTime()))
    throw new RangeError(`not a time: ${JSON.stringify(text)} (use now-6h, an ISO time or epoch ms)`);
  return absolute;
}

export function parseTimeRange(from: string | number, to: string | number, now = new Date()): TimeRange {
  const range = { from: parseTimePoint(from, now), to: parseTimePoint(to, now) };
  if (range.from.getTime() >= range.to.getTime()) throw new RangeError('the time range must end after it starts');
  if (range.to.getTime() - range.from.getTime() > MAX_RANGE_MS)
    throw new RangeError('the time range is longer than 400 days');
  return range;
}

/** "1m" → 60000; undefined for anything that is not a Grafana interval. */
export function intervalToMs(text: string | undefined): number | undefined {
  const match = /^(\d+)(ms|[smhdwMy])$/.exec(text ?? '');
  if (!match) return undefined;
  return Number(match[1]) * (match[2] === 'ms' ? 1 : UNIT_MS[match[2]!]!);
}

/**
 * Grafana's roundInterval (packages/grafana-data/src/datetime/rangeutil.ts): the raw interval goes
 * to the step whose band holds it, the bands meeting halfway between steps (7.2 s → 5 s, 7.5 s →
 * 10 s). [upper end of the band (exclusive), step], in milliseconds.
 */
const ROUNDING: ReadonlyArray<readonly [number, number]> = [
  [10, 1],
  [15, 10],
  [35, 20],
  [75, 50],
  [150, 100],
  [350, 200],
  [750, 500],
  [1_500, 1_000],
  [3_500, 2_000],
  [7_500, 5_000],
  [12_500, 10_000],
  [17_500, 15_000],
  [25_000, 20_000],
  [45_000, 30_000],
  [90_000, 60_000],
  [210_000, 120_000],
  [450_000, 300_000],
  [750_000, 600_000],
  [1_050_000, 900_000],
  [1_500_000, 1_200_000],
  [2_700_000, 1_800_000],
  [5_400_000, 3_600_000],
  [9_000_000, 7_200_000],
  [16_200_000, 10_800_000],
  [32_400_000, 21_600_000],
  [86_400_000, 43_200_000],
  [604_800_000, 86_400_000],
  [1_814_400_000, 604_800_000],
  [3_628_800_000, 2_592_000_000],
];

export function roundInterval(intervalMs: number): number {
  return ROUNDING.find(([below]) => intervalMs < below)?.[1] ?? 31_536_000_000;
}

/**
 * The `$__interval` of a panel as Grafana computes it (rangeutil.calculateInterval): the range over
 * the data points, rounded, and never below the panel's minimum interval (1 ms without one).
 */
export function queryIntervalMs(range: TimeRange, maxDataPoints: number, minIntervalMs = 1): number {
  const rounded = roundInterval((range.to.getTime() - range.from.getTime()) / maxDataPoints);
  return Math.max(rounded, minIntervalMs);
}

/** 60000 → "1m": `$__interval` as Grafana writes it (rangeutil.secondsToHms: the largest whole unit). */
export function formatInterval(ms: number): string {
  const seconds = ms / 1000;
  const units: Array<[string, number]> = [
    ['y', 31_536_000],
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  let rest = seconds;
  for (const [unit, size] of units) {
    const whole = Math.floor(rest / size);
    if (whole > 0) return `${whole}${unit}`;
    rest %= size;
  }
  const millis = Math.floor(seconds * 1000);
  return millis > 0 ? `${millis}ms` : 'less than a millisecond';
}
