import type { Command } from 'commander';
import { SettingError } from '../../util/setting-error.ts';
import { addSettings } from '../settings.ts';
import { resolveWarehouse, tellWaiting, WAREHOUSE_SETTINGS } from '../warehouse-option.ts';

/** `tapehouse book TOKEN --at TIME`: the order book of a token as it stood at that instant. */
export function registerBook(program: Command): void {
  const command = program
    .command('book')
    .description("a token's order book at an instant, rebuilt from the stored snapshots and level changes")
    .argument('<token>', 'outcome token id')
    .option('--at <time>', 'ISO 8601 time (UTC), epoch milliseconds, or "now"', 'now')
    .option('--depth <n>', 'levels per side', '10')
    .option('--format <format>', 'table or json', 'table')
    .addHelpText('after', '\nExample:\n  tapehouse book 7193…4410 --at 2026-11-21T16:00:00Z --depth 5');
  addSettings(command, WAREHOUSE_SETTINGS).action(
    async (token: string, options: { at: string; depth: string; format: string; [setting: string]: unknown }) => {
      const atMs = parseInstant(options.at);
      const depth = Number(options.depth);
      if (!Number.isInteger(depth) || depth < 1)
        throw new SettingError(`--depth: ${JSON.stringify(options.depth)} is not a positive whole number`);
      if (options.format !== 'table' && options.format !== 'json') throw new SettingError('--format: table or json');
      const { bookAt } = await import('../../capture/index.ts');
      const { openQueryRunner } = await import('../../warehouse/query-access.ts');
      const runner = await openQueryRunner(resolveWarehouse(options), { onWaiting: tellWaiting });
      try {
        const book = await bookAt(runner, token, atMs);
        if (!book) {
          process.stderr.write(`no stored book of token ${token} at or before ${new Date(atMs).toISOString()}\n`);
          process.exitCode = 1;
          return;
        }
        const { bids, asks } = book.ladder.levels(depth);
        const asOf = new Date(Number(book.atUs / 1000n)).toISOString();
        if (options.format === 'json') {
          const level = (l: { priceMicro: number; sizeMicro: string }) => ({
            price_micro: String(l.priceMicro),
            size_micro: l.sizeMicro,
          });
          process.stdout.write(
            `${JSON.stringify({ token_id: token, at: new Date(atMs).toISOString(), as_of: asOf, sequence: String(book.sequence), bids: bids.map(level), asks: asks.map(level) })}\n`,
          );
          return;
        }
        process.stdout.write(
          `book of ${token} at ${new Date(atMs).toISOString()} (last change ${asOf}, sequence ${book.sequence})\n`,
        );
        process.stdout.write(`${'side'.padEnd(5)}${'price'.padStart(10)}${'size'.padStart(16)}\n`);
        const line = (side: string, l: { priceMicro: number; sizeMicro: string }) =>
          `${side.padEnd(5)}${(l.priceMicro / 1e6).toFixed(6).padStart(10)}${formatShares(l.sizeMicro).padStart(16)}\n`;
        for (const l of [...asks].reverse()) process.stdout.write(line('ask', l));
        for (const l of bids) process.stdout.write(line('bid', l));
      } finally {
        await runner.close();
      }
    },
  );
}

function parseInstant(text: string): number {
  if (text === 'now') return Date.now();
  if (/^\d{10,16}$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new SettingError(`--at: ${JSON.stringify(text)} is not a time (ISO 8601, epoch ms, or now)`);
  return ms;
}

/** Micro-units of shares as a decimal, exactly (no float on the way). */
function formatShares(micro: string): string {
  const padded = micro.padStart(7, '0');
  return `${padded.slice(0, -6)}.${padded.slice(-6)}`;
}
