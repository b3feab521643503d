import type { Warehouse } from '../../warehouse/warehouse.ts';
import { busGapRow } from './bus-coverage.ts';
import type { OffsetsScope } from './loader-offsets.ts';

/**
 * Records the bus deleted before this group stored them (Kafka retention ran out while the
 * loaders were down or behind): the bus then hands over its oldest kept record, past the offset
 * the warehouse says comes next. Offsets on our topics are contiguous (cleanup policy `delete`,
 * no transactions), so the offsets in between are known lost: one `capture_gaps` row per such
 * jump (stream `bus`, reason `bus_expired`, recovery `none`), from the newest receive time stored
 * in the partition (the Unix epoch when nothing was) to the first record kept, its offsets in
 * `detail`. A jump found again after a restart goes in with the same deduplication token.
 */
export interface ExpiredRange {
  topic: string;
  partition: number;
  firstMissing: bigint;
  lastMissing: bigint;
  /** Receive time of the first record the bus still had (µs), the gap's end. */
  resumedAtUs: bigint;
}

export async function recordExpired(
  warehouse: Warehouse,
  scope: OffsetsScope,
  range: ExpiredRange,
  nowUs: bigint,
): Promise<void> {
  const coveredUs = await newestStoredUs(warehouse, scope, range);
  const detail = {
    first_missing_offset: String(range.firstMissing),
    last_missing_offset: String(range.lastMissing),
    records: String(range.lastMissing - range.firstMissing + 1n),
    why: 'the bus deleted these records (retention) before this consumer group stored them',
  };
  const startUs = coveredUs < range.resumedAtUs ? coveredUs : range.resumedAtUs;
  const row = busGapRow(range, {
    startUs,
    endUs: range.resumedAtUs,
    reason: 'bus_expired',
    detail,
    offset: range.firstMissing,
    recordedAtUs: nowUs,
  });
  const token = `bus_expired:${scope.group}:${range.topic}:${range.partition}:${range.firstMissing}-${range.lastMissing}`;
  await warehouse.insertRows('capture_gaps', [row], { dedupToken: token });
}

async function newestStoredUs(warehouse: Warehouse, scope: OffsetsScope, range: ExpiredRange): Promise<bigint> {
  const result = await warehouse.client.query({
    query: `SELECT toString(toUnixTimestamp64Micro(max(max_received_at))) AS us
            FROM tapehouse.loader_offsets
            WHERE consumer_group = {group:String} AND bus_epoch = {epoch:String} AND topic = {topic:String}
              AND partition = {partition:UInt32} AND state = 'after'`,
    query_params: { group: scope.group, epoch: scope.epoch, topic: range.topic, partition: range.partition },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ us: string }>();
  return BigInt(row?.us ?? '0');
}
