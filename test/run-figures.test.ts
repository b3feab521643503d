import { describe, expect, it } from 'vitest';
import { emptyFigures, type PipelineFigures } from '../src/run/figures.ts';
import { PipelineMetrics } from '../src/run/metrics.ts';
import { healthRows } from '../src/run/pipeline-health.ts';
import { formatStatus, StatusReporter } from '../src/run/status-line.ts';

function figures(overrides: Partial<PipelineFigures>): PipelineFigures {
  return { ...emptyFigures(), ...overrides };
}

const first = figures({
  frames: { market: 100 },
  rowsLoaded: { trades: 10 },
  lagRecords: { 'tapehouse.market.trades': 5 },
  http429: { sync: 1 },
});
const second = figures({
  frames: { market: 300, account: 7 },
  reconnects: { market: 1 },
  rowsLoaded: { trades: 25, book_changes: 400 },
  lagRecords: { 'tapehouse.market.trades': 2 },
  http429: { sync: 1 },
  deadLetters: 2,
  openGaps: 1,
  cursorLoops: { 'GET /trade/v1/portfolio/activities': 1 },
});

describe('pipeline figures', () => {
  it('stores counters as increases and gauges as values in pipeline_health rows', () => {
    const rows = healthRows(first, second, Date.UTC(2026, 0, 1), 2000);
    const pick = (metric: string, subject: string) =>
      rows.find((r) => r.metric === metric && r.subject === subject)?.value;
    expect(pick('frames', 'market')).toBe(200);
    expect(pick('frames', 'account')).toBe(7);
    expect(pick('reconnects', 'market')).toBe(1);
    expect(pick('rows', 'book_changes')).toBe(400);
    expect(pick('http_429', 'sync')).toBe(0);
    expect(pick('lag_records', 'tapehouse.market.trades')).toBe(2);
    expect(pick('dead_letters', 'all')).toBe(2);
    expect(pick('open_gaps', 'all')).toBe(1);
    expect(pick('cursor_loops', 'GET /trade/v1/portfolio/activities')).toBe(1);
    expect(rows.every((r) => r.interval_ms === 2000 && (r.sampled_at as Date).getTime() === Date.UTC(2026, 0, 1))).toBe(
      true,
    );
  });

  it('exports the same figures in the Prometheus format, counters monotonic across updates', async () => {
    const metrics = new PipelineMetrics();
    metrics.update(first);
    metrics.update(second);
    const text = await metrics.text();
    expect(text).toContain('tapehouse_frames_total{stream="market"} 300');
    expect(text).toContain('tapehouse_rows_loaded_total{table="book_changes"} 400');
    expect(text).toContain('tapehouse_bus_lag_records{topic="tapehouse.market.trades"} 2');
    expect(text).toContain('tapehouse_dead_letters_total 2');
    expect(text).toContain('tapehouse_open_gaps 1');
    expect(text).toContain('tapehouse_cursor_loops_total{endpoint="GET /trade/v1/portfolio/activities"} 1');
  });

  it('says rates, totals, lag and gaps on one line', () => {
    expect(formatStatus(first, second, 2000)).toBe(
      'frames 104/s · rows 425 (book_changes 400, trades 25) · bus lag 2 · open gaps 1 · reconnects 1 · 429s 1 · dead letters 2',
    );
  });

  it('writes plain periodic lines when the output is not a terminal', () => {
    const written: string[] = [];
    const out = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    const reporter = new StatusReporter(out, 'line', 10_000);
    reporter.show('a', 10_000);
    reporter.show('b', 15_000);
    reporter.show('c', 20_000);
    expect(written).toEqual(['status: a\n', 'status: c\n']);
    // Once the job says it is stopping, no status line comes between its last words.
    reporter.end();
    reporter.show('d', 40_000);
    expect(written).toEqual(['status: a\n', 'status: c\n']);
  });
});
