import { randomUUID } from 'node:crypto';
import { Signal } from '../../bus/signal.ts';
import type { Logger } from '../../util/log.ts';
import type { Batch, RecordedRound } from '../batching/batch.ts';
import type { BusCommits } from '../bus-commits.ts';
import type { TableName } from '../mapping/types.ts';
import { offsetRows, partitionKey, type OffsetsScope } from '../state/loader-offsets.ts';
import { addMissingRows } from './landed-rows.ts';
import { dropRecord, encodeInsert, encodeRound, type BatchContext, type RoundInsert } from './prepare.ts';
import { follows, formRound, insertGroups, rowAt, type Entry, type RoundBatch } from './round.ts';
import { errorSummary, refusedRow } from './warehouse-errors.ts';
import { retryForever, type RetryHooks } from '../../util/backoff.ts';
import { nowMicros, type Clock } from '../../util/clock.ts';
import {
  LANE_START,
  acceptsRows,
  afterMayBeRecorded,
  mayPrepareNext,
  nextLaneState,
  nextRoundState,
  type LaneEvent,
  type LaneState,
  type RoundAction,
  type RoundEvent,
  type RoundState,
} from '../protocol/index.ts';

/**
 * Tables whose rows say how many rows of another table belong to them: a positions read's
 * `position_snapshots` row counts its `positions` rows, and `positions_as_of` takes the newest of
 * an account's three newest reads whose rows are all stored. Inserted after the rest of their
 * round, so that a read is whole as soon as its snapshot row is visible: inserted together, a
 * round of several reads whose snapshot rows landed first left an account with no position in
 * `positions_latest` until its positions landed (an empty Positions panel on a busy machine).
 */
const COUNTING_TABLES: ReadonlySet<TableName> = new Set<TableName>(['position_snapshots']);

export interface FlusherOptions {
  /** Which lane of the loader this is (logs). */
  lane: string;
  context: BatchContext;
  scope: OffsetsScope;
  commits: BusCommits;
  log: Logger;
  /** Called when the warehouse starts failing and when it answers again (pause and resume the bus). */
  onWarehouseDown(): void;
  onWarehouseUp(): void;
  /** Aborted at a stop's deadline: retries end and what is unstored stays on the bus. */
  giveUp: AbortSignal;
  /** Deliveries wait (`untilRowsAccepted()`) while more rows than this are queued. */
  maxQueuedRows: number;
  /**
   * How long a stored round's `after` rows may wait for the next round's offsets insert to carry
   * them when nothing else is queued (ms); 0: written at once.
   */
  afterDelayMs: number;
  /** Whether the loader reads this partition now (a rebuilt round waits for its other ranges only on partitions it
   * reads). */
  owns(topic: string, partition: number): boolean;
  /** Called after each batch is stored (all its tables acknowledged), with the time its round's inserts took. */
  onStored(batch: Batch, insertMs: number): void;
  /** The waits between retries (default: the system clock). */
  clock?: Clock;
}

/** A round: its batches (one per partition), their inserts, and where it stands in the protocol. */
interface Round {
  id: string;
  batches: RoundBatch[];
  /** The data tables' inserts, encoded (dead letters are encoded last, once the data is in). */
  inserts: RoundInsert[];
  /** When its `before` rows were written (µs): parts holding its rows were written since. */
  beforeUs: bigint;
  /** Its state in the protocol (protocol/round-states.ts): moved only by #advance. */
  state: RoundState;
  /** The flusher's count of changes when it was taken from the queue. */
  changes: number;
}

// A round records at most this many partitions' batches in one loader_offsets insert.
const MAX_ROUND = 64;
// Rows of one round: each table's insert stays one block of the engine (max_insert_block_size is
// 1,048,449), so a value the engine refuses fails the whole insert and nothing of it lands.
const MAX_ROUND_ROWS = 500_000;

/**
 * One lane's insert pipeline. Batches go out in rounds; a round takes everything queued:
 *
 *   1. its batches merged, per partition one range, and encoded: ONE insert per table for all of
 *      them, with the round's deduplication token;
 *   2. one loader_offsets insert: `before` for this round, `after` for the rounds stored since the
 *      last one; then their bus commits (their `after` is now durable);
 *   3. the inserts: data tables together, dead letters last.
 *
 * Steps 1 and 2 of a round run while the round before it is in the engine (as soon as batches are
 * queued), so the next round's data goes to the engine the moment the engine is free: the offsets
 * insert is out of the data's way.
 *
 * So the number of inserts does not grow with partitions, nor with how many batches piled up while
 * the engine was slow: a slow round makes the next one larger, not longer to come. Ranges recorded
 * before a crash are rebuilt and sent with the tokens they were recorded with: a round whose every
 * range this loader reads goes again whole, once all its ranges are rebuilt; one whose ranges went
 * to other loaders too goes range by range. Either way what its token left out is added after
 * (landed-rows.ts).
 *
 * Every warehouse call is retried with backoff while the warehouse is down (the bus is paused
 * meanwhile); a value the engine refuses makes that record a dead letter instead.
 */
export class Flusher {
  readonly #queue: Entry[] = [];
  /** Something a round may take changed. */
  readonly #changed = new Signal();
  /** Rows left the queue. */
  readonly #roomFreed = new Signal();
  /** The new assignment is known (or the lane closes). */
  readonly #assignmentKnown = new Signal();
  /** Per partition, how often it was lost: batches cut before the last loss are stale. */
  readonly #losses = new Map<string, number>();
  readonly #idle = new Signal();
  #queuedRows = 0;
  /** Where the lane stands (protocol/lane-states.ts): moved only by #on. */
  #lane: LaneState = LANE_START;
  /** Rounds recorded before a crash that go range by range (never waited for whole again). */
  readonly #roundsRangeByRange = new Set<string>();
  /** How many changes a round may take there were (a wake is never missed). */
  #changes = 0;
  /** Rounds stored, waiting for their `after` rows, and since when the newest is. */
  #stored: Round[] = [];
  #storedAtMs = 0;
  /** Rounds recorded `before` and not yet stored: the one whose inserts are under way, and the next. */
  readonly #recorded = new Set<Round>();
  /** The next round: formed, encoded and its `before` rows recorded while the one before is in the engine. */
  #next: Promise<Round> | undefined;
  /** The `before` rows of the round under way, until the warehouse took them or the round gave them up. */
  #recordingBefore: Promise<unknown> | undefined;
  #failing: { sinceMs: number; reason: string } | undefined;
  readonly done: Promise<void>;

  constructor(private readonly options: FlusherOptions) {
    this.done = this.#run();
  }

  /** A lane event: the lane's next state, and its actions performed. */
  #on(event: LaneEvent): void {
    const step = nextLaneState(this.#lane, event);
    this.#lane = step.state;
    for (const action of step.actions) {
      switch (action) {
        case 'cross_recorded_rounds':
          // (A round already stored before this is whole in the warehouse: its `after` may be written.)
          for (const round of this.#recorded) this.#advance(round, 'rebalance_began');
          break;
        case 'wake_rounds':
          this.#somethingChanged();
          break;
        case 'wake_assignment_waiters':
          this.#assignmentKnown.notify();
          break;
        case 'wake_room_waiters':
          this.#roomFreed.notify();
          break;
        case 'report_warehouse_down':
          this.options.onWarehouseDown();
          break;
        case 'report_warehouse_up':
          this.options.onWarehouseUp();
          break;
      }
    }
  }

  /** A round event: the round's next state; returns the actions for the caller to perform. */
  #advance(round: Round, event: RoundEvent): readonly RoundAction[] {
    const step = nextRoundState(round.state, event);
    round.state = step.state;
    return step.actions;
  }

  /** Something changed that a round may take (a batch queued, a partition lost, an assignment): counted, so a wake is
   * never missed. */
  #somethingChanged(): void {
    this.#changes += 1;
    this.#changed.notify();
  }

  /** Queues a batch for the next round. */
  enqueue(batch: Batch): void {
    // A rebuilt batch takes no room: it may wait for its round's other ranges, which must not wait for room.
    const rows = batch.rebuilt ? 0 : batch.rowCount;
    this.#queue.push({ batch, rows, owned: this.#losses.get(partitionKey(batch.topic, batch.partition)) ?? 0 });
    this.#queuedRows += rows;
    this.#somethingChanged();
  }

  /** Whether a delivery may add rows now (fewer than `maxQueuedRows` wait). */
  get acceptsRows(): boolean {
    return acceptsRows(this.#lane, this.#queuedRows, this.options.maxQueuedRows);
  }

  /** Resolves once a delivery may add rows again. */
  async untilRowsAccepted(): Promise<void> {
    while (!this.acceptsRows) await this.#roomFreed.wait();
  }

  /**
   * A rebalance began: the partitions may go to another loader, which will read their state from
   * `loader_offsets`. No new round starts; resolves once the round under way has its `before`
   * rows in the warehouse or has given them up (then they are never written). Inserts already
   * recorded `before` go on: the new owner rebuilds those ranges with the same tokens — and since
   * it sends only its own batches with this round's token, the rounds under way are looked at
   * again once the assignment is known (see #settle).
   */
  pauseForRebalance(): Promise<void> {
    this.#on('rebalance_began');
    return Promise.resolve(this.#recordingBefore).then(
      () => undefined,
      () => undefined,
    );
  }

  /** The new assignment is known (lost partitions dropped): rounds go on. */
  resumeWithAssignment(): void {
    this.#on('assignment_known');
  }

  /**
   * A partition went to another loader: its batches not yet recorded `before` are dropped — also
   * those of the round under way, whose `before` insert is still being retried.
   */
  dropPartition(topic: string, partition: number): void {
    const key = partitionKey(topic, partition);
    this.#losses.set(key, (this.#losses.get(key) ?? 0) + 1);
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      const entry = this.#queue[i]!;
      if (partitionKey(entry.batch.topic, entry.batch.partition) === key) {
        this.#queue.splice(i, 1);
        this.#queuedRows -= entry.rows;
      }
    }
    this.#roomFreed.notify();
    // A rebuilt round waiting for this partition's range goes range by range instead.
    this.#somethingChanged();
  }

  /** Rows queued and not yet stored. */
  get queuedRows(): number {
    return this.#queuedRows;
  }

  /** Whether a warehouse call is failing now (the loader is waiting for it). */
  get warehouseDown(): boolean {
    return this.#lane.warehouse === 'failing';
  }

  /** Since when (wall-clock ms) and why the warehouse calls fail, while they do. */
  get failing(): { sinceMs: number; reason: string } | undefined {
    return this.#failing && { ...this.#failing };
  }

  /** Resolves once everything queued is stored and recorded `after`. */
  async whenIdle(): Promise<void> {
    while (this.#lane.work === 'busy' || this.#queue.length > 0 || this.#next !== undefined || this.#stored.length > 0)
      await this.#idle.wait();
  }

  /** Lets deliveries waiting for room go on (a stop is about to store what they hold). */
  acceptAllRows(): void {
    this.#on('rows_let_in');
  }

  /** Stores what is queued, records it `after`, commits, then ends. */
  close(): Promise<void> {
    this.#on('close');
    return this.done;
  }

  /**
   * The driver: takes rounds, performs the actions the protocol's transitions return
   * (protocol/round-states.ts), and writes the `after` rows of stored rounds when no round follows
   * soon enough to carry them.
   */
  async #run(): Promise<void> {
    for (;;) {
      const rebalancing = this.#lane.assignment === 'rebalancing';
      const closing = this.#lane.stop === 'closing';
      if ((this.#queue.length === 0 && this.#next === undefined) || rebalancing) {
        // A round crossed by a rebalance waits for the assignment before its `after` (#settle).
        if (this.#stored.some((round) => afterMayBeRecorded(round.state, rebalancing))) {
          const wait = this.#storedAtMs + this.options.afterDelayMs - performance.now();
          if (wait > 0 && !closing && !rebalancing) {
            // The next round's offsets insert carries these `after` rows, if it comes soon.
            await Promise.race([this.#changed.wait(), new Promise((resolve) => setTimeout(resolve, wait))]);
            continue;
          }
          this.#on('work_began');
          await this.#record([]);
          this.#on('work_ended');
          continue;
        }
        this.#idle.notify();
        // Stopping in the middle of a rebalance: what is queued may no longer be ours; it stays on the bus.
        if (closing) return;
        await Promise.race([this.#changed.wait(), this.#assignmentKnown.wait()]);
        continue;
      }
      this.#on('work_began');
      const next = this.#next ?? this.#prepare();
      this.#next = undefined;
      const round = await next;
      if (round.state === 'queued') {
        // Nothing of it recorded: only rebuilt rounds waiting for their other ranges are queued.
        this.#on('work_ended');
        if (this.#lane.stop === 'closing') {
          // They stay on the bus: the next start rebuilds them.
          this.#freeRoom(this.#queue.splice(0));
        } else {
          if (this.#stored.length > 0) await this.#record([]);
          if (this.#changes === round.changes) await this.#changed.wait();
        }
        continue;
      }
      const started = performance.now();
      const sending = this.#send(round);
      sending.catch(() => undefined);
      await this.#prepareWhile(sending);
      await sending;
      await this.#perform(round, this.#advance(round, 'inserts_acknowledged'), started);
      this.#on('work_ended');
    }
  }

  /** Performs a round's actions once its inserts are acknowledged (`started`: when they were sent). */
  async #perform(round: Round, actions: readonly RoundAction[], started: number): Promise<void> {
    for (const action of actions) {
      switch (action) {
        case 'wait_for_assignment':
          while (this.#lane.assignment === 'rebalancing' && this.#lane.stop !== 'closing')
            await this.#assignmentKnown.wait();
          await this.#perform(round, this.#advance(round, 'assignment_known'), started);
          break;
        case 'add_missing_rows_of_kept':
          await this.#settle(round);
          break;
        case 'count_stored': {
          this.#recorded.delete(round);
          const insertMs = performance.now() - started;
          for (const item of round.batches) {
            this.options.onStored(item.batch, insertMs);
            this.#freeRoom(item.entries);
          }
          if (round.batches.length > 0) {
            this.#stored.push(round);
            this.#storedAtMs = performance.now();
          }
          break;
        }
        default:
          throw new Error(`a round just inserted has no action ${action}`);
      }
    }
  }

  /**
   * While a round is in the engine: the next one is formed, encoded and its `before` rows recorded
   * (with the `after` rows of rounds stored before) as soon as batches are queued, so that it goes
   * to the engine the moment this one is done — the offsets insert is out of the data's way.
   */
  async #prepareWhile(sending: Promise<void>): Promise<void> {
    let done = false;
    const finished = sending.then(
      () => (done = true),
      () => (done = true),
    );
    while (!done) {
      if (this.#queue.length > 0 && mayPrepareNext(this.#lane)) {
        this.#next = this.#prepare();
        this.#next.catch(() => undefined); // awaited by #run, which handles its failure
        return;
      }
      await Promise.race([this.#changed.wait(), finished]);
    }
  }

  /** The next round taken from the queue, merged, encoded and recorded `before` (retried while the warehouse is down).
   */
  async #prepare(): Promise<Round> {
    const round: Round = {
      id: randomUUID(),
      batches: [],
      inserts: [],
      beforeUs: 0n,
      state: 'queued',
      changes: this.#changes,
    };
    this.#advance(round, 'taken'); // record_before: what follows
    const recording = (async () => {
      round.batches = formRound(this.#takeRound(), round.id, this.options.context.epoch);
      round.inserts = await this.#retry(() => encodeRound(round.batches, this.options.context));
      return this.#record(round.batches);
    })();
    this.#recordingBefore = recording;
    const live = await recording.finally(() => {
      if (this.#recordingBefore === recording) this.#recordingBefore = undefined;
    });
    round.beforeUs = nowMicros();
    // Its `before` rows landed after a rebalance began (sent before it): a round crossed by it (as
    // is one recorded before a rebalance and not stored when it begins, see pauseForRebalance()).
    const recorded: RoundEvent =
      live.length === 0
        ? 'nothing_recorded'
        : this.#lane.assignment === 'rebalancing'
          ? 'before_recorded_in_rebalance'
          : 'before_recorded';
    if (live.length > 0) this.#recorded.add(round);
    // Its actions: the batches not recorded queued again, then the inserts (sent by #run).
    for (const action of this.#advance(round, recorded))
      if (action === 'requeue_unrecorded') await this.#requeueUnrecorded(round, live);
    return round;
  }

  /**
   * The batches of a round its `before` insert left out: lost to another loader (dropped), or held
   * back by a rebalance (queued again, first, for once the new assignment says whether they are
   * still ours). The round's inserts are encoded again without them.
   */
  async #requeueUnrecorded(round: Round, live: readonly RoundBatch[]): Promise<void> {
    const left = round.batches.filter((item) => !live.includes(item)).flatMap((item) => item.entries);
    this.#queue.unshift(...left.filter((entry) => !this.#stale(entry)));
    this.#freeRoom(left.filter((entry) => this.#stale(entry)));
    if (live.length < round.batches.length) {
      round.batches = [...live];
      round.inserts = await this.#retry(() => encodeRound(round.batches, this.options.context));
    }
  }

  /**
   * The next round: everything queued, up to MAX_ROUND partitions and MAX_ROUND_ROWS rows. Per
   * partition one range — its batches merged while they follow each other — so at most three of a
   * partition are ever between `before` and `after` (the round in the engine, the next one recorded
   * meanwhile, and the one before them until the next one's offsets insert records its `after`),
   * which is all a restart has to look for. A rebuilt batch goes alone; whatever of its partition
   * came after it waits for the next round. A round rebuilt whole goes first, all its ranges in
   * this round, once each is at the head of its partition.
   */
  #takeRound(): Entry[] {
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      const entry = this.#queue[i]!;
      if (this.#stale(entry)) {
        this.#queue.splice(i, 1);
        this.#freeRoom([entry]);
      }
    }
    const heads = new Map<string, Entry>();
    for (const entry of this.#queue) {
      const key = partitionKey(entry.batch.topic, entry.batch.partition);
      if (!heads.has(key)) heads.set(key, entry);
    }
    const round: Entry[] = [];
    let waiting = false;
    // Per partition: the last batch taken, or null once nothing more of it goes in this round.
    const last = new Map<string, Batch | null>();
    let rows = 0;
    for (const [key, head] of heads) {
      const recorded = head.batch.rebuilt?.round;
      if (!recorded || last.has(key) || this.#rebuiltAs(head, heads) !== 'whole') continue;
      const members = recorded.members.map((member) => heads.get(partitionKey(member.topic, member.partition))!);
      const memberRows = members.reduce((sum, entry) => sum + entry.batch.rowCount, 0);
      if (round.length > 0 && (last.size + members.length > MAX_ROUND || rows + memberRows > MAX_ROUND_ROWS)) continue;
      for (const entry of members) last.set(partitionKey(entry.batch.topic, entry.batch.partition), null);
      round.push(...members);
      rows += memberRows;
    }
    const whole = new Set(round);
    for (let i = 0; i < this.#queue.length;) {
      const entry = this.#queue[i]!;
      const key = partitionKey(entry.batch.topic, entry.batch.partition);
      if (whole.has(entry)) {
        this.#queue.splice(i, 1);
        continue;
      }
      const previous = last.get(key);
      const alone = entry.batch.rebuilt ? this.#rebuiltAs(entry, heads) : 'new';
      const fits =
        (alone === 'new' || alone === 'alone') &&
        (previous === undefined
          ? last.size < MAX_ROUND && (round.length === 0 || rows + entry.batch.rowCount <= MAX_ROUND_ROWS)
          : previous !== null && follows(previous, entry.batch) && rows + entry.batch.rowCount <= MAX_ROUND_ROWS);
      if (alone === 'wait') waiting = true;
      if (!fits) {
        // Nothing more of this partition in this round: its batches stay in order.
        last.set(key, null);
        i++;
        continue;
      }
      last.set(key, entry.batch);
      round.push(entry);
      rows += entry.batch.rowCount;
      this.#queue.splice(i, 1);
    }
    this.#on(waiting ? 'round_waits_for_ranges' : 'rounds_flow');
    return round;
  }

  /**
   * How a rebuilt batch goes: `whole` (with its round, every range of it at the head of its
   * partition now), `wait` (its round's other ranges are on partitions this loader reads and have
   * not been rebuilt yet), or `alone` (recorded alone, with its range's own tokens; or its round
   * cannot be sent whole here: some of it is on partitions another loader reads, or was passed).
   */
  #rebuiltAs(entry: Entry, heads: ReadonlyMap<string, Entry>): 'whole' | 'wait' | 'alone' {
    const recorded = entry.batch.rebuilt!.round;
    if (recorded === undefined || !recorded.replayable || this.#roundsRangeByRange.has(recorded.id)) return 'alone';
    let whole = true;
    for (const member of recorded.members) {
      const head = heads.get(partitionKey(member.topic, member.partition));
      if (head?.batch.rebuilt && head.batch.range.first === member.first && head.batch.range.last === member.last)
        continue;
      whole = false;
      // Another loader reads that range's partition, or it was passed (its records gone from the bus): never whole.
      if (
        !this.options.owns(member.topic, member.partition) ||
        (head !== undefined && head.batch.range.first > member.last)
      ) {
        return this.#goRangeByRange(recorded);
      }
    }
    return whole ? 'whole' : 'wait';
  }

  #goRangeByRange(round: RecordedRound): 'alone' {
    if (!this.#roundsRangeByRange.has(round.id)) {
      this.#roundsRangeByRange.add(round.id);
      this.options.log.warn(
        { lane: this.options.lane, round: round.id, ranges: round.members.length },
        'a round recorded before a crash is not all rebuilt here: its ranges go one by one with its tokens, and what those leave out is added',
      );
    }
    return 'alone';
  }

  #freeRoom(entries: readonly Entry[]): void {
    if (entries.length === 0) return;
    for (const entry of entries) this.#queuedRows -= entry.rows;
    this.#roomFreed.notify();
  }

  /** Whether the partition was lost since the entry's batch was cut. */
  #stale(entry: Entry): boolean {
    return (this.#losses.get(partitionKey(entry.batch.topic, entry.batch.partition)) ?? 0) !== entry.owned;
  }

  #lost(item: RoundBatch): boolean {
    return item.entries.some((entry) => this.#stale(entry));
  }

  /**
   * One loader_offsets insert: `after` for what was stored since the last one, `before` for the
   * batches of `next` still ours; then the commits. Returns the batches recorded `before`. Every
   * attempt leaves out those lost meanwhile, and all of them once a rebalance began: a partition
   * handed to another loader (during an outage, say) gets no late `before` row from here.
   */
  async #record(next: readonly RoundBatch[]): Promise<RoundBatch[]> {
    const { scope } = this.options;
    // Rounds crossed by a rebalance wait for the assignment (#settle) before their `after`.
    const rounds = this.#stored.filter((round) =>
      afterMayBeRecorded(round.state, this.#lane.assignment === 'rebalancing'),
    );
    const stored = rounds.flatMap((round) => round.batches);
    let live: RoundBatch[] = [];
    const rowsNow = () => {
      const at = nowMicros();
      live = this.#lane.assignment === 'rebalancing' ? [] : next.filter((item) => !this.#lost(item));
      const rows = (items: readonly RoundBatch[], state: 'before' | 'after') =>
        items.flatMap((item) => offsetRows(item.batch, item.tokenOf, state, scope, at));
      return [...rows(stored, 'after'), ...rows(live, 'before')];
    };
    if (rowsNow().length > 0)
      await this.#retry(() => this.options.context.warehouse.insertRows('loader_offsets', rowsNow()));
    this.#stored = this.#stored.filter((round) => !rounds.includes(round));
    // Their `after` is durable: each round's actions say commit (one bus call for all of them).
    const committing = rounds.filter((round) => this.#advance(round, 'after_recorded').includes('commit'));
    const positions = committing
      .flatMap((round) => round.batches)
      .map(({ batch }) => ({ topic: batch.topic, partition: batch.partition, next: batch.range.last + 1n }));
    if (positions.length > 0) void this.options.commits.commit(positions);
    for (const round of committing) this.#advance(round, 'commit_sent');
    return live;
  }

  /**
   * The round's inserts: the data tables' together — those that count rows of another table after
   * that table's (COUNTING_TABLES) —, then the dead letters (which a refused value may still add
   * to), per token one INSERT.
   */
  async #send(round: Round): Promise<void> {
    const counted = round.inserts.filter((insert) => !COUNTING_TABLES.has(insert.table));
    const counting = round.inserts.filter((insert) => COUNTING_TABLES.has(insert.table));
    for (const wave of [counted, counting]) {
      const sent = await Promise.allSettled(wave.map((insert) => this.#insert(insert)));
      const failed = sent.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    }
    for (const [token, items] of insertGroups(round.batches, 'dead_letters')) {
      await this.#insert(await this.#retry(() => encodeInsert('dead_letters', token, items, this.options.context)));
    }
  }

  /** One INSERT; a value the engine refuses makes its record a dead letter, and the rest goes again. */
  async #insert(insert: RoundInsert): Promise<void> {
    const { table, token, items } = insert;
    let prepared = insert.prepared;
    for (;;) {
      const refused = await this.#retry(async () => {
        try {
          await prepared.send();
          return undefined;
        } catch (error) {
          const at = refusedRow(error);
          if (at === undefined || table === 'dead_letters') throw error;
          return { at, error };
        }
      });
      if (!refused) break;
      this.#deadLetterRefused(table, items, refused.at, refused.error);
      prepared = (await this.#retry(() => encodeInsert(table, token, items, this.options.context))).prepared;
    }
    // A rebuilt batch recorded with a round's token — sent with the rest of its round or alone:
    // another loader may have sent part of that round with the same token and without these rows.
    const shared = items.filter(
      (item) => item.batch.rebuilt !== undefined && item.tokenOf(table) === token && token.includes(':round:'),
    );
    for (const item of shared) await this.#addMissing(table, item, item.batch.rebuilt!.recordedAtUs);
  }

  /** Rows of `item` the stored rounds left out (landed-rows.ts), added with the range's own token. */
  async #addMissing(table: TableName, item: RoundBatch, sinceUs: bigint): Promise<void> {
    const rows = item.batch.tables.get(table) ?? [];
    const added = await this.#retry(() =>
      addMissingRows(this.options.context.warehouse, table, item.batch, rows, sinceUs, this.options.context.epoch),
    );
    if (added > 0) {
      const { batch } = item;
      this.options.log.warn(
        {
          lane: this.options.lane,
          table,
          topic: batch.topic,
          partition: batch.partition,
          first: String(batch.range.first),
          last: String(batch.range.last),
          added,
        },
        'rows a round left out (its batches were sent by more than one loader) added',
      );
    }
  }

  /**
   * A round whose inserts a rebalance crossed: once the assignment is known, if any of its
   * partitions went to another loader — which sends its rebuilt batches with this round's token —
   * the batches kept are looked at and what is missing is added; the lost ones are left to their
   * new owner (no `after` from here).
   */
  async #settle(round: Round): Promise<void> {
    if (!round.batches.some((item) => this.#lost(item))) return;
    const kept = round.batches.filter((item) => !this.#lost(item));
    this.#freeRoom(round.batches.filter((item) => this.#lost(item)).flatMap((item) => item.entries));
    round.batches = kept;
    // Stopping too: the new owner's share of this token may have landed first and dropped these
    // rows, and the `after` this stop writes would hide that for good. (A warehouse that does not
    // answer ends the look with the stop's give-up, and then no `after` is written.)
    for (const item of kept)
      for (const table of item.batch.tables.keys()) await this.#addMissing(table, item, round.beforeUs - 1_000_000n);
  }

  /** The engine refused a row's value: its record leaves that table as a dead letter. */
  #deadLetterRefused(table: TableName, items: readonly RoundBatch[], at: number, error: unknown): void {
    const place = rowAt(items, table, at);
    const offset = place?.item.batch.tables.get(table)?.[place.index]?._offset;
    if (!place || typeof offset !== 'bigint') throw error;
    const { batch } = place.item;
    this.options.log.warn(
      { table, topic: batch.topic, partition: batch.partition, offset: String(offset), reason: errorSummary(error) },
      'warehouse refused a row: dead letter',
    );
    dropRecord(batch, offset, table, 'rejected_by_warehouse', errorSummary(error), this.options.context, table);
  }

  #retry<T>(operation: () => Promise<T>): Promise<T> {
    const hooks: RetryHooks = {
      giveUp: this.options.giveUp,
      onFailure: (error, attempt, waitMs) => {
        const reason = errorSummary(error);
        this.#failing = { sinceMs: this.#failing?.sinceMs ?? Date.now(), reason };
        this.options.log.warn({ lane: this.options.lane, attempt, waitMs, reason }, 'warehouse call failed; retrying');
        this.#on('warehouse_failed');
      },
      onRecovered: () => {
        this.#failing = undefined;
        this.#on('warehouse_answered');
      },
    };
    return retryForever(operation, hooks, { clock: this.options.clock, what: 'the warehouse' });
  }
}
