import type { Command } from 'commander';
import type { ExportFormat } from '../../export/index.ts';
import { parseDuration } from '../../util/duration.ts';
import { SettingError } from '../../util/setting-error.ts';
import { addSettings } from '../settings.ts';
import { resolveWarehouse, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

interface ExportFlags {
  from: string;
  to: string;
  out: string;
  format: string;
  tokens?: string;
  snapshotInterval: string;
  snapshotDepth: string;
  [setting: string]: unknown;
}

/** `tapehouse export`: the history by day and table, to Parquet or CSV.gz files with a manifest. */
export function registerExport(program: Command): void {
  const command = program
    .command('export')
    .description('the history by day and table to Parquet (or CSV.gz) files, with a manifest (src/export/README.md)')
    .requiredOption('--from <time>', 'start, inclusive (ISO 8601, UTC)')
    .requiredOption('--to <time>', 'end, exclusive (ISO 8601, UTC)')
    .requiredOption('--out <dir>', 'output folder: <day>/<table>.parquet and manifest.json')
    .option('--format <format>', 'parquet or csv.gz', 'parquet')
    .option('--tokens <ids>', 'only these tokens (comma-separated) in the tables that have tokens')
    .option('--snapshot-interval <time>', 'book snapshots every …', '1m')
    .option('--snapshot-depth <n>', 'levels per side in the book snapshots', '25')
    .addHelpText(
      'after',
      '\nExample:\n  tapehouse export --from 2026-12-01 --to 2026-12-02 --out ./history\nA finished day is not written again: run it again after a cut to resume.',
    );
  addSettings(command, WAREHOUSE_SETTINGS).action(async (flags: ExportFlags) => {
    const { exportHistory, ExportRefused } = await import('../../export/index.ts');
    const { openQueryRunner } = await import('../../warehouse/query-access.ts');
    const { ProgressBar } = await import('../progress-bar.ts');
    const fromMs = instant('--from', flags.from);
    const toMs = instant('--to', flags.to);
    if (flags.format !== 'parquet' && flags.format !== 'csv.gz') throw new SettingError('--format: parquet or csv.gz');
    const snapshotIntervalMs = durationOf('--snapshot-interval', flags.snapshotInterval);
    if (!Number.isInteger(snapshotIntervalMs) || snapshotIntervalMs < 1 || snapshotIntervalMs > 4_294_967_295)
      throw new SettingError('--snapshot-interval: a whole number of milliseconds, at least 1ms');
    const snapshotDepth = Number(flags.snapshotDepth);
    if (!Number.isInteger(snapshotDepth) || snapshotDepth < 1)
      throw new SettingError(`--snapshot-depth: ${JSON.stringify(flags.snapshotDepth)} is not a positive whole number`);
    const tokens = (flags.tokens ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const runner = await openQueryRunner(resolveWarehouse(flags));
    const bar = new ProgressBar();
    try {
      const summary = await exportHistory({
        runner,
        out: flags.out,
        fromMs,
        toMs,
        format: flags.format as ExportFormat,
        tokens,
        snapshotIntervalMs,
        snapshotDepth,
        onProgress: (done, total, what) => bar.update('export', done, total, what),
      });
      bar.end();
      process.stdout.write(
        `exported ${summary.days} day${summary.days === 1 ? '' : 's'} to ${flags.out}: ${summary.written} files written, ${summary.skipped} already there\n`,
      );
    } catch (err) {
      bar.end();
      if (err instanceof ExportRefused) throw new SettingError(err.message);
      throw err;
    } finally {
      await runner.close();
    }
  });
}

function instant(flag: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (Number.isNaN(ms)) throw new SettingError(`${flag}: ${JSON.stringify(text)} is not a time (ISO 8601, UTC)`);
  return ms;
}

function durationOf(flag: string, text: string): number {
  try {
    return parseDuration(text);
  } catch (err) {
    throw new SettingError(`${flag}: ${JSON.stringify(text)} ${(err as Error).message}`);
  }
}
