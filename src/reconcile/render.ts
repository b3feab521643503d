import type { ComparisonRow, Status } from './comparison.ts';
import { formatUnits, isoTime } from './explain.ts';
import type { AccountReconciliation } from './reconcile-account.ts';
import type { Reconciliation } from './reconcile.ts';
import { describeRules } from './venue-rules.ts';

export type ReportFormat = 'table' | 'json' | 'csv';

/** Fields that count things rather than money: shown as integers, not units. */
const COUNTS = new Set(['position_count']);

/** The width a person reads the report at: no line of the table format is wider. */
export const REPORT_WIDTH = 80;

export interface ReportOptions {
  /** Every figure that is not ok, and what each account relied on (default: the summary). */
  details?: boolean;
}

function counts(rows: readonly ComparisonRow[]): Record<Status, number> {
  const out: Record<Status, number> = { ok: 0, different: 0, unproven: 0 };
  for (const row of rows) out[row.status] += 1;
  return out;
}

/** A field printed in units loses its `_micro`: the name says what the number is. */
function printedField(field: string): string {
  return COUNTS.has(field) ? field : field.replace(/_micro$/, '');
}

function amount(row: ComparisonRow, value: bigint): string {
  return COUNTS.has(row.field) ? value.toString() : formatUnits(value);
}

/** Words wrapped to the report's width; following lines indented by `indent` (the first by `first`). */
export function wrap(text: string, first = '', indent = first, width = REPORT_WIDTH): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const lead = lines.length === 0 ? first : indent;
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else {
      line = empty ? `${lead}${word}` : `${line} ${word}`;
    }
    empty = false;
    // A word longer than the width (an id, a hash) is cut, so no line is wider.
    while (line.length > width) {
      lines.push(line.slice(0, width));
      line = `${indent}${line.slice(width)}`;
    }
  }
  if (!empty) lines.push(line);
  return lines;
}

/** What a run without --venue-rules cannot prove, and how to prove it: the report's first lines. */
export function withoutRulesNotice(): string[] {
  return [
    'fees and maker rebates unproven: add --venue-rules simulator (built-in venue)',
    ...wrap(
      "or --venue-rules FILE for another venue's schedule (src/reconcile/README.md); without it cash is unproven from the first maker fill",
      '  ',
    ),
  ];
}

function coverageText(a: AccountReconciliation): string {
  const c = a.coverage;
  const span = c.firstFillMs === undefined ? '' : ` from ${isoTime(c.firstFillMs)} to ${isoTime(c.lastFillMs!)}`;
  return (
    `relied on: ${c.fills} fills${span}, ${c.ordersChecked} orders cross-checked, ${c.deposits} deposits, ${c.withdrawals} withdrawals, ` +
    `${c.splits} splits, ${c.merges} merges, ${c.redemptionFrames} redemption frames, ${c.redemptionsByCompletion} redemptions by market completion, ` +
    `${c.lpPayouts} LP payouts, ${c.accountStreamFrames} account-stream frames`
  );
}

function comparedText(a: AccountReconciliation): string {
  const seen = [
    a.compared.positionsAsOfMs === undefined
      ? 'no positions read'
      : `positions as of ${isoTime(a.compared.positionsAsOfMs)}`,
    a.compared.summaryAsOfMs === undefined ? 'no summary' : `summary as of ${isoTime(a.compared.summaryAsOfMs)}`,
    `${a.compared.buckets} settled-PnL buckets${a.compared.unobservedBucketGaps > 0 ? ` (and ${a.compared.unobservedBucketGaps} span(s) of buckets the venue served unobserved)` : ''}`,
    a.compared.rebatesAtMs === undefined ? 'no rebates read' : `rebates read ${isoTime(a.compared.rebatesAtMs)}`,
  ];
  return `compared: ${seen.join(', ')}`;
}

function ledgerText(a: AccountReconciliation): string {
  const f = a.ledger.account;
  return (
    `ledger (units): cash ${formatUnits(f.cashMicro)}, deposits ${formatUnits(f.depositsMicro)}, realised PnL ${formatUnits(f.realisedPnlMicro)}, fees ${formatUnits(f.feesPaidMicro)}, ` +
    `maker rebates ${formatUnits(f.makerRebatesMicro)}, LP incentives ${formatUnits(f.lpIncentivesMicro)}, redemption payouts ${formatUnits(f.redemptionPayoutsMicro)}; ` +
    `${a.ledger.tokens.filter((t) => t.sharesMicro !== 0n).length} open positions in ${a.ledger.markets.length} markets`
  );
}

/** Per scope: ok, different, unproven — a table of 4 narrow columns. */
function scopeTable(rows: readonly ComparisonRow[]): string[] {
  const byScope = new Map<string, Record<Status, number>>();
  for (const row of rows) {
    const n = byScope.get(row.scope) ?? { ok: 0, different: 0, unproven: 0 };
    n[row.status] += 1;
    byScope.set(row.scope, n);
  }
  const line = (scope: string, ok: string, different: string, unproven: string) =>
    `  ${scope.padEnd(12)} ${ok.padStart(8)} ${different.padStart(10)} ${unproven.padStart(9)}`;
  return [
    line('scope', 'ok', 'different', 'unproven'),
    ...[...byScope].map(([scope, n]) => line(scope, `${n.ok}`, `${n.different}`, `${n.unproven}`)),
  ];
}

/** Why figures are unproven, most frequent first: the reason of each (its gaps), counted. */
function unprovenReasons(rows: readonly ComparisonRow[]): Array<[string, number]> {
  const reasons = new Map<string, number>();
  for (const row of rows) {
    if (row.status !== 'unproven') continue;
    const reason = row.detail.split(' — ')[0]!.replace(/^unproven: /, '');
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  return [...reasons].sort((a, b) => b[1] - a[1]);
}

/** One figure that is not ok, as a short block: what, ours/theirs/difference in units, when, why. */
function figureBlock(row: ComparisonRow): string[] {
  const what = [row.status, row.scope, row.tokenId, printedField(row.field)].filter((p) => p !== '').join(' ');
  const numbers = `ours ${amount(row, row.oursMicro)}, theirs ${amount(row, row.theirsMicro)}, difference ${amount(row, row.differenceMicro)}${COUNTS.has(row.field) ? '' : ' (units)'}; reported ${isoTime(row.reportedAtMs)}`;
  return [...wrap(what), ...wrap(numbers, '  '), ...(row.detail ? wrap(row.detail, '  ') : [])];
}

const MOST_REASONS = 3;

/**
 * Text for people, no line wider than 80 columns. Without --venue-rules its first line says what
 * cannot be proven and how to prove it. Per account: the counts, a table per scope, why figures
 * are unproven, the ledger's totals; with `details`, also what was compared and relied on, the
 * gaps, and every figure that is not ok (amounts in units, exact).
 */
export function renderReport(run: Reconciliation, options: ReportOptions = {}): string {
  const lines = [
    ...(run.options.rules ? [] : withoutRulesNotice()),
    ...wrap(
      `reconciliation ${run.runId} at ${isoTime(run.reconciledAtMs)}, method ${run.options.method}, tolerance ${run.options.toleranceMicro} micro-units`,
    ),
    ...(run.options.rules ? wrap(`venue rules ${describeRules(run.options.rules)}`) : []),
  ];
  for (const a of run.accounts) {
    const n = counts(a.rows);
    lines.push(
      '',
      ...wrap(
        `account ${a.account}: ${a.rows.length} figures — ${n.ok} ok, ${n.different} different, ${n.unproven} unproven`,
      ),
    );
    if (a.window)
      lines.push(
        ...wrap(
          `window: ${a.window.fromMs > 0 ? `from ${isoTime(a.window.fromMs)} ` : ''}to ${a.window.end === 'given (--to)' ? `${isoTime(a.window.toMs)} (given)` : a.window.end}`,
          '  ',
          '    ',
        ),
      );
    if (a.rows.length > 0) lines.push(...scopeTable(a.rows));
    const reasons = unprovenReasons(a.rows);
    const shown = options.details ? reasons : reasons.slice(0, MOST_REASONS);
    for (const [reason, count] of shown) lines.push(...wrap(`${count} unproven: ${reason}`, '  ', '    '));
    if (shown.length < reasons.length) lines.push(`  … and ${reasons.length - shown.length} more reasons (--details)`);
    lines.push(...wrap(ledgerText(a), '  ', '    '));
    if (!options.details) continue;
    lines.push(...wrap(comparedText(a), '  ', '    '), ...wrap(coverageText(a), '  ', '    '));
    for (const gap of a.coverage.gaps)
      lines.push(...wrap(`gap (${gap.input}${gap.tokenId ? ` ${gap.tokenId}` : ''}): ${gap.reason}`, '  ', '    '));
    lines.push(...wrap(`taken on the venue's word: ${a.coverage.fromVenue.join('; ')}`, '  ', '    '));
    for (const row of a.rows.filter((r) => r.status !== 'ok')) lines.push('', ...figureBlock(row));
  }
  const notOk = run.accounts.some((a) => a.rows.some((r) => r.status !== 'ok'));
  if (!options.details && notOk)
    lines.push('', '--details: every figure that is not ok and why; --format json: the whole run');
  return `${lines.join('\n')}\n`;
}

/** bigints as decimal strings, infinities as null: JSON a reader can parse without losing a micro. */
function jsonValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return value;
}

/** The whole run as one JSON document: rows, coverage and the rebuilt ledger (fills named by id only). */
export function renderJson(run: Reconciliation): string {
  const accounts = run.accounts.map((a) => ({
    account: a.account,
    counts: counts(a.rows),
    compared: a.compared,
    window: a.window,
    coverage: a.coverage,
    ledger: {
      account: a.ledger.account,
      markets: a.ledger.markets,
      tokens: a.ledger.tokens.map(({ fills, ...t }) => ({ ...t, fill_ids: fills.map((f) => f.fillId) })),
    },
    rows: a.rows,
  }));
  return `${JSON.stringify({ run_id: run.runId, reconciled_at: isoTime(run.reconciledAtMs), options: run.options, accounts }, jsonValue)}\n`;
}

const CSV_COLUMNS = [
  'run_id',
  'account',
  'scope',
  'token_id',
  'condition_id',
  'field',
  'ours_micro',
  'theirs_micro',
  'difference_micro',
  'status',
  'reported_at',
  'detail',
];

function csvCell(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line per figure compared (ok included), amounts in micro-units. */
export function renderCsv(run: Reconciliation): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const a of run.accounts) {
    for (const row of a.rows) {
      lines.push(
        [
          run.runId,
          a.account,
          row.scope,
          row.tokenId,
          row.conditionId,
          row.field,
          row.oursMicro.toString(),
          row.theirsMicro.toString(),
          row.differenceMicro.toString(),
          row.status,
          isoTime(row.reportedAtMs),
          row.detail,
        ]
          .map(csvCell)
          .join(','),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export function render(run: Reconciliation, format: ReportFormat, options: ReportOptions = {}): string {
  if (format === 'json') return renderJson(run);
  if (format === 'csv') return renderCsv(run);
  return renderReport(run, options);
}
