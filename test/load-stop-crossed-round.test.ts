import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BusError,
  type Batch,
  type BatchOutcome,
  type Bus,
  type CommitPosition,
  type Delivery,
  type PartitionLag,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionEnd,
  type TopicPartition,
} from '../src/bus/bus.ts';
import { partitionFor } from '../src/bus/partitioner.ts';
import { decodeRecord, encodeRecord, type ReceivedRecord } from '../src/bus/record.ts';
import { Signal } from '../src/bus/signal.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { startLoaders, type Loaders } from '../src/load/index.ts';
import { createLogger } from '../src/util/log.ts';
import type { Warehouse } from '../src/warehouse/warehouse.ts';
import { compareTables, expectedKeys, RecordGenerator, type Generated } from './load-fixtures.ts';
import { sleep } from './faults/procs.ts';
import { watching } from './load-warehouses.ts';
import { until } from './simulator-stream-helpers.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * A round crossed by a rebalance, and its loader stopped before the round's insert came back.
 *
 * Loader A sends one round R for partitions 0 and 1 of a topic; a rebalance gives partition 1 to
 * loader B, which rebuilds R's range of it and sends it with R's token; that lands first, so when A
 * (stopping meanwhile) has its insert answered, ClickHouse dropped all of it — partition 0's rows
 * too. A must look at the batches it kept and add what is missing before it records them `after`.
 */

const log = createLogger('load.test', 'silent');
let w: TestWarehouse;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
});

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * A durable bus whose group has several members, the rebalances driven by the test: each member
 * reads only what `assign` gave it, from where its `onAssignment` said (else the group's commit),
 * and nothing while a rebalance is under way. Records are kept for ever (log start 0).
 */
class ScriptedBus implements Bus {
  readonly durable = true;
  readonly #logs = new Map<string, Delivery[][]>();
  /** group → topic-partition → next offset committed. */
  readonly #commits = new Map<string, Map<string, bigint>>();
  readonly #members: Member[] = [];

  constructor(topics: ReadonlyArray<{ name: string; partitions: number }>) {
    for (const { name, partitions } of topics)
      this.#logs.set(
        name,
        Array.from({ length: partitions }, () => []),
      );
  }

  #partitions(topic: string): Delivery[][] {
    const partitions = this.#logs.get(topic);
    if (!partitions) throw new BusError('unknown_topic', `no topic ${topic}`);
    return partitions;
  }

  /** The partition a record goes to (by key, as both buses do). */
  partitionOf(topic: string, record: ReceivedRecord): number {
    return partitionFor(record.key, this.#partitions(topic).length);
  }

  async publish(topic: string, records: readonly ReceivedRecord[]): Promise<void> {
    const partitions = this.#partitions(topic);
    for (const record of records) {
      const log = partitions[this.partitionOf(topic, record)]!;
      // Through the wire form, as a real bus hands it over.
      const decoded = decodeRecord(encodeRecord(record));
      if (!decoded.ok) throw new Error(decoded.reason);
      log.push({ offset: BigInt(log.length), ok: true, record: decoded.record });
    }
    for (const member of this.#members) member.notify();
  }

  /** The member that subscribed last (a loader subscribes as it starts). */
  get newestMember(): Member {
    return this.#members[this.#members.length - 1]!;
  }

  async subscribe(options: SubscribeOptions): Promise<Member> {
    const member = new Member(this, options);
    this.#members.push(member);
    member.start();
    return member;
  }

  /** Records of a partition from `from` on (at most `max`). */
  read(topic: string, partition: number, from: bigint, max: number): { messages: Delivery[]; end: bigint } {
    const log = this.#partitions(topic)[partition]!;
    return { messages: log.slice(Number(from), Number(from) + max), end: BigInt(log.length) };
  }

  commit(group: string, positions: readonly CommitPosition[]): void {
    const committed = this.#commits.get(group) ?? new Map<string, bigint>();
    this.#commits.set(group, committed);
    for (const { topic, partition, next } of positions) {
      const key = keyOf(topic, partition);
      if (next > (committed.get(key) ?? -1n)) committed.set(key, next);
    }
  }

  committed(group: string, topic: string, partition: number): bigint | undefined {
    return this.#commits.get(group)?.get(keyOf(topic, partition));
  }

  async committedOffsets(group: string, topic: string): Promise<ReadonlyMap<number, bigint>> {
    const offsets = new Map<number, bigint>();
    this.#partitions(topic).forEach((_, partition) => {
      const next = this.committed(group, topic, partition);
      if (next !== undefined) offsets.set(partition, next);
    });
    return offsets;
  }

  async lag(group: string, topics: readonly string[]): Promise<PartitionLag[]> {
    return topics.flatMap((topic) =>
      this.#partitions(topic).map((log, partition) => {
        const committed = this.committed(group, topic, partition) ?? null;
        const end = BigInt(log.length);
        return { topic, partition, committed, end, lag: end - (committed ?? 0n) };
      }),
    );
  }

  async logStarts(topic: string): Promise<ReadonlyMap<number, bigint>> {
    return new Map(this.#partitions(topic).map((_, partition) => [partition, 0n]));
  }

  async close(): Promise<void> {
    await Promise.all(this.#members.map((member) => member.close()));
  }
}

/** Where a member reads a partition: the next offset it delivers. */
interface Cursor {
  topic: string;
  partition: number;
  next: bigint;
}

/** One member of a group on the scripted bus. */
class Member implements Subscription {
  readonly stopped: Promise<SubscriptionEnd>;
  #endWith!: (end: SubscriptionEnd) => void;
  readonly #wake = new Signal();
  /** What it reads: topic-partition → next offset to deliver. */
  #positions = new Map<string, Cursor>();
  #rebalancing = false;
  #paused = false;
  #closing = false;
  #loop: Promise<void> = Promise.resolve();
  /** The partition read first next time: partitions in turn, so a busy one does not starve the rest. */
  #turn = 0;

  constructor(
    private readonly bus: ScriptedBus,
    private readonly options: SubscribeOptions,
  ) {
    this.stopped = new Promise((resolve) => (this.#endWith = resolve));
  }

  get paused(): boolean {
    return this.#paused;
  }

  start(): void {
    this.#loop = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#run());
  }

  notify(): void {
    this.#wake.notify();
  }

  /** A rebalance begins: nothing is delivered until the next assignment. */
  async revoke(): Promise<void> {
    this.#rebalancing = true;
    await this.options.onRevoke?.();
  }

  /** The member's new partitions, held until its `onAssignment` says where to read them. */
  async assign(partitions: readonly TopicPartition[]): Promise<void> {
    this.#rebalancing = true;
    const given = (await this.options.onAssignment?.(partitions)) ?? [];
    const positions = new Map<string, Cursor>();
    for (const { topic, partition } of partitions) {
      const answer = given.find((position) => position.topic === topic && position.partition === partition);
      const next = answer?.next ?? this.bus.committed(this.options.group, topic, partition) ?? 0n;
      positions.set(keyOf(topic, partition), { topic, partition, next: next > 0n ? next : 0n });
    }
    this.#positions = positions;
    this.#rebalancing = false;
    this.#wake.notify();
  }

  async commit(positions: readonly CommitPosition[]): Promise<void> {
    if (this.#closing) throw new BusError('closed', `a member of ${this.options.group} is closed`);
    this.bus.commit(this.options.group, positions);
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#wake.notify();
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#wake.notify();
    await this.#loop;
  }

  /** One batch at a time, partitions in turn; records not taken come again from where the member stopped. */
  async #run(): Promise<void> {
    try {
      while (!this.#closing) {
        const next = this.#paused || this.#rebalancing ? undefined : this.#nextBatch();
        if (next === undefined) {
          await Promise.race([this.#wake.wait(), sleep(50)]);
          continue;
        }
        const { batch, cursor } = next;
        const outcome: BatchOutcome | void = await this.options.onBatch(batch);
        const after = batch.messages[batch.messages.length - 1]!.offset + 1n;
        // A batch delivered for an assignment since replaced moves nothing.
        if (this.#positions.get(keyOf(batch.topic, batch.partition)) !== cursor) continue;
        if (outcome && outcome.next < after) {
          cursor.next = outcome.next > cursor.next ? outcome.next : cursor.next;
          await sleep(10);
        } else {
          cursor.next = after;
        }
      }
      this.#endWith({ reason: 'closed' });
    } catch (error) {
      this.#endWith({ reason: 'failed', error });
    }
  }

  #nextBatch(): { batch: Batch; cursor: Cursor } | undefined {
    const cursors = [...this.#positions.values()];
    for (let i = 0; i < cursors.length; i++) {
      const cursor = cursors[(this.#turn + i) % cursors.length]!;
      const { messages, end } = this.bus.read(cursor.topic, cursor.partition, cursor.next, 500);
      if (messages.length === 0) continue;
      this.#turn = (this.#turn + i + 1) % cursors.length;
      return { batch: { topic: cursor.topic, partition: cursor.partition, messages, highWatermark: end }, cursor };
    }
    return undefined;
  }
}

describe('a loader stopped while a rebalance crossed its round', () => {
  it("adds the rows of the partitions it kept that the new owner's share of the round's token left out, rather than recording them stored", async () => {
    const catalogue = createTopicCatalogue('crossed');
    const topic = catalogue.topicFor('trade');
    const spec = catalogue.spec(topic)!;
    const bus = new ScriptedBus([{ name: topic, partitions: spec.partitions }]);
    const generated: Generated[] = new RecordGenerator(31, catalogue, { kinds: new Set(['trade']) }).take(300);
    // Partitions 0 and 1 only: the two partitions of the round.
    const records = generated.filter((g) => bus.partitionOf(topic, g.record) <= 1);
    await bus.publish(
      topic,
      records.map((g) => g.record),
    );
    const inPartition = (p: number) => records.filter((g) => bus.partitionOf(topic, g.record) === p).length;
    expect(inPartition(0)).toBeGreaterThan(0);
    expect(inPartition(1)).toBeGreaterThan(0);
    const p0 = { topic, partition: 0 };
    const p1 = { topic, partition: 1 };
    const group = 'crossed';
    const start = (warehouse: Warehouse) =>
      startLoaders({ bus, warehouse, group, topics: [topic], batch: { maxDelayMs: 200 }, log });
    const storedIn = async (partition: number) =>
      Number(
        (
          await rows<{ n: string }>(
            w.warehouse.client,
            `SELECT count() AS n FROM tapehouse.trades WHERE _topic = '${topic}' AND _partition = ${partition}`,
          )
        )[0]!.n,
      );
    const loaders: Loaders[] = [];
    let roundTokens: string[] | undefined;

    try {
      // A reads both partitions and sends one round for both; its trades insert does not come back.
      const spyA = watching(w.warehouse, new Set(['trades', 'tapehouse.trades']));
      const a = await start(spyA.warehouse);
      loaders.push(a);
      const memberA = bus.newestMember;
      await memberA.assign([p0, p1]);
      const trades = () => (spyA.inserts.get('trades') ?? 0) + (spyA.inserts.get('tapehouse.trades') ?? 0);
      await until(() => trades() >= 1, "A's round's trades insert", 20_000);
      expect(trades()).toBe(1);
      const before = await rows<{ partition: number; tokens: string[] }>(
        w.warehouse.client,
        `SELECT partition, groupUniqArray(dedup_token) AS tokens FROM tapehouse.loader_offsets
          WHERE consumer_group = '${group}' AND target_table = 'trades' AND state = 'before' GROUP BY partition ORDER BY partition`,
      );
      // One round, one token, both partitions recorded `before`.
      expect(before.map((r) => r.partition)).toEqual([0, 1]);
      roundTokens = [...new Set(before.flatMap((r) => r.tokens))];
      expect(roundTokens).toEqual([expect.stringMatching(/^trades:round:/)]);

      // A rebalance: A keeps partition 0, B is given partition 1.
      await memberA.revoke();
      await memberA.assign([p0]);
      const b = await start(w.warehouse);
      loaders.push(b);
      const memberB = bus.newestMember;
      await memberB.assign([p1]);
      // B rebuilds R's range of partition 1 and sends it with R's token: it lands first.
      await until(async () => (await b.stats()).batches >= 1, "B's rebuilt range of partition 1", 20_000);
      expect({ p0: await storedIn(0), p1: await storedIn(1) }).toEqual({ p0: 0, p1: inPartition(1) });

      // A stops; once it is closing, its round's insert comes back — dropped by ClickHouse as the
      // same token in the same table partition as B's.
      const stopping = a.stop({ timeoutMs: 20_000 });
      await until(() => memberA.paused, 'A to stop taking deliveries', 20_000);
      // (Its insert pipelines are told to close a few microtasks after the pause.)
      await sleep(100);
      spyA.release();
      const outcome = await stopping;
      expect(outcome.reason).toBeUndefined();

      // B takes partition 0 over: it reads where A left it.
      await memberB.revoke();
      await memberB.assign([p0, p1]);
      await until(
        async () => {
          const stats = await b.stats();
          return stats.lag === 0 && stats.queuedRows === 0;
        },
        'the group to commit everything',
        20_000,
      );
    } finally {
      for (const loader of loaders) await loader.stop({ timeoutMs: 5_000 }).catch(() => undefined);
      await bus.close();
    }

    // Every published trade stored exactly once — partition 0's too.
    const checks = await compareTables(w.warehouse.client, expectedKeys(records), 'crossed.');
    expect(checks.filter((c) => c.stored !== c.expected || c.distinct !== c.stored)).toEqual([]);
    expect({ p0: await storedIn(0), p1: await storedIn(1) }).toEqual({ p0: inPartition(0), p1: inPartition(1) });
    // Both ranges of the round were finished under its token: partition 1 by B, partition 0 by A.
    const after = await rows<{ partition: number; tokens: string[] }>(
      w.warehouse.client,
      `SELECT partition, groupUniqArray(dedup_token) AS tokens FROM tapehouse.loader_offsets
        WHERE consumer_group = '${group}' AND target_table = 'trades' AND state = 'after' GROUP BY partition ORDER BY partition`,
    );
    expect(after).toEqual([
      { partition: 0, tokens: roundTokens },
      { partition: 1, tokens: roundTokens },
    ]);
  });
});
