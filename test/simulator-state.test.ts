import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTerminal } from '../src/simulator/orders.ts';
import { decodeState, encodeState } from '../src/simulator/state/codec.ts';
import {
  ManualClock,
  SEQUENCE_SPAN,
  startSimulator,
  type SimulatorHandle,
  type SimulatorOptions,
  type Venue,
} from '../src/simulator/index.ts';
import {
  api,
  quietSimulator,
  settle,
  tradingSimulator,
  unbalancedAccounts,
  venueImbalanceMicro,
} from './simulator-helpers.ts';

/**
 * A saved venue is a world that goes on (README, "A world that goes on"): what a restart resumes,
 * and that no id it issues afterwards names something it issued before — after a clean stop, and
 * after a kill that left an older save behind.
 */
const dir = mkdtempSync(join(tmpdir(), 'simulator-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Options of a busy venue: trading, halts, events ending, recurring rolls every 20 s. */
function busy(file: string, clock: ManualClock): SimulatorOptions {
  return {
    seed: 5,
    rate: 20,
    clock,
    lifecycle: {
      haltEveryMs: 10_000,
      haltDurationMs: 5_000,
      endEventEveryMs: 15_000,
      proposeAfterMs: 5_000,
      challengeMs: 5_000,
      redeemDelayMs: 2_000,
    },
    venue: { catalogue: { recurringCadenceSeconds: 20 } },
    state: { file, saveEveryMs: 5_000 },
  };
}

/** Every id the venue issues, with what it names, as the streams and REST would show it. */
function issuedIds(venue: Venue): Map<string, string> {
  const issued = new Map<string, string>();
  const note = (id: string, what: unknown): void => void issued.set(id, text(what));
  venue.events.on('trade', (t) =>
    note(`trade ${t.tradeId}/${t.fillId}`, [t.tokenId, t.side, t.priceMicro, t.sharesMicro, t.executedAtMs]),
  );
  venue.events.on('account', (e) => {
    if (e.kind === 'fill')
      note(`fill ${e.fill.fillId}`, [
        e.fill.tradeId,
        e.fill.orderId,
        e.fill.tokenId,
        e.fill.side,
        e.fill.priceMicro,
        e.fill.sharesMicro,
        e.fill.executedAtMs,
      ]);
    if ('order' in e)
      note(`order ${e.order.id}`, [
        e.order.type,
        e.order.side,
        e.order.tokenId,
        e.order.priceMicro,
        e.order.originalSizeMicro,
        e.order.createdAtMs,
      ]);
  });
  return issued;
}

/** The ids (as `issuedIds` keys) of what the venue holds now: what a resumed venue brings back, and may name again. */
function heldIds(venue: Venue): Set<string> {
  const held = new Set<string>();
  for (const id of venue.exchange.orders.keys()) held.add(`order ${id}`);
  for (const account of venue.accounts.all()) {
    for (const f of account.fills) {
      held.add(`fill ${f.fillId}`);
      held.add(`trade ${f.tradeId}/${f.fillId}`);
      held.add(`trade ${f.tradeId}/undefined`);
    }
  }
  return held;
}

function run(sim: SimulatorHandle, ms: number): void {
  for (let t = 0; t < ms; t += 50) sim.advance(50);
}

/** What a restart must give back whole. */
function worldOf(venue: Venue): Record<string, string> {
  const books = venue.catalogue.markets.map((m) => {
    const book = venue.exchange.book(m);
    return [m.conditionId, book.sequence, book.ladderFor(0), book.restingOrders().map((o) => o.id)];
  });
  const accounts = venue.accounts
    .all()
    .map((a) => [
      a.id,
      a.collateralMicro,
      a.reservedCollateralMicro,
      a.realisedPnlMicro,
      [...a.positions.values()],
      a.orders.map((o) => o.id),
      a.fills.length,
    ]);
  return {
    catalogue: text([venue.catalogue.events, venue.catalogue.markets]),
    books: text(books),
    accounts: text(accounts),
    lifecycle: text(venue.lifecycle?.snapshot().agenda),
  };
}

describe('a saved venue', () => {
  it('goes on after a restart: the same catalogue, books, balances and pending lifecycle; nothing it issues next repeats an id', async () => {
    const file = join(dir, 'restart.json');
    const clock = new ManualClock();
    const first = await startSimulator(busy(file, clock));
    const before = issuedIds(first.venue);
    run(first, 90_000);
    const world = worldOf(first.venue);
    const held = heldIds(first.venue);
    const summary = await api(first, 'GET', '/trade/v1/portfolio/summary', { token: first.demoToken });
    const lastSeq = Math.max(...[...first.venue.exchange.orders.values()].map((o) => o.seq));
    const pendingJobs = first.venue.lifecycle!.snapshot().agenda.length;
    await first.close();

    const second = await startSimulator(busy(file, new ManualClock(clock.now())));
    try {
      expect([second.resumed, second.generation]).toEqual([true, 1]);
      expect(worldOf(second.venue)).toEqual(world);
      expect(pendingJobs).toBeGreaterThan(0);
      // The same demo token reads the same account.
      expect(second.demoToken).toBe(first.demoToken);
      expect((await api(second, 'GET', '/trade/v1/portfolio/summary', { token: second.demoToken })).json).toEqual(
        summary.json,
      );

      const after = issuedIds(second.venue);
      run(second, 60_000);
      expect(after.size).toBeGreaterThan(100);
      // Only what it brought back is named again (orders cancelled or filled now), as the same thing.
      expect([...after.keys()].filter((id) => before.has(id) && !held.has(id))).toEqual([]);
      expect([...after].filter(([id, what]) => before.has(id) && before.get(id) !== what)).toEqual([]);
      // A clean stop left nothing issued after its save: numbering simply goes on.
      const newSeqs = [...second.venue.exchange.orders.values()]
        .filter((o) => !held.has(`order ${o.id}`))
        .map((o) => o.seq);
      expect(Math.min(...newSeqs)).toBe(lastSeq + 1);
      expect(unbalancedAccounts(second.venue)).toEqual([]);
      expect(venueImbalanceMicro(second.venue)).toBe(0n);
      // Jobs scheduled before the restart ran after it.
      expect(second.venue.lifecycle!.snapshot().agenda.every((job) => job.atMs > clock.now())).toBe(true);
    } finally {
      await second.close();
    }
  }, 60_000);

  it('after a kill, goes on from its last save: what it had issued since is forgotten, and never issued again', async () => {
    const file = join(dir, 'killed.json');
    const older = join(dir, 'killed-older.json');
    const clock = new ManualClock();
    const first = await startSimulator(busy(file, clock));
    const issued = issuedIds(first.venue);
    run(first, 30_000);
    await first.saveState();
    // The save a kill leaves behind: the venue goes on issuing ids it will not have saved.
    copyFileSync(file, older);
    const savedOrders = new Set(first.venue.exchange.orders.keys());
    const saved = heldIds(first.venue);
    run(first, 30_000);
    const issuedAfterSave = [...first.venue.exchange.orders.keys()].filter((id) => !savedOrders.has(id));
    expect(issuedAfterSave.length).toBeGreaterThan(100);
    await first.close();

    const second = await startSimulator(busy(older, new ManualClock(clock.now())));
    try {
      expect([second.resumed, second.generation]).toEqual([true, 1]);
      // It is the world of the save: the orders issued after it are not there.
      expect(issuedAfterSave.filter((id) => second.venue.exchange.orders.has(id))).toEqual([]);
      const again = issuedIds(second.venue);
      run(second, 60_000);
      expect(again.size).toBeGreaterThan(100);
      // No id names two things: whatever both runs issued under one id is the same thing.
      const conflicts = [...again].filter(([id, what]) => issued.has(id) && issued.get(id) !== what);
      expect(conflicts).toEqual([]);
      expect([...again.keys()].filter((id) => issued.has(id) && !saved.has(id))).toEqual([]);
      // Numbering starts above anything the killed run could have reached.
      const fresh = [...second.venue.exchange.orders.values()].filter((o) => !savedOrders.has(o.id));
      expect(Math.min(...fresh.map((o) => o.seq))).toBeGreaterThan(SEQUENCE_SPAN);
      const traded = second.venue.catalogue.markets
        .map((m) => second.venue.exchange.book(m))
        .filter((b) => b.restingOrders().length > 0);
      expect(traded.filter((b) => b.sequence <= SEQUENCE_SPAN).map((b) => [b.conditionId, b.sequence])).toEqual([]);
      expect(unbalancedAccounts(second.venue)).toEqual([]);
      expect(venueImbalanceMicro(second.venue)).toBe(0n);
    } finally {
      await second.close();
    }
  }, 60_000);

  it('takes an interface case under way across a restart: a cancelled order whose late fill is reported after it', async () => {
    const file = join(dir, 'late-fill.json');
    const options: SimulatorOptions = { cases: { lateFillShare: 1, lateFillDelayMs: [2_000, 2_000] }, state: { file } };
    const t = await tradingSimulator(options);
    const placed = await api(t.sim, 'POST', '/trade/v1/orders', {
      token: t.alice,
      body: { token_id: t.yes, side: 'BUY', type: 'LIMIT', price_micro: '300000', shares_micro: '10000000' },
    });
    await settle();
    t.clock.advance(1_000);
    await api(t.sim, 'POST', '/trade/v1/orders/cancel-all', { token: t.alice });
    const cutoffMs = t.clock.now();
    await settle();
    await t.sim.close();
    const { sim } = await quietSimulator(options);
    try {
      const read = async () =>
        (await api(sim, 'GET', `/trade/v1/orders/${placed.json.internal_id}`, { token: t.alice })).json;
      expect(await read()).toMatchObject({ status: 'CANCELLED', size_matched_micro: '0' });
      const fills: string[] = [];
      sim.venue.events.on('account', (e) => e.kind === 'fill' && fills.push(e.fill.orderId));
      sim.advance(2_000);
      expect(await read()).toMatchObject({ status: 'MATCHED', size_matched_micro: '10000000' });
      expect(fills).toContain(placed.json.internal_id);
      const [fill] = (await api(sim, 'GET', `/trade/v1/orders/${placed.json.internal_id}/trades`, { token: t.alice }))
        .json.trades;
      expect(Date.parse(fill.executed_at)).toBeLessThanOrEqual(cutoffMs);
    } finally {
      await sim.close();
    }
  });

  it('refuses a state it cannot read, naming the file and what to do, and leaves the file as it was', async () => {
    const newer = join(dir, 'newer.json');
    const content = JSON.stringify({
      format: 'tapehouse-venue-state',
      version: 99,
      generation: 4,
      clean: true,
      strings: [],
      world: {},
    });
    writeFileSync(newer, content);
    await expect(startSimulator({ rate: 0, clock: new ManualClock(), state: { file: newer } })).rejects.toThrow(
      /^venue state .*newer\.json was written by a newer tapehouse \(state version 99; this one reads version 1\): .*move the file away to start a new venue world/,
    );
    expect(readFileSync(newer, 'utf8')).toBe(content);
    const garbage = join(dir, 'garbage.json');
    writeFileSync(garbage, '{"format": "tapehouse-venue-st');
    await expect(startSimulator({ rate: 0, clock: new ManualClock(), state: { file: garbage } })).rejects.toThrow(
      /^venue state .*garbage\.json is not a venue state/,
    );
  });
});

describe("the saved venue's encoding", () => {
  it('gives back every value as it was: bigints, long and short strings, absent fields, tables, nested tables', () => {
    const long = 'a string long enough to be written once: "quoted", \\ and é';
    const rows = Array.from({ length: 2_500 }, (_, i) => ({
      id: `${long} ${i % 3}`,
      n: BigInt(i) * -1_000_000_000_000n,
      at: i,
      maybe: i % 2 ? undefined : { nested: [1n, long, { deep: [long] }] },
      list: Array.from({ length: i % 11 }, (_, k) => ({ k, big: BigInt(k) })),
    }));
    const value = { rows, short: 'x', none: undefined, empty: [], flags: [true, false], zero: 0n };
    let json = '';
    const strings = encodeState(value, (piece) => (json += piece));
    expect(strings.length).toBe(4);
    const back = decodeState(JSON.parse(json), strings);
    const { none: _none, ...expected } = value;
    expect(back).toEqual({
      ...expected,
      rows: rows.map((r) => (r.maybe === undefined ? { id: r.id, n: r.n, at: r.at, list: r.list } : r)),
    });
  });
});

describe("the venue's memory", () => {
  it('holds settled orders, their fills and activities for a window; open orders stay whatever their age, and REST lists stay whole', async () => {
    const clock = new ManualClock();
    const started = clock.now();
    const sim = await startSimulator({
      seed: 8,
      rate: 20,
      clock,
      venue: { retention: { settledMs: 60_000, everyMs: 5_000 } },
    });
    try {
      const venue = sim.venue;
      const held = (): number => venue.exchange.orders.size;
      const fills = (): number => venue.accounts.all().reduce((n, a) => n + a.fills.length, 0);
      run(sim, 120_000);
      const atTwo = { orders: held(), fills: fills() };
      run(sim, 120_000);
      // Two more minutes of trading (some 4,000 orders placed) and the maps hold what they held.
      expect(held()).toBeLessThan(atTwo.orders * 1.2);
      expect(fills()).toBeLessThan(atTwo.fills * 1.2);
      const now = clock.now();
      const orders = [...venue.exchange.orders.values()];
      // Settled ones are at most a window (and one look) old; open ones from the start are still there.
      expect(Math.min(...orders.filter((o) => isTerminal(o.status)).map((o) => o.updatedAtMs))).toBeGreaterThanOrEqual(
        now - 60_000 - 5_000 - 2_000,
      );
      expect(orders.some((o) => o.status === 'LIVE' && o.createdAtMs === started)).toBe(true);
      for (const account of venue.accounts.all()) {
        const fillIds = new Set(account.fills.map((f) => f.fillId));
        for (const order of account.orders) expect(order.fillIds.every((id) => fillIds.has(id))).toBe(true);
        expect(
          account.activities.filter((a) => a.orderId !== undefined).every((a) => venue.exchange.orders.has(a.orderId!)),
        ).toBe(true);
      }
      // The demo account's order list, followed to the end, is what the venue holds.
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await api(sim, 'POST', '/trade/v1/orders/list', {
          token: sim.demoToken,
          body: { limit: 500, ...(cursor ? { cursor } : {}) },
        });
        listed.push(...page.json.orders.map((o: { internal_id: string }) => o.internal_id));
        cursor = page.json.pagination.next_cursor ?? undefined;
      } while (cursor);
      expect(listed.sort()).toEqual(venue.demo.account.orders.map((o) => o.id).sort());
      expect(unbalancedAccounts(venue)).toEqual([]);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('bounds settled orders per account at any rate', async () => {
    const clock = new ManualClock();
    const sim = await startSimulator({
      seed: 8,
      rate: 40,
      clock,
      venue: { retention: { maxSettledPerAccount: 100, everyMs: 1_000 } },
    });
    try {
      run(sim, 60_000);
      for (const account of sim.venue.accounts.all())
        expect(account.orders.filter((o) => isTerminal(o.status)).length).toBeLessThanOrEqual(100 + 80);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
