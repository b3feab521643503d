import { renderTable } from '../warehouse/result-table.ts';
import type { ComparisonRow, Status } from './comparison.ts';
import { formatUnits, isoTime } from './explain.ts';
import type { AccountReconciliation } from './reconcile-account.ts';
import type { Reconciliation } from './reconcile.ts';
import { describeRules } from './venue-rules.ts';

export type ReportFormat = 'table' | 'json' | 'csv';

/** Fields that count things rather than money: shown as integers, not units. */
const COUNTS = new Set(['position_count']);

function counts(rows: readonly ComparisonRow[]): Record<Status, number> {
  const out: Record<Status, number> = { ok: 0, different: 0, unproven: 0 };
  for (const row of rows) out[row.status] += 1;
  return out;
}

function amount(row: ComparisonRow, value: bigint): string {
  return COUNTS.has(row.field) ? value.toString() : formatUnits(value);
}

function coverageLine(a: AccountReconciliation): string {
  const c = a.coverage;
  const span = c.firstFillMs === undefined ? '' : ` from ${isoTime(c.firstFillMs)} to ${isoTime(c.lastFillMs!)}`;
  return (
    `  relied on: ${c.fills} fills${span}, ${c.ordersChecked} orders cross-checked, ${c.deposits} deposits, ${c.withdrawals} withdrawals, ` +
    `${c.splits} splits, ${c.merges} merges, ${c.redemptionFrames} redemption frames, ${c.redemptionsByCompletion} redemptions by market completion, ` +
    `${c.lpPayouts} LP payouts, ${c.accountStreamFrames} account-stream frames`
  );
}

/**
 * Text for people: per account what was compared and what it relied on, then every figure that is
 * not ok (amounts in units, exact), with its explanation.
 */
export function renderReport(run: Reconciliation): string {
  const lines = [
    `reconciliation ${run.runId} at ${isoTime(run.reconciledAtMs)} (method ${run.options.method}, tolerance ${run.options.toleranceMicro} micro)`,
    run.options.rules
      ? `venue rules ${describeRules(run.options.rules)}`
      : "venue rules: none given (--venue-rules) — fees are the fills' own; the fee checks and maker rebates are unproven, and cash with them from the first maker fill",
  ];
  for (const a of run.accounts) {
    const n = counts(a.rows);
    lines.push(
      '',
      `account ${a.account}: ${a.rows.length} figures checked — ${n.ok} ok, ${n.different} different, ${n.unproven} unproven`,
    );
    const seen = [
      a.compared.positionsAsOfMs === undefined
        ? 'no positions read'
        : `positions as of ${isoTime(a.compared.positionsAsOfMs)}`,
      a.compared.summaryAsOfMs === undefined ? 'no summary' : `summary as of ${isoTime(a.compared.summaryAsOfMs)}`,
      `${a.compared.buckets} settled-PnL buckets${a.compared.unobservedBucketGaps > 0 ? ` (and ${a.compared.unobservedBucketGaps} span(s) of buckets the venue served unobserved)` : ''}`,
      a.compared.rebatesAtMs === undefined ? 'no rebates read' : `rebates read ${isoTime(a.compared.rebatesAtMs)}`,
    ];
    if (a.window)
      lines.push(
        `  window: ${a.window.fromMs > 0 ? `from ${isoTime(a.window.fromMs)} ` : ''}to ${a.window.end === 'given (--to)' ? `${isoTime(a.window.toMs)} (given)` : a.window.end}`,
      );
    lines.push(`  compared: ${seen.join(', ')}`, coverageLine(a));
    for (const gap of a.coverage.gaps)
      lines.push(`  gap (${gap.input}${gap.tokenId ? ` ${gap.tokenId}` : ''}): ${gap.reason}`);
    lines.push(`  taken on the venue's word: ${a.coverage.fromVenue.join('; ')}`);
    const f = a.ledger.account;
    lines.push(
      `  ledger: cash ${formatUnits(f.cashMicro)}, deposits ${formatUnits(f.depositsMicro)}, realised PnL ${formatUnits(f.realisedPnlMicro)}, fees ${formatUnits(f.feesPaidMicro)}, ` +
        `maker rebates ${formatUnits(f.makerRebatesMicro)}, LP incentives ${formatUnits(f.lpIncentivesMicro)}, redemption payouts ${formatUnits(f.redemptionPayoutsMicro)}; ` +
        `${a.ledger.tokens.filter((t) => t.sharesMicro !== 0n).length} open positions in ${a.ledger.markets.length} markets`,
    );
    const notOk = a.rows.filter((row) => row.status !== 'ok');
    if (notOk.length === 0) continue;
    const table = [
      JSON.stringify(['status', 'scope', 'token_id', 'field', 'ours', 'theirs', 'difference', 'reported_at', 'detail']),
      JSON.stringify(['String', 'String', 'String', 'String', 'Int64', 'Int64', 'Int64', 'String', 'String']),
      ...notOk.map((row) =>
        JSON.stringify([
          row.status,
          row.scope,
          row.tokenId,
          row.field,
          amount(row, row.oursMicro),
          amount(row, row.theirsMicro),
          amount(row, row.differenceMicro),
          isoTime(row.reportedAtMs),
          row.detail,
        ]),
      ),
    ];
    lines.push('', renderTable(table.join('\n')).trimEnd());
  }
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

export function render(run: Reconciliation, format: ReportFormat): string {
  if (format === 'json') return renderJson(run);
  if (format === 'csv') return renderCsv(run);
  return renderReport(run);
}
