import type { TopicPartition } from '../../bus/bus.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import type { Row } from '../mapping/types.ts';
import { landedBatches } from './landed-batches.ts';

/**
 * The embedded bus lives in memory: what it held unstored when its process was killed is gone.
 * Each process run of it is a *bus epoch*; `bus_coverage` records the run's start and a clean stop.
 * When the next run starts, every earlier run that neither stopped cleanly nor had its gaps written
 * gets one `capture_gaps` row per topic-partition (stream `bus`, reason `bus_undelivered`), from
 * the newest receive time stored in that partition (or the run's start) to the restart.
 */

export interface EpochScope {
  warehouse: Warehouse;
  group: string;
  epoch: string;
}

interface EpochRow {
  bus_epoch: string;
  started: string;
  last_state: string;
}

interface CoveredRow {
  bus_epoch: string;
  topic: string;
  partition: number;
  covered_us: string;
  last_offset: string;
}

export interface EpochOpening {
  /** Earlier runs found killed, whose gaps were just recorded. */
  killedRuns: number;
  gaps: number;
}

/**
 * Records the gaps of earlier runs of the group that were killed, then this run's start. Safe to
 * repeat after a crash midway: a run's gap rows depend only on what it recorded and on when the
 * next run started, and go in with one deduplication token per run.
 */
export async function openEpoch(
  scope: EpochScope,
  startedAtUs: bigint,
  partitions: readonly TopicPartition[],
): Promise<EpochOpening> {
  // This run's start goes first: if it is killed while writing the gaps below, the next run sees
  // it as a killed run too, and the gaps of the runs before end where this one began, as here.
  await scope.warehouse.insertRows('bus_coverage', [epochRow(scope.group, scope.epoch, 'started', startedAtUs)]);
  const runs = await readRuns(scope);
  const killed = runs.filter((run) => run.bus_epoch !== scope.epoch && run.last_state === 'started');
  const covered = await readCoverage(
    scope,
    killed.map((run) => ({ epoch: run.bus_epoch, startedUs: BigInt(run.started) })),
  );
  let gaps = 0;
  for (const run of killed) {
    const started = BigInt(run.started);
    const restart = runs.map((next) => BigInt(next.started)).find((at) => at > started) ?? startedAtUs;
    const rows = partitions.flatMap((tp) =>
      gapRow(run.bus_epoch, tp, started, restart, covered.get(coverageKey(run.bus_epoch, tp))),
    );
    if (rows.length > 0)
      await scope.warehouse.insertRows('capture_gaps', rows, {
        dedupToken: `bus_gaps:${scope.group}:${run.bus_epoch}`,
      });
    gaps += rows.length;
  }
  if (killed.length > 0)
    await scope.warehouse.insertRows(
      'bus_coverage',
      killed.map((run) => epochRow(scope.group, run.bus_epoch, 'gaps_recorded', startedAtUs)),
    );
  return { killedRuns: killed.length, gaps };
}

/** A clean stop: nothing published to the bus was left unstored, so no gap. */
export async function recordDrained(scope: EpochScope, atUs: bigint): Promise<void> {
  await scope.warehouse.insertRows('bus_coverage', [epochRow(scope.group, scope.epoch, 'drained', atUs)]);
}

function epochRow(group: string, epoch: string, state: string, atUs: bigint): Row {
  return { consumer_group: group, bus_epoch: epoch, state, covered_until: atUs, recorded_at: atUs };
}

async function readRuns(scope: EpochScope): Promise<EpochRow[]> {
  const result = await scope.warehouse.client.query({
    query: `SELECT bus_epoch, toString(toUnixTimestamp64Micro(minIf(covered_until, state = 'started'))) AS started,
                   argMax(state, recorded_at) AS last_state
            FROM tapehouse.bus_coverage
            WHERE consumer_group = {group:String} AND topic = '' AND state IN ('started', 'drained', 'gaps_recorded')
            GROUP BY bus_epoch
            HAVING countIf(state = 'started') > 0
            ORDER BY toUInt64(started)`,
    query_params: { group: scope.group },
    format: 'JSONEachRow',
  });
  return result.json<EpochRow>();
}

interface Coverage {
  coveredUs: bigint;
  lastOffset: bigint;
}

/**
 * Per run and partition: the newest receive time stored, and the last offset stored (-1 if none):
 * from its `after` rows, and the batches that landed without their `after`.
 *
 * Only stored records count. "Nothing unstored on the bus at instant T" would not do: a record
 * received before T can be published after it (its publish waited behind another partition of the
 * topic), be lost, and have to lie inside the gap.
 */
async function readCoverage(
  scope: EpochScope,
  runs: ReadonlyArray<{ epoch: string; startedUs: bigint }>,
): Promise<Map<string, Coverage>> {
  const coverage = new Map<string, Coverage>();
  if (runs.length === 0) return coverage;
  const result = await scope.warehouse.client.query({
    query: `SELECT bus_epoch, topic, partition, toString(toUnixTimestamp64Micro(max(max_received_at))) AS covered_us,
                   toString(max(max_offset)) AS last_offset
            FROM tapehouse.loader_offsets
            WHERE consumer_group = {group:String} AND bus_epoch IN {epochs:Array(String)} AND state = 'after'
            GROUP BY bus_epoch, topic, partition`,
    query_params: { group: scope.group, epochs: runs.map((run) => run.epoch) },
    format: 'JSONEachRow',
  });
  const extend = (key: string, coveredUs: bigint, lastOffset: bigint) => {
    const known = coverage.get(key);
    coverage.set(key, {
      coveredUs: known && known.coveredUs > coveredUs ? known.coveredUs : coveredUs,
      lastOffset: known && known.lastOffset > lastOffset ? known.lastOffset : lastOffset,
    });
  };
  for (const row of await result.json<CoveredRow>())
    extend(coverageKey(row.bus_epoch, row), BigInt(row.covered_us), BigInt(row.last_offset));
  for (const batch of await landedBatches(scope.warehouse.client, scope.group, runs)) {
    extend(coverageKey(batch.epoch, batch), batch.maxReceivedUs, batch.lastOffset);
  }
  return coverage;
}

function coverageKey(epoch: string, { topic, partition }: TopicPartition): string {
  return `${epoch}\u0000${topic}\u0000${partition}`;
}

function gapRow(
  killed: string,
  tp: TopicPartition,
  startedUs: bigint,
  restartUs: bigint,
  coverage: Coverage | undefined,
): Row[] {
  const from = coverage && coverage.coveredUs > startedUs ? coverage.coveredUs : startedUs;
  if (from >= restartUs) return [];
  const lastOffset = coverage?.lastOffset ?? -1n;
  const detail = {
    lost_run: killed,
    last_stored_offset: lastOffset < 0n ? null : String(lastOffset),
    why: 'the embedded bus keeps records in memory; what it held unstored when its process was killed is gone',
  };
  return [
    busGapRow(tp, {
      startUs: from,
      endUs: restartUs,
      reason: 'bus_undelivered',
      detail,
      offset: lastOffset + 1n,
      recordedAtUs: restartUs,
    }),
  ];
}

export interface BusGap {
  startUs: bigint;
  endUs: bigint;
  reason: 'bus_undelivered' | 'bus_expired';
  detail: Record<string, unknown>;
  /** The first offset the gap concerns. */
  offset: bigint;
  recordedAtUs: bigint;
}

/** A `capture_gaps` row for records a topic-partition of the bus lost (stream `bus`, nothing to recover). */
export function busGapRow(tp: TopicPartition, gap: BusGap): Row {
  return {
    stream: 'bus',
    channel: tp.topic,
    subject_kind: 'partition',
    subject: String(tp.partition),
    gap_start: gap.startUs,
    gap_end: gap.endUs,
    reason: gap.reason,
    recovery: 'none',
    detail: JSON.stringify(gap.detail),
    _topic: tp.topic,
    _partition: tp.partition,
    _offset: gap.offset,
    _index: 0,
    _received_at: gap.recordedAtUs,
  };
}
