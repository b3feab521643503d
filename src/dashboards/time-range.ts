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
  if (Number.isNaN(absolute.getTime())) throw new RangeError(`not a time: ${JSON.stringify(text)} (use now-6h, an ISO time or epoch ms)`);
  return absolute;
}

export function parseTimeRange(from: string | number, to: string | number, now = new Date()): TimeRange {
  const range = { from: parseTimePoint(from, now), to: parseTimePoint(to, now) };
  if (range.from.getTime() >= range.to.getTime()) throw new RangeError('the time range must end after it starts');
  if (range.to.getTime() - range.from.getTime() > MAX_RANGE_MS) throw new RangeError('the time range is longer than 400 days');
  return range;
}

/** "1m" → 60000; undefined for anything that is not a Grafana interval. */
export function intervalToMs(text: string | undefined): number | undefined {
  const match = /^(\d+)(ms|[smhdwMy])$/.exec(text ?? '');
  if (!match) return undefined;
  return Number(match[1]) * (match[2] === 'ms' ? 1 : UNIT_MS[match[2]!]!);
}

// Grafana rounds the raw interval (range / data points) to one of these steps.
const STEPS_MS = [
  10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_200_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 604_800_000,
  2_592_000_000, 31_536_000_000,
];

/** The `$__interval` of a panel: range over data points, rounded to a step, at least `minIntervalMs`. */
export function queryIntervalMs(range: TimeRange, maxDataPoints: number, minIntervalMs = 0): number {
  const raw = (range.to.getTime() - range.from.getTime()) / Math.max(1, maxDataPoints);
  const rounded = STEPS_MS.find((step) => step >= raw) ?? STEPS_MS.at(-1)!;
  return Math.max(rounded, minIntervalMs, 1);
}

/** 60000 → "1m", as Grafana spells `$__interval`. */
export function formatInterval(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1_000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
