/**
 * Log lines for a person at a terminal: `12:01:02 WARN  run: the message  key=value …`, one line
 * each, from the JSON lines pino writes (machines keep JSON: a pipe, a file, or
 * TAPEHOUSE_LOG_FORMAT=json). The fields a reader does not act on (pid, hostname) are left out.
 */
const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const LEFT_OUT = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

function shown(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value !== null && typeof value === 'object' && 'message' in value) return JSON.stringify(value.message);
  return JSON.stringify(value);
}

function clockOf(ms: unknown): string {
  const at = typeof ms === 'number' ? new Date(ms) : new Date();
  return at.toTimeString().slice(0, 8);
}

/** One JSON log line as a person reads it; a line that is not JSON passes as it is. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level);
  const fields = Object.entries(entry)
    .filter(([key]) => !LEFT_OUT.has(key))
    .map(([key, value]) => `${key}=${shown(value)}`);
  const name = typeof entry.name === 'string' ? `${entry.name}: ` : '';
  return `${clockOf(entry.time)} ${level.padEnd(5)} ${name}${String(entry.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
}

/** A pino destination writing `prettyLine`s to stderr (a closed stderr: util/closed-output.ts). */
export function prettyStderr(): { write(line: string): void } {
  return {
    write(line: string) {
      process.stderr.write(prettyLine(line));
    },
  };
}
