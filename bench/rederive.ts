/**
 * `npm run bench -- rederive [--rows N]`: what `tapehouse rederive` costs, against two yardsticks
 * measured in the same run on the same rows (trades frames over two months, chDB):
 *  - load:   mapping the records and inserting their rows as the loader's path does (mapDelivery,
 *            insertRows in blocks of 20,000): what storing them took in the first place;
 *  - copy:   the engine copying the table into a twin (`INSERT … SELECT *`): a lower bound on any
 *            rewrite of the table, since rederive reads and writes every row too.
 * Ratios are rederive ÷ yardstick (> 1: rederive is slower).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import { rederiveTable } from '../src/load/rederive/index.ts';
import { migrate } from '../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const total = Number(values.rows);
const dir = mkdtempSync(join(tmpdir(), 'bench-rederive-'));
const warehouse = await openEmbeddedWarehouse(dir);
try {
  await migrate(warehouse.client);
  const start = Date.UTC(2026, 0, 20);
  const month = 31 * 86_400_000;
  const records: ReceivedRecord[] = [];
  for (let i = 0; i < total; i++) {
    const ts = new Date(start + Math.floor((i / total) * 2 * month)).toISOString();
    const data = {
      token_id: `tok-${i % 50}`,
      condition_id: `cond-${i % 25}`,
      market_id: `mkt-${i % 25}`,
      trade_id: `t-${i}`,
      side: i % 2 ? 'BUY' : 'SELL',
      price_micro: String(100_000 + (i % 800_000)),
      shares_micro: String(1_000_000 + i),
      executed_at: ts,
    };
    records.push({
      kind: 'trade',
      key: data.condition_id,
      venueTime: ts,
      receivedAtUs: BigInt(Date.parse(ts)) * 1000n,
      source: { type: 'stream', connection: 'c', frame: i },
      payload: data,
      raw: JSON.stringify({ type: 'trades', seq: i, ts, data }),
    });
  }

  let t = performance.now();
  for (let i = 0; i < records.length; i += 20_000) {
    const rows = records
      .slice(i, i + 20_000)
      .flatMap((record, j) =>
        mapDelivery(
          { offset: BigInt(i + j), ok: true, record },
          { topic: 'bench.trades', partition: 0, group: 'bench' },
        ).map((m) => m.row),
      );
    await warehouse.insertRows('trades', rows);
  }
  const loadMs = performance.now() - t;

  await warehouse.client.command({ query: 'CREATE TABLE tapehouse.trades_twin AS tapehouse.trades' });
  t = performance.now();
  await warehouse.client.command({ query: 'INSERT INTO tapehouse.trades_twin SELECT * FROM tapehouse.trades' });
  const copyMs = performance.now() - t;

  t = performance.now();
  const result = await rederiveTable(warehouse, 'trades');
  const rederiveMs = performance.now() - t;

  const perSecond = (ms: number) => Math.round((total * 1000) / ms).toLocaleString('en');
  process.stdout.write(
    `${total.toLocaleString('en')} trades in ${result.partitionsTotal} partitions; rows ${result.rowsBefore} → ${result.rowsAfter}\n` +
      `rederive  ${rederiveMs.toFixed(0)} ms (${perSecond(rederiveMs)} rows/s)\n` +
      `load      ${loadMs.toFixed(0)} ms (${perSecond(loadMs)} rows/s)   rederive ÷ load = ${(rederiveMs / loadMs).toFixed(2)}\n` +
      `copy      ${copyMs.toFixed(0)} ms (${perSecond(copyMs)} rows/s)   rederive ÷ copy = ${(rederiveMs / copyMs).toFixed(1)}\n`,
  );
} finally {
  await warehouse.close();
  rmSync(dir, { recursive: true, force: true });
}
