import type { Admin } from 'kafkajs';
import type { Logger } from '../util/log.ts';
import type { TopicSpec } from './topics.ts';

/** Room above a record's own size for the batch framing Kafka counts in `max.message.bytes`. */
export const BATCH_OVERHEAD_BYTES = 64 * 1024;

/**
 * Creates the catalogue's topics that do not exist yet (existing ones are left as they are, so
 * running this on every start is harmless, also from several processes at once; a topic created
 * by an earlier version keeps CreateTime timestamps, see the bus README). A topic that
 * exists with another partition count is reported: its keys no longer map to the partitions the
 * embedded bus would use, and per-key order across the change is lost.
 */
export async function ensureTopics(admin: Admin, specs: readonly TopicSpec[], replicationFactor: number, log: Logger): Promise<void> {
  const created = await admin.createTopics({
    // kafkajs's own wait gives up on the "unknown topic" a broker answers right after creation.
    waitForLeaders: false,
    topics: specs.map((spec) => ({
      topic: spec.name,
      numPartitions: spec.partitions,
      replicationFactor,
      configEntries: [
        { name: 'cleanup.policy', value: 'delete' },
        { name: 'retention.ms', value: String(spec.retentionMs) },
        // Retention counts from when the bus took a record, not from its receive time: a record
        // published with an old receive time (a replay, a republished dead letter, a test's fixed
        // day) would otherwise sit in a segment already past retention, deleted at the broker's
        // next check before any loader read it — a hole no gap records.
        { name: 'message.timestamp.type', value: 'LogAppendTime' },
        { name: 'max.message.bytes', value: String(spec.maxRecordBytes + BATCH_OVERHEAD_BYTES) },
        // With acks=-1, a write is durable once this many replicas have it.
        { name: 'min.insync.replicas', value: String(Math.min(2, replicationFactor)) },
      ],
    })),
  });
  const topics = await waitForLeaders(admin, specs.map((spec) => spec.name));
  for (const spec of specs) {
    const found = topics.get(spec.name);
    if (found !== spec.partitions) {
      log.warn({ topic: spec.name, partitions: found, catalogue: spec.partitions }, 'topic partition count differs from the catalogue');
    }
  }
  log.info({ topics: specs.length, created }, 'bus topics ready');
}

const LEADER_WAIT_MS = 30_000;
const SETTLING = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION']);

/**
 * Waits until every partition of the topics has a leader that answers (metadata can name a
 * leader a moment before it serves), so neither the first publish nor the first lag reading races
 * the election; returns each topic's partition count.
 */
async function waitForLeaders(admin: Admin, names: readonly string[]): Promise<Map<string, number>> {
  const deadline = Date.now() + LEADER_WAIT_MS;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [...names] });
      if (topics.every((topic) => topic.partitions.every((partition) => partition.leader >= 0))) {
        for (const name of names) await admin.fetchTopicOffsets(name);
        return new Map(topics.map((topic) => [topic.name, topic.partitions.length]));
      }
    } catch (error) {
      if (!SETTLING.has((error as { type?: string }).type ?? '') || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topics have no leader after ${LEADER_WAIT_MS} ms: ${names.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
