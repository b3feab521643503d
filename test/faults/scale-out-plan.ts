import { Kafka, logLevel } from 'kafkajs';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import type { ScaleOutPipeline } from './pipelines.ts';
import { sleep } from './procs.ts';

/**
 * The scale-out mode's script (about four minutes): loaders joining and leaving under load — two,
 * three, a rolling restart where the new member starts before the old one stops —; the warehouse
 * restored from a backup while Kafka still holds what was loaded since; right after, while the
 * loaders reload that backlog, the warehouse down for longer than kafkajs's default rebalance
 * timeout (60 s) with one member leaving and one joining inside the outage; Kafka away for a
 * while as the sync jobs publish. Each step is counted under its name in `faults`.
 */
export const WAREHOUSE_OUTAGE_MS = 70_000;
const RESTORE_KEEP_MS = 15_000;
// The mode's own broker stopped this long, then started (its start takes some 20 s more).
const KAFKA_OUTAGE_MS = 5_000;

export async function scaleOutTimeline(
  pipeline: ScaleOutPipeline,
  faults: Record<string, number>,
  problems: string[],
  log: (line: string) => void,
): Promise<void> {
  const count = (name: string) => {
    faults[name] = (faults[name] ?? 0) + 1;
    log(name);
  };
  const step = async (name: string, action: () => Promise<void>, thenWaitMs: number) => {
    count(name);
    await action();
    await sleep(thenWaitMs);
  };
  await step('loader_joins', () => pipeline.join(), 10_000); // 2 members
  await step('loader_joins', () => pipeline.join(), 10_000); // 3
  await step('loader_leaves', () => pipeline.leave(), 8_000); // 2
  // A rolling restart: the new member starts before the old one stops.
  await step('loader_joins', () => pipeline.join(), 5_000); // 3
  await step('loader_leaves', () => pipeline.leave(), 8_000); // 2
  await step('warehouse_restored_from_backup', () => pipeline.restoreFromBackup(RESTORE_KEEP_MS), 0); // 1, reloading
  await step('loader_joins', () => pipeline.join(), 3_000); // 2
  // The warehouse down for longer than the rebalance timeout, while the loaders hold a backlog;
  // a member leaves (its clean stop gives up on the warehouse) and one joins inside the outage.
  await step('warehouse_outage_past_rebalance_timeout', () => pipeline.warehouse(true), 5_000);
  // A member that fails to leave or join is a failure of the loaders: counted, and the script goes on.
  const noted = (change: Promise<void>) =>
    change.catch((error: unknown) => void problems.push(`loader membership change failed: ${String(error)}`));
  count('loader_leaves_during_outage');
  const leaving = noted(pipeline.leave());
  await sleep(10_000);
  count('loader_joins_during_outage');
  const joining = noted(pipeline.join());
  await sleep(WAREHOUSE_OUTAGE_MS - 15_000);
  await pipeline.warehouse(false);
  log('warehouse back');
  await Promise.all([leaving, joining]);
  await sleep(10_000);
  await step('kafka_outage_during_sync', () => pipeline.kafkaOutage(KAFKA_OUTAGE_MS), 0);
  log('kafka back');
}

/** Each partition's log start (the oldest offset Kafka still holds) of the run's topics, `topic|partition` → offset. */
export async function busLogStarts(brokers: string, prefix: string): Promise<Record<string, string>> {
  const admin = new Kafka({
    clientId: 'tapehouse-fault-suite',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const starts: Record<string, string> = {};
    for (const { name } of createTopicCatalogue(prefix).topics) {
      for (const { partition, low } of await admin.fetchTopicOffsets(name)) starts[`${name}|${partition}`] = low;
    }
    return starts;
  } finally {
    await admin.disconnect();
  }
}
