import type { ClickHouseClient } from '@clickhouse/client';
import { RENAMED_TABLES, type Row } from '../mapping/types.ts';
import { roundIdOf, type Batch, type RecordedRound, type UnfinishedRange } from '../batching/batch.ts';
import type { PartitionStart } from '../batching/partition-batcher.ts';
import { compareBigints } from '../../util/compare.ts';
import { decideRecorded, relate, standingOf } from '../protocol/index.ts';

/**
 * The loaders' progress in the warehouse (`loader_offsets`), the source of truth for where to
 * resume: a `before` row per table when a batch's range is about to be inserted, an `after` row
 * once ClickHouse acknowledged it. Bus commits only ever follow an `after`.
 */

export interface OffsetsScope {
  group: string;
  /** '' on a durable bus (Kafka); the run's id on the embedded bus. */
  epoch: string;
  /** This loader process, for the record. */
  loaderId: string;
}

export type BatchState = 'before' | 'after';

/**
 * The rows recording a batch's state: one per table it inserts into, with the rows it holds for
 * it and the deduplication token they go with (one row with no table when it has no rows).
 */
export function offsetRows(
  batch: Batch,
  tokenOf: (table: string) => string,
  state: BatchState,
  scope: OffsetsScope,
  recordedAtUs: bigint,
): Row[] {
  const common = {
    consumer_group: scope.group,
    bus_epoch: scope.epoch,
    topic: batch.topic,
    partition: batch.partition,
    min_offset: batch.range.first,
    max_offset: batch.range.last,
    max_received_at: batch.maxReceivedUs,
    state,
    loader_id: scope.loaderId,
    recorded_at: recordedAtUs,
  };
  const rows = [...batch.tables]
    .filter(([, tableRows]) => tableRows.length > 0)
    .map(([table, tableRows]): Row => ({
      ...common,
      target_table: table,
      row_count: tableRows.length,
      dedup_token: tokenOf(table),
    }));
  return rows.length > 0 ? rows : [{ ...common, target_table: '', row_count: 0, dedup_token: '' }];
}

interface RangeState {
  topic: string;
  partition: number;
  first: string;
  last: string;
  done: number;
  /** [table, token] of its `before` rows. */
  tokens: Array<[string, string]>;
  recorded_us: string;
  latest_us: string;
}

// The few newest ranges per partition are enough: at most three ranges of a partition are ever
// between their before and after (a round takes one range per partition; the next round's before
// is recorded while this round is in the engine, with the after of the round before it).
const NEWEST_RANGES = 8;

/**
 * Where each partition of `topics` stands for the group: the last range stored (`after`), and the
 * ranges above it recorded `before` but never `after` — those are rebuilt exactly.
 */
export async function readPartitionStarts(
  client: ClickHouseClient,
  scope: OffsetsScope,
  topics: readonly string[],
  onLate: (late: LateRange) => void = () => undefined,
): Promise<Map<string, PartitionStart>> {
  // Per range and table the token of its newest `before` (a range recorded twice with different
  // tokens is a killed loader's late `before`, see leaveOutLateRanges), then per range.
  const result = await client.query({
    query: `SELECT topic, partition, toString(min_offset) AS first, toString(max_offset) AS last, max(table_done) AS done,
                   groupArrayIf((table, token), table != '' AND token != '') AS tokens,
                   toString(toUnixTimestamp64Micro(min(first_before))) AS recorded_us,
                   toString(toUnixTimestamp64Micro(max(last_before))) AS latest_us
            FROM (
              SELECT topic, partition, min_offset, max_offset, toString(target_table) AS table, max(state = 'after') AS table_done,
                     argMaxIf(dedup_token, recorded_at, state = 'before') AS token,
                     minIf(recorded_at, state = 'before') AS first_before, maxIf(recorded_at, state = 'before') AS last_before
              FROM tapehouse.loader_offsets
              WHERE consumer_group = {group:String} AND bus_epoch = {epoch:String} AND topic IN {topics:Array(String)}
              GROUP BY topic, partition, min_offset, max_offset, table
            )
            GROUP BY topic, partition, min_offset, max_offset
            ORDER BY topic, partition, max_offset DESC
            LIMIT ${NEWEST_RANGES} BY topic, partition`,
    query_params: { group: scope.group, epoch: scope.epoch, topics },
    format: 'JSONEachRow',
  });
  const newestFirst = new Map<string, RangeState[]>();
  for (const range of await result.json<RangeState>()) {
    const key = partitionKey(range.topic, range.partition);
    const list = newestFirst.get(key);
    if (list) list.push(range);
    else newestFirst.set(key, [range]);
  }
  const starts = new Map<string, PartitionStart>();
  for (const [key, ranges] of newestFirst) {
    const start = startOf(ranges);
    for (const range of start.late)
      onLate({
        topic: ranges[0]!.topic,
        partition: Number(ranges[0]!.partition),
        first: range.first,
        last: range.last,
      });
    starts.set(key, { stored: start.stored, unfinished: start.unfinished });
  }
  await attachRounds(client, scope, starts);
  return starts;
}

interface MemberRow {
  round: string;
  topic: string;
  partition: number;
  first: string;
  last: string;
}

/**
 * Each unfinished range recorded with a round's tokens learns every range that round held (the
 * `before` rows with its token, written from the round's first `before` on), and whether the
 * round may be sent again whole: a round token must only ever go with the same rows, since
 * ClickHouse keeps its block ids per table partition — materialized views' targets too — and part
 * of a round sent with it again would be stored in some partitions and dropped in others.
 */
async function attachRounds(
  client: ClickHouseClient,
  scope: OffsetsScope,
  starts: Map<string, PartitionStart>,
): Promise<void> {
  const byRound = new Map<string, UnfinishedRange[]>();
  for (const start of starts.values()) {
    for (const range of start.unfinished) {
      const ids = new Set([...range.tokens.values()].map((token) => roundIdOf(token) ?? ''));
      const [id] = ids;
      if (ids.size !== 1 || !id) continue;
      const list = byRound.get(id);
      if (list) list.push(range);
      else byRound.set(id, [range]);
    }
  }
  if (byRound.size === 0) return;
  const sinceUs = [...byRound.values()]
    .flat()
    .reduce(
      (min, range) => (range.recordedAtUs < min ? range.recordedAtUs : min),
      BigInt(Number.MAX_SAFE_INTEGER) * 1000n,
    );
  const result = await client.query({
    query: `SELECT extract(dedup_token, ':round:([^@]+)') AS round, topic, partition, toString(min_offset) AS first, toString(max_offset) AS last
            FROM tapehouse.loader_offsets
            WHERE consumer_group = {group:String} AND bus_epoch = {epoch:String} AND state = 'before'
              AND recorded_at >= fromUnixTimestamp64Micro({since:Int64}) AND round IN {rounds:Array(String)}
            GROUP BY round, topic, partition, min_offset, max_offset`,
    query_params: { group: scope.group, epoch: scope.epoch, since: sinceUs.toString(), rounds: [...byRound.keys()] },
    format: 'JSONEachRow',
  });
  const members = new Map<string, RecordedRound['members'][number][]>();
  for (const row of await result.json<MemberRow>()) {
    const list = members.get(row.round) ?? [];
    list.push({ topic: row.topic, partition: Number(row.partition), first: BigInt(row.first), last: BigInt(row.last) });
    members.set(row.round, list);
  }
  for (const [id, ranges] of byRound) {
    const held = members.get(id) ?? [];
    // Whole again only if each of its ranges is still unfinished with this round's tokens alone.
    const replayable =
      held.length > 0 &&
      held.every((member) =>
        byRound
          .get(id)!
          .some((range) => range === findRange(starts, member.topic, member.partition, member.first, member.last)),
      );
    const round: RecordedRound = { id, members: held, replayable };
    for (const range of ranges) range.round = round;
  }
}

function findRange(
  starts: Map<string, PartitionStart>,
  topic: string,
  partition: number,
  first: bigint,
  last: bigint,
): UnfinishedRange | undefined {
  return starts
    .get(partitionKey(topic, partition))
    ?.unfinished.find((range) => range.first === first && range.last === last);
}

/** A range recorded `before` by a killed loader after the next one read where storing stands (see leaveOutLateRanges). */
export interface LateRange {
  topic: string;
  partition: number;
  first: bigint;
  last: bigint;
}

/** Unfinished ranges down to the newest finished one, which is where storing stands; and the late ones left out. */
function startOf(newestFirst: readonly RangeState[]): PartitionStart & { late: UnfinishedRange[] } {
  const unfinished: RecordedRange[] = [];
  let stored: bigint | undefined;
  for (const range of newestFirst) {
    if (Number(range.done) === 1) {
      stored = BigInt(range.last);
      break;
    }
    unfinished.unshift({
      first: BigInt(range.first),
      last: BigInt(range.last),
      tokens: new Map(range.tokens.map(([table, token]) => [RENAMED_TABLES[table] ?? table, token])),
      recordedAtUs: BigInt(range.recorded_us),
      latestUs: BigInt(range.latest_us),
    });
  }
  const resolved = leaveOutLateRanges(unfinished, stored);
  const kept = resolved.map(({ latestUs: _, ...range }): UnfinishedRange => range);
  const late = unfinished.filter((range) => !resolved.includes(range));
  // No finished range in view: storing stands just below the oldest unfinished one.
  return { stored: stored ?? (kept[0] ? kept[0].first - 1n : -1n), unfinished: kept, late };
}

interface RecordedRange extends UnfinishedRange {
  /** When its `before` was last recorded (µs): a rebuilt range records it again. */
  latestUs: bigint;
}

/**
 * The unfinished ranges a loader really recorded, without the late ones: a loader killed while
 * its `before` insert was on the wire may have that insert land after the next loader read where
 * storing stands (a server finishes a request whose client died). That next loader cut its own
 * ranges from there, so the late range overlaps one recorded after it, or starts at or below a
 * range stored since. Its rows were never sent (data goes only once its `before` is acknowledged);
 * rebuilt, they would be stored a second time. In a history without late rows, unfinished ranges
 * never overlap and all start above the stored one. Of overlapping ranges the newest recorded is
 * kept: had the late one been seen when the newer was cut, that would have rebuilt it instead.
 */
function leaveOutLateRanges(oldestFirst: readonly RecordedRange[], stored: bigint | undefined): RecordedRange[] {
  const kept: RecordedRange[] = [];
  for (const range of [...oldestFirst].sort((a, b) => compareBigints(b.latestUs, a.latestUs))) {
    const standing = { stored: stored ?? -1n, unfinished: kept };
    if (decideRecorded(standingOf(standing), relate(range, standing)) === 'rebuild') kept.push(range);
  }
  return kept.sort((a, b) => compareBigints(a.first, b.first));
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
