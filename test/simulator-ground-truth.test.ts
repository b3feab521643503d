import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readGroundTruth, type GtLevel } from '../src/simulator/ground-truth-reader.ts';
import type { SimulatorHandle } from '../src/simulator/index.ts';
import { api, quietSimulator } from './simulator-helpers.ts';
import { StreamClient, type Frame } from './simulator-stream-helpers.ts';

let sim: SimulatorHandle;
let client: StreamClient;
let dir: string;

afterEach(async () => {
  client.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Level {
  price_micro: string;
  shares_micro: string;
}
type Ladder = { bids: Level[]; asks: Level[] };

/** Books rebuilt from orderbook frames alone: token → sequence → ladder after that frame. */
function replay(frames: Frame[]): Map<string, Map<number, Ladder>> {
  const books = new Map<string, Map<number, Ladder>>();
  const current = new Map<string, { bid: Map<string, string>; ask: Map<string, string> }>();
  for (const f of frames) {
    if (f.type !== 'orderbook') continue;
    const d = f.data as Frame;
    let ladder = current.get(d.token_id);
    if (d.kind === 'delta' && !ladder) throw new Error(`a delta of ${d.token_id} before any snapshot of it`);
    if (d.kind === 'snapshot' || !ladder) {
      ladder = { bid: new Map(), ask: new Map() };
      for (const l of d.bids ?? []) ladder.bid.set(l.price_micro, l.shares_micro);
      for (const l of d.asks ?? []) ladder.ask.set(l.price_micro, l.shares_micro);
      current.set(d.token_id, ladder);
    } else {
      for (const c of d.changes as Array<Level & { side: 'bid' | 'ask' }>) {
        if (c.shares_micro === '0') ladder[c.side].delete(c.price_micro);
        else ladder[c.side].set(c.price_micro, c.shares_micro);
      }
    }
    const sorted = (side: Map<string, string>, desc: boolean): Level[] =>
      [...side]
        .map(([p, s]) => ({ price_micro: p, shares_micro: s }))
        .sort((a, b) => (desc ? 1 : -1) * Number(BigInt(b.price_micro) - BigInt(a.price_micro)));
    const byToken = books.get(d.token_id) ?? new Map<number, Ladder>();
    byToken.set(d.sequence, { bids: sorted(ladder.bid, true), asks: sorted(ladder.ask, false) });
    books.set(d.token_id, byToken);
  }
  return books;
}

const wire = (levels: GtLevel[]): Level[] =>
  levels.map((l) => ({ price_micro: String(l.price_micro), shares_micro: String(l.shares_micro) }));

/**
 * A seeded run with lifecycle and a client subscribed by event to every channel. Every ten seconds
 * of venue time: the REST book of the recently changed tokens, the book replayed from the frames
 * alone at the REST sequence, and the ground-truth book at that sequence must all be equal.
 */
async function run(bookFrames: 'snapshot' | 'delta', minutes: number): Promise<{ compared: number; frames: Frame[] }> {
  dir = mkdtempSync(join(tmpdir(), 'tapehouse-gt-'));
  ({ sim } = await quietSimulator({
    seed: 21,
    rate: 20,
    groundTruth: { dir },
    streams: { bookFrames },
    lifecycle: {
      haltEveryMs: 20_000,
      haltDurationMs: 5_000,
      endEventEveryMs: 30_000,
      proposeAfterMs: 5_000,
      challengeMs: 5_000,
      redeemDelayMs: 2_000,
    },
    venue: { catalogue: { recurringCadenceSeconds: 30 } },
  }));
  client = await StreamClient.connect(sim);
  await client.subscribe(['orderbook', 'trades', 'market_status'], {
    event_ids: sim.venue.catalogue.events.map((e) => e.id),
  });
  const samples: Array<{ tokenId: string; sequence: number; ladder: Ladder }> = [];
  for (let step = 1; step <= minutes * 600; step++) {
    sim.advance(100);
    if (step % 100 !== 0) continue;
    await client.sync();
    const recent = [
      ...new Set(
        client
          .of('orderbook')
          .slice(-200)
          .map((f) => f.data.token_id as string),
      ),
    ].slice(-12);
    for (const tokenId of recent) {
      const rest = (await api(sim, 'GET', `/trade/v1/orderbook/${tokenId}`, { token: sim.demoToken })).json as Frame;
      samples.push({
        tokenId,
        sequence: rest.sequence,
        ladder: { bids: rest.bids as Level[], asks: rest.asks as Level[] },
      });
    }
  }
  // Replayed once at the end: the replay keeps the ladder after every sequence of every token.
  const replayed = replay(client.frames);
  sim.groundTruth?.flush();
  const truth = readGroundTruth(dir);
  for (const { tokenId, sequence, ladder } of samples) {
    expect(replayed.get(tokenId)?.get(sequence), `frames of ${tokenId} at sequence ${sequence}`).toEqual(ladder);
    const book = truth.bookAtSequence(tokenId, sequence);
    expect(
      { bids: wire(book?.bids ?? []), asks: wire(book?.asks ?? []) },
      `ground truth of ${tokenId} at ${sequence}`,
    ).toEqual(ladder);
  }
  return { compared: samples.length, frames: client.frames };
}

describe('ground truth of a seeded run', () => {
  it('books replayed from snapshot frames alone equal the REST book and the ground truth at sampled instants; trades and statuses match', async () => {
    const { compared, frames } = await run('snapshot', 3);
    expect(compared).toBeGreaterThanOrEqual(200);
    await sim.close();
    const truth = readGroundTruth(dir);
    expect(truth.trades.length).toBeGreaterThan(100);
    expect(frames.filter((f) => f.type === 'trades').map((f) => f.data.trade_id)).toEqual(
      truth.trades.map((t) => t.trade_id),
    );
    expect(frames.filter((f) => f.type === 'market_status').map((f) => `${f.data.kind}:${f.data.market_id}`)).toEqual(
      truth.statuses.map((s) => `${s.kind}:${s.market_id}`),
    );
    expect(new Set(truth.statuses.map((s) => s.kind))).toEqual(
      new Set([
        'market_halted',
        'market_resumed',
        'outcome_proposed',
        'market_resolved',
        'current_market_changed',
        'market_resolution_completed',
        ...truth.statuses.filter((s) => s.kind.startsWith('payouts')).map((s) => s.kind),
      ]),
    );
    // Fills: two per public trade (taker and maker), each with the trade's size.
    expect(truth.fills.length).toBe(2 * truth.trades.length);
    // Accounting every 10 s of venue time (and once at close), each balancing the venue to the micro.
    expect(truth.accounting.length).toBeGreaterThanOrEqual(18);
    for (const snapshot of truth.accounting) {
      const sum = (key: 'collateral_micro' | 'deposits_micro'): bigint =>
        snapshot.accounts.reduce((s, a) => s + a[key], 0n);
      const v = snapshot.venue;
      expect(
        sum('collateral_micro') +
          v.escrow_micro +
          v.fee_revenue_micro -
          v.rebates_paid_micro -
          v.lp_incentives_paid_micro,
      ).toBe(sum('deposits_micro'));
    }
    // Three minutes of venue time, stepped: some 25 s of a busy machine's time.
  }, 90_000);

  it('books replayed from delta frames alone equal the REST book at sampled instants', async () => {
    const { compared, frames } = await run('delta', 1);
    expect(compared).toBeGreaterThanOrEqual(60);
    expect(frames.some((f) => f.type === 'orderbook' && f.data.kind === 'delta')).toBe(true);
  });
});
