const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration with its unit: `250ms`, `30s`, `1.5m`, `2h` (milliseconds, rounded). A bare number
 * is refused: `--duration` once read it as seconds and `--interval` as milliseconds, so `30`
 * meant either; the unit says which. Zero (`0s`) is a duration; whoever needs a positive one says
 * so. Throws with the tail of a sentence ("is …"), which the caller prefixes with the setting.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed))
    throw new Error('is a bare number: add its unit (ms, s, m or h, e.g. 250ms, 30s, 10m, 2h)');
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(trimmed);
  if (!match) throw new Error('is not a duration (e.g. 250ms, 30s, 10m, 2h)');
  return Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
}
