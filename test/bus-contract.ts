import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BusError,
  positionAfter,
  type Batch,
  type Bus,
  type CommitPosition,
  type Subscription,
  type TopicPartition,
} from '../src/bus/bus.ts';
import { partitionFor } from '../src/bus/partitioner.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { createTopicCatalogue, type TopicSpec } from '../src/bus/topics.ts';

/**
 * The behaviours every bus implementation promises (bus.ts), run against each of them: the
 * embedded bus in the unit suite, Kafka in the integration suite.
 */
export interface BusUnderTest {
  /** A bus over these topics, each call on fresh topics (offsets start at 0). */
  open(topics: readonly TopicSpec[]): Promise<Bus>;
}

export interface Received {
  topic: string;
  partition: number;
  offset: bigint;
  record: ReceivedRecord;
}

/** A subscription that keeps what it receives, and lets a test wait for a count of records. */
export interface Collector {
  subscription: Subscription;
  received: Received[];
  readonly batches: number;
  waitFor(count: number): Promise<void>;
}

// A guard so a broken bus fails the test with what it did receive, instead of hanging.
const DEADLINE_MS = 60_000;

export async function collect(
  bus: Bus,
  group: string,
  topics: readonly string[],
  onBatch?: (batch: Batch) => void,
): Promise<Collector> {
  const received: Received[] = [];
  let batches = 0;
  let wanted: { count: number; done: () => void } | undefined;
  const subscription = await bus.subscribe({
    group,
    topics,
    onBatch: async (batch) => {
      onBatch?.(batch);
      batches++;
      for (const message of batch.messages) {
        if (!message.ok) throw new Error(`undecodable message at ${message.offset}: ${message.reason}`);
        received.push({
          topic: batch.topic,
          partition: batch.partition,
          offset: message.offset,
          record: message.record,
        });
      }
      if (wanted !== undefined && received.length >= wanted.count) wanted.done();
    },
  });
  return {
    subscription,
    received,
    get batches() {
      return batches;
    },
    waitFor: (count) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`received ${received.length} of ${count} records`)),
          DEADLINE_MS,
        );
        wanted = {
          count,
          done: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      }),
  };
}

/** A bus that passes every call to `inner` but `subscribe` (what a test changes of what the loaders get). */
export function busWithSubscribe(inner: Bus, subscribe: Bus['subscribe']): Bus {
  return {
    durable: inner.durable,
    publish: (topic, records, options) => inner.publish(topic, records, options),
    committedOffsets: (group, topic) => inner.committedOffsets(group, topic),
    lag: (group, topics) => inner.lag(group, topics),
    logStarts: (topic) => inner.logStarts(topic),
    close: () => inner.close(),
    subscribe,
  };
}

/** A trade of one outcome of a condition; `seq` orders the records of a key. */
export function tradeRecord(
  condition: string,
  outcome: string,
  seq: number,
  raw: string | null = null,
): ReceivedRecord {
  return {
    kind: 'trade',
    key: condition,
    venueTime: new Date(Date.UTC(2025, 0, 1, 0, 0, seq)).toISOString(),
    receivedAtUs: 1_735_689_600_000_000n + BigInt(seq),
    source: { type: 'stream', connection: 'market-1', frame: seq },
    payload: { token_id: `${condition}-${outcome}`, seq, price_micro: String(9_007_199_254_740_993n + BigInt(seq)) },
    raw,
  };
}

/** For each condition and seq, a trade on both outcomes: keys interleaved as a live feed would. */
export function tradeFeed(conditions: number, perOutcome: number, tag = randomUUID().slice(0, 8)): ReceivedRecord[] {
  const records: ReceivedRecord[] = [];
  for (let seq = 0; seq < perOutcome; seq++) {
    for (let c = 0; c < conditions; c++) {
      records.push(tradeRecord(`0x${tag}-${c}`, 'yes', seq * 2), tradeRecord(`0x${tag}-${c}`, 'no', seq * 2 + 1));
    }
  }
  return records;
}

const identify = (record: ReceivedRecord) =>
  `${(record.payload as { token_id: string }).token_id}#${record.source.type === 'stream' ? record.source.frame : -1}`;
const where = (r: Received) => `${r.partition}@${r.offset}`;

/** Positions that commit everything received. */
function positionsAfter(topic: string, received: readonly Received[]): CommitPosition[] {
  return [...byPartition(received)].map(([partition, inPartition]) => ({
    topic,
    partition,
    next: inPartition.at(-1)!.offset + 1n,
  }));
}

function byPartition(received: readonly Received[]): Map<number, Received[]> {
  const map = new Map<number, Received[]>();
  for (const r of received) map.set(r.partition, [...(map.get(r.partition) ?? []), r]);
  return map;
}

export function busContract(name: string, target: BusUnderTest): void {
  describe(`${name}: bus contract`, () => {
    const opened: Bus[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bus) => bus.close()));
    });

    async function setUp() {
      const catalogue = createTopicCatalogue(`test-${randomUUID().slice(0, 8)}`);
      const trades = catalogue.spec(catalogue.topicFor('trade'))!;
      const status = catalogue.spec(catalogue.topicFor('market_status'))!;
      const bus = await target.open([trades, status]);
      opened.push(bus);
      return { bus, trades, status, group: `loader-${randomUUID().slice(0, 8)}` };
    }

    it('delivers every record once, unchanged, in per-key order, with both outcomes of a condition on its partition', async () => {
      const { bus, trades, group } = await setUp();
      const feed = tradeFeed(8, 10);
      for (let i = 0; i < feed.length; i += 40) await bus.publish(trades.name, feed.slice(i, i + 40));

      const consumer = await collect(bus, group, [trades.name]);
      await consumer.waitFor(feed.length);

      expect(consumer.received.map((r) => identify(r.record)).sort()).toEqual(feed.map(identify).sort());
      const published = new Map(feed.map((record) => [identify(record), record]));
      for (const r of consumer.received) expect(r.record).toEqual(published.get(identify(r.record)));
      for (const key of new Set(feed.map((record) => record.key))) {
        const ofKey = consumer.received.filter((r) => r.record.key === key);
        expect(ofKey.map((r) => identify(r.record))).toEqual(feed.filter((record) => record.key === key).map(identify));
        expect(new Set(ofKey.map((r) => r.partition))).toEqual(new Set([partitionFor(key, trades.partitions)]));
      }
      for (const [, inPartition] of byPartition(consumer.received)) {
        expect(inPartition.map((r) => r.offset)).toEqual(inPartition.map((_, i) => BigInt(i)));
      }
    });

    it('after a consumer restarts, delivers again exactly the records it had not committed', async () => {
      const { bus, trades, group } = await setUp();
      const feed = tradeFeed(6, 5);
      await bus.publish(trades.name, feed);
      const first = await collect(bus, group, [trades.name]);
      await first.waitFor(feed.length);

      // Commit the first half of what each partition delivered, as a loader that stored only that.
      const positions: CommitPosition[] = [];
      const uncommitted: string[] = [];
      for (const [partition, inPartition] of byPartition(first.received)) {
        const half = Math.floor(inPartition.length / 2);
        positions.push({ topic: trades.name, partition, next: BigInt(half) });
        uncommitted.push(...inPartition.slice(half).map(where));
      }
      await first.subscription.commit(positions);
      await first.subscription.close();
      expect(await first.subscription.stopped).toEqual({ reason: 'closed' });

      const second = await collect(bus, group, [trades.name]);
      await second.waitFor(uncommitted.length);
      // Per partition, delivery starts at the commit: had anything earlier come back, it would be here.
      expect(second.received.map(where).sort()).toEqual(uncommitted.sort());
      expect(second.received.map((r) => identify(r.record)).sort()).toEqual(
        first.received
          .filter((r) => uncommitted.includes(where(r)))
          .map((r) => identify(r.record))
          .sort(),
      );
    });

    it('keeps consumer groups independent: one group committing does not take records from another', async () => {
      const { bus, trades, group } = await setUp();
      const loader = await collect(bus, group, [trades.name]);
      const other = await collect(bus, `${group}-other`, [trades.name]);
      const feed = tradeFeed(4, 3);
      await bus.publish(trades.name, feed);
      await loader.waitFor(feed.length);
      await loader.subscription.commit(positionsAfter(trades.name, loader.received));
      await other.waitFor(feed.length);
      await other.subscription.close();

      const otherAgain = await collect(bus, `${group}-other`, [trades.name]);
      await otherAgain.waitFor(feed.length);
      expect(otherAgain.received.map((r) => identify(r.record)).sort()).toEqual(feed.map(identify).sort());
      expect((await bus.lag(group, [trades.name])).every((p) => p.lag === 0n)).toBe(true);
      expect((await bus.lag(`${group}-other`, [trades.name])).reduce((sum, p) => sum + p.lag, 0n)).toBe(
        BigInt(feed.length),
      );
    });

    it('reports committed offsets and lag as commits move', async () => {
      const { bus, trades, status, group } = await setUp();
      const feed = tradeFeed(5, 4);
      await bus.publish(trades.name, feed);
      const consumer = await collect(bus, group, [trades.name, status.name]);
      await consumer.waitFor(feed.length);

      const before = await bus.lag(group, [trades.name]);
      expect(before).toHaveLength(trades.partitions);
      expect(before.reduce((sum, p) => sum + p.lag, 0n)).toBe(BigInt(feed.length));
      expect(before.every((p) => p.committed === null)).toBe(true);
      expect((await bus.committedOffsets(group, trades.name)).size).toBe(0);

      const [busiest] = [...byPartition(consumer.received)].sort((a, b) => b[1].length - a[1].length);
      const [partition, inPartition] = busiest!;
      await consumer.subscription.commit([{ topic: trades.name, partition, next: 2n }]);

      expect(await bus.committedOffsets(group, trades.name)).toEqual(new Map([[partition, 2n]]));
      const after = await bus.lag(group, [trades.name]);
      const figure = after.find((p) => p.partition === partition)!;
      expect(figure).toEqual({
        topic: trades.name,
        partition,
        committed: 2n,
        end: BigInt(inPartition.length),
        lag: BigInt(inPartition.length - 2),
      });
      expect(after.reduce((sum, p) => sum + p.lag, 0n)).toBe(BigInt(feed.length - 2));
    });

    it('refuses a record larger than the topic allows, publishing nothing of that call', async () => {
      const { bus, trades, group } = await setUp();
      const small = tradeRecord('0xsmall', 'yes', 0);
      const huge = tradeRecord('0xhuge', 'yes', 1, 'x'.repeat(trades.maxRecordBytes));
      await expect(bus.publish(trades.name, [small, huge])).rejects.toMatchObject({ code: 'record_too_large' });
      const lag = await bus.lag(group, [trades.name]);
      expect(lag.reduce((sum, p) => sum + p.end, 0n)).toBe(0n);
    });

    it('tells a lone subscriber it reads every partition, before the first batch', async () => {
      const { bus, trades, status, group } = await setUp();
      await bus.publish(trades.name, tradeFeed(2, 1));
      const events: string[] = [];
      let assigned: readonly TopicPartition[] = [];
      let firstBatch!: () => void;
      const delivered = new Promise<void>((resolve) => (firstBatch = resolve));
      await bus.subscribe({
        group,
        topics: [trades.name, status.name],
        onAssignment: (partitions) => {
          events.push('assignment');
          assigned = partitions;
        },
        onBatch: async () => {
          events.push('batch');
          firstBatch();
        },
      });
      await delivered;
      expect(events[0]).toBe('assignment');
      const everyPartition = [trades, status].flatMap((spec) =>
        Array.from({ length: spec.partitions }, (_, partition) => `${spec.name}[${partition}]`),
      );
      expect(assigned.map((p) => `${p.topic}[${p.partition}]`).sort()).toEqual(everyPartition.sort());
    });

    it('carries a record just under the topic limit', async () => {
      const { bus, trades, group } = await setUp();
      const large = tradeRecord('0xlarge', 'yes', 0, 'x'.repeat(trades.maxRecordBytes - 4096));
      const small = tradeRecord('0xlarge', 'no', 1);
      await bus.publish(trades.name, [large, small]);
      const consumer = await collect(bus, group, [trades.name]);
      await consumer.waitFor(2);
      expect(consumer.received.map((r) => r.record)).toEqual([large, small]);
    });

    it('refuses topics outside its catalogue', async () => {
      const { bus, group } = await setUp();
      await expect(bus.publish('nowhere.trades', [tradeRecord('0xa', 'yes', 0)])).rejects.toMatchObject({
        code: 'unknown_topic',
      });
      await expect(
        bus.subscribe({ group, topics: ['nowhere.trades'], onBatch: async () => {} }),
      ).rejects.toBeInstanceOf(BusError);
    });

    it('stops a subscription whose handler fails, and hands its records to the next subscriber', async () => {
      const { bus, trades, group } = await setUp();
      const feed = tradeFeed(3, 2);
      await bus.publish(trades.name, feed);
      const failure = new Error('warehouse unreachable');
      const failing = await bus.subscribe({
        group,
        topics: [trades.name],
        onBatch: async () => {
          throw failure;
        },
      });
      expect(await failing.stopped).toEqual({ reason: 'failed', error: failure });
      await expect(failing.commit([{ topic: trades.name, partition: 0, next: 1n }])).rejects.toMatchObject({
        code: 'closed',
      });
      await failing.close();

      const next = await collect(bus, group, [trades.name]);
      await next.waitFor(feed.length);
      expect(next.received.map((r) => identify(r.record)).sort()).toEqual(feed.map(identify).sort());
    });

    it('commits a whole batch with positionAfter, and a restarted consumer then gets only newer records', async () => {
      const { bus, trades, group } = await setUp();
      const feed = tradeFeed(4, 2);
      await bus.publish(trades.name, feed);
      const positions = new Map<number, CommitPosition>();
      const first = await collect(bus, group, [trades.name], (batch) =>
        positions.set(batch.partition, positionAfter(batch)),
      );
      await first.waitFor(feed.length);
      await first.subscription.commit([...positions.values()]);
      await first.subscription.close();

      const later = tradeFeed(2, 1);
      await bus.publish(trades.name, later);
      const second = await collect(bus, group, [trades.name]);
      await second.waitFor(later.length);
      expect(second.received.map((r) => identify(r.record)).sort()).toEqual(later.map(identify).sort());
    });
  });
}
