import { afterEach, describe, expect, it } from 'vitest';
import type { Bus } from '../src/bus/bus.ts';
import { EmbeddedBus, type EmbeddedBusOptions } from '../src/bus/embedded/embedded-bus.ts';
import { decodeRecord, encodeRecord } from '../src/bus/record.ts';
import { createTopicCatalogue, type TopicSpec } from '../src/bus/topics.ts';
import { busContract, collect, tradeFeed, tradeRecord } from './bus-contract.ts';

busContract('embedded', { open: async (topics) => new EmbeddedBus({ topics }) });

/** Lets every pending promise callback run: whatever can happen without new input has happened. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('embedded bus', () => {
  const opened: Bus[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((bus) => bus.close()));
  });

  // One partition, so the capacity under test is the whole topic's.
  const trades: TopicSpec = { ...createTopicCatalogue('unit').spec('unit.market.trades')!, partitions: 1 };
  const open = (options: EmbeddedBusOptions = {}) => {
    const bus = new EmbeddedBus({ topics: [trades], ...options });
    opened.push(bus);
    return bus;
  };
  const pending = <T>(promise: Promise<T>) => {
    const state = { settled: false };
    void promise.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    return state;
  };

  it('makes a publisher wait while a slow consumer leaves no room, and lets it go once records are committed', async () => {
    const bus = open({ capacity: { records: 4 } });
    const feed = tradeFeed(1, 3); // 6 records, one key
    await bus.publish(trades.name, feed.slice(0, 4));
    const blocked = bus.publish(trades.name, feed.slice(4));
    const state = pending(blocked);

    const consumer = await collect(bus, 'loader', [trades.name]);
    await consumer.waitFor(4);
    await settle();
    // Delivered is not enough: an uncommitted record may have to be delivered again.
    expect(state.settled).toBe(false);
    expect((await bus.lag('loader', [trades.name]))[0]).toMatchObject({ end: 4n, lag: 4n });

    await consumer.subscription.commit([{ topic: trades.name, partition: 0, next: 1n }]);
    await consumer.waitFor(5);
    await settle();
    // One record of room: the fifth went in, the sixth still waits.
    expect(state.settled).toBe(false);
    expect((await bus.lag('loader', [trades.name]))[0]).toMatchObject({ end: 5n, lag: 4n });

    await consumer.subscription.commit([{ topic: trades.name, partition: 0, next: 5n }]);
    await blocked;
    await consumer.waitFor(6);
    expect(consumer.received.map((r) => r.record)).toEqual(feed);
  });

  it('hands records over without a JSON round trip, yet exactly as Kafka would: what JSON changes arrives changed, a bad envelope as bytes', async () => {
    const bus = open();
    const plain = tradeRecord('0xplain', 'yes', 1, '{"frame":"with \\"quotes\\" and ünïcode"}');
    // Not plain JSON data (a cast let it through): a bigint, an undefined field, -0, NaN, a Date.
    const odd = {
      ...tradeRecord('0xodd', 'yes', 2),
      payload: { big: 12n, gone: undefined, zero: -0, nan: Number.NaN, at: new Date(0) } as never,
    };
    const badKey = { ...tradeRecord('0xbad', 'yes', 3), key: '' };
    await bus.publish(trades.name, [plain, odd, badKey]);
    const messages: Array<{ ok: boolean; record?: unknown; reason?: string }> = [];
    const subscription = await bus.subscribe({
      group: 'parity',
      topics: [trades.name],
      onBatch: async (batch) => {
        for (const m of batch.messages)
          messages.push(m.ok ? { ok: true, record: m.record } : { ok: false, reason: m.reason });
      },
    });
    while (messages.length < 3) await settle();
    await subscription.close();
    // The plain record is the very object published (nothing encoded, nothing parsed)…
    expect(messages[0]!.record).toBe(plain);
    // …and the others are what decoding their JSON gives, as from Kafka.
    expect(messages[1]).toEqual({ ok: true, record: (decodeRecord(encodeRecord(odd)) as { record: unknown }).record });
    expect((messages[1]!.record as { payload: unknown }).payload).toEqual({
      big: '12',
      zero: 0,
      nan: null,
      at: '1970-01-01T00:00:00.000Z',
    });
    expect(messages[2]).toEqual({
      ok: false,
      reason: (decodeRecord(encodeRecord(badKey)) as { reason: string }).reason,
    });
  });

  it('bounds the bytes a partition holds, not only the record count', async () => {
    const record = tradeRecord('0xbig', 'yes', 0, 'r'.repeat(1000));
    const size = Buffer.byteLength(encodeRecord(record));
    const bus = open({ capacity: { records: 1000, bytes: size * 3 } });
    await bus.publish(trades.name, [record, record, record]);
    const blocked = bus.publish(trades.name, [record]);
    const state = pending(blocked);
    await settle();
    expect(state.settled).toBe(false);

    const consumer = await collect(bus, 'loader', [trades.name]);
    await consumer.waitFor(3);
    await consumer.subscription.commit([{ topic: trades.name, partition: 0, next: 3n }]);
    await blocked;
    await consumer.waitFor(4);
  });

  it('holds no more than its capacity while a long feed passes through a committing consumer', async () => {
    const bus = open({ capacity: { records: 50 }, maxBatchRecords: 20 });
    const feed = tradeFeed(1, 500);
    let highest = 0n;
    const consumer = await collect(bus, 'loader', [trades.name]);
    const publishing = (async () => {
      for (let i = 0; i < feed.length; i += 10) {
        await bus.publish(trades.name, feed.slice(i, i + 10));
        const [figure] = await bus.lag('loader', [trades.name]);
        if (figure!.lag > highest) highest = figure!.lag;
      }
    })();
    let committed = 0;
    while (committed < feed.length) {
      await consumer.waitFor(committed + 1);
      committed = consumer.received.length;
      await consumer.subscription.commit([{ topic: trades.name, partition: 0, next: BigInt(committed) }]);
    }
    await publishing;
    expect(consumer.received.map((r) => r.record)).toEqual(feed);
    expect(highest).toBeLessThanOrEqual(50n);
  });

  it('rejects publishers still waiting for room when it closes', async () => {
    const bus = open({ capacity: { records: 1 } });
    await bus.publish(trades.name, [tradeRecord('0xa', 'yes', 0)]);
    const blocked = bus.publish(trades.name, [tradeRecord('0xa', 'yes', 1)]);
    await bus.close();
    await expect(blocked).rejects.toMatchObject({ code: 'closed' });
    await expect(bus.publish(trades.name, [tradeRecord('0xa', 'yes', 2)])).rejects.toMatchObject({ code: 'closed' });
  });

  it('allows one subscriber per group at a time', async () => {
    const bus = open();
    const first = await collect(bus, 'loader', [trades.name]);
    await expect(collect(bus, 'loader', [trades.name])).rejects.toMatchObject({ code: 'group_busy' });
    await first.subscription.close();
    await expect(collect(bus, 'loader', [trades.name])).resolves.toBeDefined();
  });

  it('refuses to move a commit backwards', async () => {
    const bus = open();
    await bus.publish(trades.name, tradeFeed(1, 2));
    const consumer = await collect(bus, 'loader', [trades.name]);
    await consumer.waitFor(4);
    await consumer.subscription.commit([{ topic: trades.name, partition: 0, next: 3n }]);
    await expect(consumer.subscription.commit([{ topic: trades.name, partition: 0, next: 2n }])).rejects.toMatchObject({
      code: 'bad_commit',
    });
    await expect(consumer.subscription.commit([{ topic: trades.name, partition: 0, next: 5n }])).rejects.toMatchObject({
      code: 'bad_commit',
    });
    expect(await bus.committedOffsets('loader', trades.name)).toEqual(new Map([[0, 3n]]));
  });

  it('delivers nothing while paused and everything after resume', async () => {
    const bus = open();
    const consumer = await collect(bus, 'loader', [trades.name]);
    consumer.subscription.pause();
    const feed = tradeFeed(2, 2);
    await bus.publish(trades.name, feed);
    await settle();
    expect(consumer.received).toHaveLength(0);
    consumer.subscription.resume();
    await consumer.waitFor(feed.length);
    expect(consumer.received.map((r) => r.record)).toEqual(feed);
  });

  it('delivers in batches no larger than configured', async () => {
    const bus = open({ maxBatchRecords: 7 });
    const feed = tradeFeed(3, 10);
    await bus.publish(trades.name, feed);
    const consumer = await collect(bus, 'loader', [trades.name]);
    await consumer.waitFor(feed.length);
    expect(consumer.batches).toBe(Math.ceil(feed.length / 7));
  });
});
