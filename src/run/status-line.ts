import { increase, sum, type PipelineFigures } from './figures.ts';

/** One line of the main job's state: rates over the last interval, totals, lag, gaps. */
export function formatStatus(before: PipelineFigures, now: PipelineFigures, intervalMs: number): string {
  const perSecond = (n: number) => Math.round((n * 1000) / Math.max(1, intervalMs));
  const rows = Object.entries(now.rowsLoaded)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ');
  return [
    ...troubles(now),
    `frames ${perSecond(sum(increase(before.frames, now.frames)))}/s`,
    `rows ${sum(now.rowsLoaded)}${rows ? ` (${rows}${Object.keys(now.rowsLoaded).length > 4 ? ', …' : ''})` : ''}`,
    `bus lag ${sum(now.lagRecords)}`,
    `open gaps ${now.openGaps}`,
    `reconnects ${sum(now.reconnects)}`,
    `429s ${sum(now.http429)}`,
    `dead letters ${now.deadLetters}`,
  ].join(' · ');
}

/** What is wrong right now leads the line: a figure of 0 next to it would otherwise look fine. */
function troubles(now: PipelineFigures): string[] {
  const out: string[] = [];
  if (now.venueUnreachable)
    out.push(`venue unreachable since ${clockTime(now.venueUnreachable.sinceMs)} (${now.venueUnreachable.reason})`);
  if (now.loaderFailing)
    out.push(`LOADER FAILING since ${clockTime(now.loaderFailing.sinceMs)}: ${now.loaderFailing.reason}`);
  return out;
}

/** 14:03:07 in UTC, as the logs and the warehouse keep time. */
function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/**
 * Shows the status: on a terminal, one line rewritten in place; elsewhere (a pipe, a log file,
 * a service manager) a plain line every `logEveryMs`, so logs stay readable.
 */
export class StatusReporter {
  #last = 0;
  #ended = false;
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly mode: 'line' | 'log' | 'off',
    private readonly logEveryMs = 10_000,
  ) {}

  show(line: string, nowMs: number): void {
    if (this.mode === 'off' || this.#ended) return;
    if (this.mode === 'line' && this.out.isTTY) {
      const width = this.out.columns ?? 120;
      this.out.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
      return;
    }
    if (nowMs - this.#last < this.logEveryMs) return;
    this.#last = nowMs;
    this.out.write(`status: ${line}\n`);
  }

  /** Leaves the terminal on a fresh line (before the job's last words); nothing is shown after. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.mode === 'line' && this.out.isTTY) this.out.write('\n');
  }
}
