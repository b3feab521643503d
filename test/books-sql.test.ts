import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { bookAt } from '../src/capture/index.ts';
import { startLoaders } from '../src/load/index.ts';
import { Prng } from '../src/simulator/prng.ts';
import { createLogger } from '../src/util/log.ts';
import type { QueryRunner } from '../src/warehouse/query-access.ts';
import { SMALL_CATALOGUE, steppedRun } from './capture-helpers.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * sql/0160_book_views.sql: `book_at` and `book_samples` give the book `tapehouse book` gives (its
 * code, `bookAt`), on a capture of the simulator with reconnects, a sequence reset, a resubscribe
 * and anchor snapshots every 5 s, loaded into chDB as the job loads it.
 */

interface Level {
  price_micro: string;
  size_micro: string;
}
interface Book {
  sequence: string;
  bids: Level[];
  asks: Level[];
}

let w: TestWarehouse;
let tokens: string[] = [];
let fromMs = 0;
let toMs = 0;
const log = createLogger('test', 'silent');

/** The warehouse's client as the query runner `tapehouse book` is given. */
function runnerOf(t: TestWarehouse): QueryRunner {
  return {
    via: 'test',
    async run(statement, defaultFormat, params) {
      const result = await t.warehouse.client.query({
        query: statement,
        format: defaultFormat as 'JSONEachRow',
        query_params: params,
      });
      return Buffer.from(await result.text());
    },
    async close() {},
  };
}

async function cliBook(tokenId: string, atMs: number, depth: number): Promise<Book | null> {
  const book = await bookAt(runnerOf(w), tokenId, atMs);
  if (!book) return null;
  const level = (l: { priceMicro: number; sizeMicro: string }) => ({
    price_micro: String(l.priceMicro),
    size_micro: l.sizeMicro,
  });
  const { bids, asks } = book.ladder.levels(depth);
  return { sequence: String(book.sequence), bids: bids.map(level), asks: asks.map(level) };
}

type LevelRow = {
  token_id: string;
  side: string;
  level: number;
  price_micro: string;
  size_micro: string;
  sequence: string;
};

function bookOf(levels: readonly LevelRow[]): Book | null {
  if (levels.length === 0) return null;
  const side = (s: string) =>
    levels
      .filter((l) => l.side === s)
      .sort((a, b) => a.level - b.level)
      .map(({ price_micro, size_micro }) => ({ price_micro, size_micro }));
  return { sequence: levels[0]!.sequence, bids: side('bid'), asks: side('ask') };
}

const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  w = await migratedWarehouse();
  const topics = createTopicCatalogue('books-sql');
  const bus = new EmbeddedBus({ topics: topics.topics });
  const loaders = await startLoaders({
    bus,
    warehouse: w.warehouse,
    group: 'books-sql-load',
    topics: topics.topics.map((t) => t.name),
    batch: { maxDelayMs: 20 },
    log,
  });
  const run = await steppedRun({
    bus,
    topics,
    warmupMs: 5_000,
    simulator: { seed: 36, rate: 40, venue: { catalogue: SMALL_CATALOGUE } },
    capture: { anchorEveryMs: 5_000, streams: { market: true, account: false, portfolio: false } },
  });
  await run.untilCovered();
  fromMs = run.sim.venue.options.clock.now();
  await run.run(6_000);
  run.sim.faults.inject({ kind: 'drop_connection', endpoint: 'market' });
  await run.run(8_000);
  run.sim.faults.inject({ kind: 'sequence_reset', endpoint: 'market', gap_ms: 500 });
  await run.run(8_000);
  run.sim.faults.inject({ kind: 'error_frame', endpoint: 'market', action: 'reconnect' });
  await run.run(8_000);
  run.sim.faults.inject({ kind: 'error_frame', endpoint: 'market', action: 'resubscribe' });
  await run.run(8_000);
  toMs = run.sim.venue.options.clock.now();
  await run.stop();
  expect(await loaders.stop()).toEqual({ unstoredRecords: 0 });
  await bus.close();
  tokens = (
    await rows<{ token_id: string }>(
      w.warehouse.client,
      'SELECT token_id FROM tapehouse.book_changes GROUP BY token_id ORDER BY count() DESC, token_id LIMIT 12',
    )
  ).map((r) => r.token_id);
}, 300_000);

afterAll(async () => {
  await w?.cleanup();
});

describe('books in SQL', () => {
  it('the data crosses reconnects, re-seeds and anchors', async () => {
    const reasons = await rows<{ reason: string }>(
      w.warehouse.client,
      'SELECT DISTINCT reason FROM tapehouse.book_snapshots ORDER BY reason',
    );
    const names = reasons.map((r) => r.reason);
    expect(names).toEqual(expect.arrayContaining(['anchor', 'first_book', 'sequence_reset']));
    expect(names.some((n) => n === 'reconnect' || n === 'connect')).toBe(true);
    const reseeds = await rows<{ n: string }>(
      w.warehouse.client,
      "SELECT count() AS n FROM tapehouse.book_changes WHERE update_kind = 'reseed'",
    );
    expect(Number(reseeds[0]!.n)).toBeGreaterThan(0);
    expect(tokens.length).toBe(12);
  });

  it('book_at equals tapehouse book at 100 random instants', async () => {
    const rng = new Prng(3600);
    let nonEmpty = 0;
    for (let i = 0; i < 100; i++) {
      const tokenId = tokens[rng.int(0, tokens.length - 1)]!;
      const atMs = fromMs + rng.int(0, toMs - fromMs);
      const depth = rng.int(1, 30);
      const expected = await cliBook(tokenId, atMs, depth);
      const levels = await rows<LevelRow>(
        w.warehouse.client,
        `SELECT * FROM tapehouse.book_at(token = '${tokenId}', at = '${iso(atMs)}', depth = ${depth})`,
      );
      // An empty ladder gives no rows; the CLI says the same with no levels.
      const actual = bookOf(levels) ?? (expected && { sequence: expected.sequence, bids: [], asks: [] });
      expect(actual, `${tokenId} at ${iso(atMs)} depth ${depth}`).toEqual(expected);
      if (levels.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(90);
  }, 300_000);

  it('book_samples of every token in one query equals tapehouse book at each sample', async () => {
    const intervalMs = 2_500;
    const sampled = await rows<LevelRow & { sampled_at: string }>(
      w.warehouse.client,
      `SELECT *, toString(toUnixTimestamp64Milli(sampled_at)) AS sampled_at FROM tapehouse.book_samples(token = '', from = '${iso(fromMs)}', to = '${iso(toMs)}', interval_ms = ${intervalMs}, depth = 5)`,
    );
    const byKey = new Map<string, LevelRow[]>();
    for (const r of sampled)
      byKey.set(`${r.token_id}@${r.sampled_at}`, [...(byKey.get(`${r.token_id}@${r.sampled_at}`) ?? []), r]);
    let compared = 0;
    for (const tokenId of tokens.slice(0, 4)) {
      for (let atMs = fromMs; atMs <= toMs; atMs += intervalMs) {
        const expected = await cliBook(tokenId, atMs, 5);
        const actual = bookOf(byKey.get(`${tokenId}@${atMs}`) ?? []);
        expect(actual ?? (expected && { ...expected, bids: [], asks: [] }), `${tokenId} at ${iso(atMs)}`).toEqual(
          expected,
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(50);
    // Every token that has a book, not only those compared.
    expect(new Set(sampled.map((r) => r.token_id)).size).toBeGreaterThan(tokens.length);
  }, 120_000);

  it("sql/README.md's examples run: the spread equals the CLI's, the depth and imbalance add up", async () => {
    const readme = readFileSync(new URL('../sql/README.md', import.meta.url), 'utf8');
    const sections = readme.slice(readme.indexOf('### book_at'), readme.indexOf('### market_lifecycle\n'));
    const statements = [...sections.matchAll(/```sql\n([\s\S]*?)```/g)]
      .flatMap((m) => m[1]!.split(/;\s*\n/))
      .map((sql) => sql.trim())
      .filter((sql) => sql.replace(/--.*$/gm, '').trim() !== '');
    expect(statements.length).toBe(3);
    const tokenId = tokens[0]!;
    const atMs = Math.floor((fromMs + toMs) / 2);
    const fill = (sql: string) =>
      sql
        .replaceAll("'…'", `'${tokenId}'`)
        .replaceAll("'2026-12-02 05:22:42.000'", `'${iso(atMs)}'`)
        .replaceAll("'2026-12-02 05:22:00'", `'${iso(fromMs)}'`)
        .replaceAll("'2026-12-02 05:23:00'", `'${iso(fromMs + 60_000)}'`);
    const [spread, depth, imbalance, depth10] = await Promise.all(
      [...statements, statements[1]!.replace('* 100 <=', '* 10 <=')].map((sql) =>
        rows<Record<string, string | number>>(w.warehouse.client, fill(sql)),
      ),
    );
    const book = (await cliBook(tokenId, atMs, 1000))!;
    expect(Number(spread![0]!.spread_micro)).toBe(
      Number(book.asks[0]!.price_micro) - Number(book.bids[0]!.price_micro),
    );
    const mid2 = Number(book.asks[0]!.price_micro) + Number(book.bids[0]!.price_micro);
    // The same depth within 1 % and, so that some levels count, within 10 %.
    for (const [rowsOf, percent] of [
      [depth!, 100],
      [depth10!, 10],
    ] as const) {
      const within = (levels: Level[]) =>
        levels
          .filter((l) => Math.abs(2 * Number(l.price_micro) - mid2) * percent <= mid2)
          .reduce((sum, l) => sum + BigInt(l.size_micro), 0n);
      const bySide = new Map(rowsOf.map((r) => [r.side, String(r.depth_micro)]));
      expect(bySide.get('bid') ?? '0').toBe(String(within(book.bids)));
      expect(bySide.get('ask') ?? '0').toBe(String(within(book.asks)));
    }
    expect(depth10!.length).toBe(2);
    expect(imbalance!.length).toBeGreaterThan(30);
    for (const r of imbalance!) expect(Math.abs(Number(r.imbalance))).toBeLessThanOrEqual(1);
  });
});
