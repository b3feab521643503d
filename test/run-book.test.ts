import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';

/** `tapehouse book`: the ladder at an instant from a stored snapshot and the changes after it. */
const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-book-'));
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
const provenance = (offset: number, atMs: number) => ({
  _topic: 'tapehouse.market.books',
  _partition: 0,
  _offset: offset,
  _received_at: new Date(atMs),
});

beforeAll(async () => {
  const warehouse = await openEmbeddedWarehouse(dataDir);
  await migrate(warehouse.client);
  await warehouse.insertRows('book_snapshots', [
    {
      token_id: 'tok',
      snapshot_at: new Date(T0),
      sequence: 10,
      source: 'ws:orderbook',
      reason: 'connect',
      bid_prices_micro: ['480000', '470000'],
      bid_sizes_micro: ['100000000', '5000000'],
      ask_prices_micro: ['520000'],
      ask_sizes_micro: ['7000000'],
      ...provenance(1, T0),
    },
  ]);
  const change = (offset: number, seconds: number, sequence: number, side: string, price: string, size: string) => ({
    token_id: 'tok',
    side,
    price_micro: price,
    size_micro: size,
    changed_at: new Date(T0 + seconds * 1000),
    sequence,
    update_kind: 'snapshot',
    ...provenance(offset, T0 + seconds * 1000),
  });
  await warehouse.insertRows('book_changes', [
    change(2, 5, 11, 'BID', '480000', '0'), // best bid lifted
    change(2, 5, 11, 'ASK', '510000', '3000000'), // a better ask
    change(3, 20, 12, 'BID', '490000', '1000000'),
  ]);
  await warehouse.close();
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function book(at: string): { bids: unknown[]; asks: unknown[]; sequence: string } {
  const run = spawnSync(
    process.execPath,
    [join(root, 'bin/tapehouse.js'), 'book', 'tok', '--data-dir', dataDir, '--at', at, '--format', 'json'],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

describe('tapehouse book', () => {
  it('gives the snapshot as stored at its instant, and the changes applied after it', () => {
    expect(book(new Date(T0 + 1000).toISOString())).toMatchObject({
      sequence: '10',
      bids: [
        { price_micro: '480000', size_micro: '100000000' },
        { price_micro: '470000', size_micro: '5000000' },
      ],
      asks: [{ price_micro: '520000', size_micro: '7000000' }],
    });
    expect(book(new Date(T0 + 10_000).toISOString())).toMatchObject({
      sequence: '11',
      bids: [{ price_micro: '470000', size_micro: '5000000' }],
      asks: [
        { price_micro: '510000', size_micro: '3000000' },
        { price_micro: '520000', size_micro: '7000000' },
      ],
    });
    expect(book(String(T0 + 60_000)).bids).toEqual([
      { price_micro: '490000', size_micro: '1000000' },
      { price_micro: '470000', size_micro: '5000000' },
    ]);
  });

  it('says so when no book was stored before the instant, and takes a token id only as a bound value', () => {
    const before = spawnSync(
      process.execPath,
      [join(root, 'bin/tapehouse.js'), 'book', 'tok', '--data-dir', dataDir, '--at', new Date(T0 - 1000).toISOString()],
      { encoding: 'utf8' },
    );
    expect(before.status).toBe(1);
    expect(before.stderr).toContain('no stored book of token tok');
    const hostile = spawnSync(
      process.execPath,
      [join(root, 'bin/tapehouse.js'), 'book', "tok' OR 1=1 --", '--data-dir', dataDir],
      { encoding: 'utf8' },
    );
    expect(hostile.status).toBe(1);
    expect(hostile.stderr).toContain("no stored book of token tok' OR 1=1 --");
  });
});
