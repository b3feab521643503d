import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../src/simulator/index.ts';
import { api, settle, tradableMarket, tradingSimulator, type TradingSetup } from './simulator-helpers.ts';
import { StreamClient, type Frame } from './simulator-stream-helpers.ts';

let t: TradingSetup;
const clients: StreamClient[] = [];

async function setup(options: SimulatorOptions = {}): Promise<void> {
  t = await tradingSimulator(options);
}

async function connect(): Promise<StreamClient> {
  const client = await StreamClient.connect(t.sim);
  clients.push(client);
  return client;
}

async function limit(as: string, token: string, side: 'BUY' | 'SELL', cents: number, shares: number): Promise<void> {
  const res = await api(t.sim, 'POST', '/trade/v1/orders', {
    token: as,
    body: {
      token_id: token,
      side,
      type: 'LIMIT',
      price_micro: String(cents * 10_000),
      shares_micro: String(shares * 1_000_000),
    },
  });
  expect(res.status).toBe(202);
  await settle();
}

async function restBook(token: string): Promise<Frame> {
  return (await api(t.sim, 'GET', `/trade/v1/orderbook/${token}`, { token: t.alice })).json as Frame;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await t.sim.close();
});

describe('market stream: subscriptions and book frames', () => {
  beforeEach(() => setup());

  it('acknowledges a subscription with the instant coverage starts, then sends the current book of each covered token', async () => {
    await limit(t.alice, t.yes, 'BUY', 40, 10);
    const client = await connect();
    const ack = await client.subscribe(['orderbook'], { condition_ids: [t.market.conditionId] });
    expect(ack).toMatchObject({ type: 'subscribed', seq: 1, ts: new Date(t.clock.now()).toISOString() });
    expect(ack.data).toMatchObject({
      as_of: ack.ts,
      connection_id: expect.any(String),
      channels: ['orderbook'],
      condition_ids: [t.market.conditionId],
    });
    expect(ack.data.subjects).toEqual([{ channel: 'orderbook', condition_id: t.market.conditionId }]);
    await client.sync();
    const initial = client.of('orderbook', 'snapshot');
    expect(initial.map((f) => f.data.token_id).sort()).toEqual([t.yes, t.no].sort());
    const rest = await restBook(t.yes);
    expect(initial.find((f) => f.data.token_id === t.yes)?.data).toMatchObject({
      initial: true,
      sequence: rest.sequence,
      bids: rest.bids,
      asks: rest.asks,
      market_id: t.market.id,
    });
  });

  it('sends a replacement snapshot for every change of a subscribed book, and nothing for other books', async () => {
    const other = tradableMarket(t.sim, 1);
    const client = await connect();
    await client.subscribe(['orderbook'], { token_ids: [t.yes] });
    await limit(t.alice, t.yes, 'BUY', 40, 10);
    await limit(t.alice, other.outcomes[0].tokenId, 'BUY', 40, 10);
    await limit(t.bob, t.no, 'BUY', 55, 5);
    await client.sync();
    const snapshots = client.of('orderbook').filter((f) => !f.data.initial);
    expect(new Set(snapshots.map((f) => f.data.token_id))).toEqual(new Set([t.yes]));
    expect(snapshots.map((f) => f.data.kind)).toEqual(['snapshot', 'snapshot']);
    const sequences = snapshots.map((f) => f.data.sequence as number);
    expect(sequences).toEqual([sequences[0], (sequences[0] as number) + 1]);
    const rest = await restBook(t.yes);
    expect(snapshots.at(-1)?.data).toMatchObject({ sequence: rest.sequence, bids: rest.bids, asks: rest.asks });
    expect(rest.asks).toEqual([{ price_micro: '450000', shares_micro: '5000000' }]);
  });

  it('numbers the frames of a connection from 1 without a gap, whatever their channel, and counts them as sent', async () => {
    const client = await connect();
    await client.subscribe(['orderbook', 'best_quote', 'trades'], { condition_ids: [t.market.conditionId] });
    await limit(t.alice, t.yes, 'BUY', 40, 10);
    await limit(t.bob, t.no, 'BUY', 60, 4);
    await client.sync();
    expect(client.frames.map((f) => f.seq)).toEqual(client.frames.map((_, i) => i + 1));
    // The venue-wide tally a stepped test compares with what its client received (test/capture-helpers.ts).
    expect(t.sim.streams.sent.count).toBe(client.raw.length);
  });

  it('sends best_quote when the top of a book moves, not when depth below it changes', async () => {
    const client = await connect();
    await client.subscribe(['best_quote'], { token_ids: [t.yes] });
    await limit(t.alice, t.yes, 'BUY', 40, 10);
    await limit(t.alice, t.yes, 'BUY', 39, 10);
    await limit(t.alice, t.yes, 'BUY', 41, 10);
    await client.sync();
    const quotes = client.of('best_quote');
    expect(quotes.map((f) => [f.data.best_bid_micro, f.data.best_ask_micro])).toEqual([
      [null, null],
      ['400000', null],
      ['410000', null],
    ]);
  });

  it('sends each public trade once to a connection covering either token, the condition or the event', async () => {
    const byToken = await connect();
    await byToken.subscribe(['trades'], { token_ids: [t.no] });
    const overlapping = await connect();
    await overlapping.subscribe(['trades'], {
      token_ids: [t.yes, t.no],
      condition_ids: [t.market.conditionId],
      event_ids: [t.market.eventId],
    });
    const elsewhere = await connect();
    await elsewhere.subscribe(['trades'], { token_ids: [tradableMarket(t.sim, 1).outcomes[0].tokenId] });
    await limit(t.alice, t.no, 'BUY', 40, 10);
    await limit(t.bob, t.yes, 'BUY', 60, 4);
    for (const c of [byToken, overlapping, elsewhere]) await c.sync();
    const expected = {
      kind: 'trade',
      token_id: t.yes,
      condition_id: t.market.conditionId,
      market_id: t.market.id,
      side: 'BUY',
      price_micro: '600000',
      shares_micro: '4000000',
    };
    expect(byToken.of('trades').map((f) => f.data)).toEqual([expect.objectContaining(expected)]);
    expect(overlapping.of('trades')).toHaveLength(1);
    expect(elsewhere.of('trades')).toHaveLength(0);
  });

  it('stops a channel on unsubscribe and says what was removed', async () => {
    const client = await connect();
    await client.subscribe(['orderbook', 'trades'], { token_ids: [t.yes] });
    const ack = await client.subscribe(['orderbook'], { token_ids: [t.yes] }, 'unsubscribe');
    expect(ack.data.subjects).toEqual([{ channel: 'orderbook', token_id: t.yes }]);
    await limit(t.alice, t.yes, 'BUY', 40, 10);
    await limit(t.bob, t.no, 'BUY', 60, 2);
    await client.sync();
    const afterAck = client.frames.filter((f) => f.seq > ack.seq);
    expect(afterAck.filter((f) => f.type === 'orderbook')).toHaveLength(0);
    expect(afterAck.filter((f) => f.type === 'trades')).toHaveLength(1);
  });

  it('answers bad messages with error frames that carry a failure object and action keep, and keeps the connection', async () => {
    const client = await connect();
    client.send('{not json');
    client.send({ op: 'subscribe', channels: ['candles'], token_ids: [t.yes] });
    client.send({ op: 'subscribe', id: 7, channels: ['market_status'], token_ids: [t.yes] });
    client.send({ op: 'subscribe', id: 8, channels: ['trades'], token_ids: [t.yes, '123'] });
    await client.sync();
    const errors = client.of('error');
    expect(errors.map((f) => [f.data.failure.code, f.data.action])).toEqual([
      ['malformed_json', 'keep'],
      ['validation_failed', 'keep'],
      ['validation_failed', 'keep'],
      ['token_not_found', 'keep'],
    ]);
    expect(errors[0]?.data.failure).toEqual({
      code: 'malformed_json',
      title: expect.any(String),
      detail: expect.any(String),
      recovery: { strategy: 'none' },
    });
    expect(errors[3]?.data).toMatchObject({
      id: 8,
      rejected: [{ channel: 'trades', token_id: '123', code: 'token_not_found' }],
    });
    const acks = client.of('subscribed');
    expect(acks.map((f) => [f.data.id, f.data.subjects])).toEqual([
      [7, []],
      [8, [{ channel: 'trades', token_id: t.yes }]],
    ]);
  });

  it('sends a heartbeat every heartbeat period of venue time, whatever else it sends', async () => {
    const client = await connect();
    await client.subscribe(['orderbook'], { token_ids: [t.yes] });
    for (let s = 0; s < 60; s++) {
      t.sim.advance(1_000);
      if (s % 7 === 0) await limit(t.alice, t.yes, 'BUY', 30 + s / 7, 5);
    }
    await client.sync();
    const beats = client.of('heartbeat');
    expect(beats).toHaveLength(6);
    const times = beats.map((f) => Date.parse(f.ts));
    expect(times.slice(1).map((t, i) => t - (times[i] as number))).toEqual([10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(beats.every((f) => f.data === undefined)).toBe(true);
  });

  it('closes the socket with 1009 when a client message is larger than 64 KiB', async () => {
    const client = await connect();
    client.send({ op: 'subscribe', channels: ['trades'], token_ids: ['x'.repeat(70_000)] });
    expect((await client.closed).code).toBe(1009);
  });
});

describe('market stream: delta frames', () => {
  beforeEach(() => setup({ streams: { bookFrames: 'delta' } }));

  it('sends the changed levels of each change after an initial snapshot, and they replay to the REST book', async () => {
    await limit(t.alice, t.yes, 'BUY', 40, 10);
    const client = await connect();
    await client.subscribe(['orderbook'], { token_ids: [t.yes] });
    await limit(t.alice, t.yes, 'BUY', 41, 10);
    await limit(t.alice, t.yes, 'BUY', 40, 5);
    await limit(t.bob, t.no, 'BUY', 55, 5);
    await limit(t.bob, t.no, 'BUY', 59, 10);
    await client.sync();
    const frames = client.of('orderbook');
    expect(frames.map((f) => f.data.kind)).toEqual(['snapshot', 'delta', 'delta', 'delta', 'delta']);
    expect(frames[4]?.data.changes).toEqual([{ side: 'bid', price_micro: '410000', shares_micro: '0' }]);
    const ladder = { bid: new Map<string, string>(), ask: new Map<string, string>() };
    for (const l of frames[0]?.data.bids ?? []) ladder.bid.set(l.price_micro, l.shares_micro);
    for (const f of frames.slice(1)) {
      for (const c of f.data.changes as Array<{ side: 'bid' | 'ask'; price_micro: string; shares_micro: string }>) {
        if (c.shares_micro === '0') ladder[c.side].delete(c.price_micro);
        else ladder[c.side].set(c.price_micro, c.shares_micro);
      }
    }
    const rest = await restBook(t.yes);
    expect([...ladder.bid].map(([p, s]) => ({ price_micro: p, shares_micro: s }))).toEqual(rest.bids);
    expect([...ladder.ask].map(([p, s]) => ({ price_micro: p, shares_micro: s }))).toEqual(rest.asks);
    expect(frames.at(-1)?.data.sequence).toBe(rest.sequence);
  });
});
