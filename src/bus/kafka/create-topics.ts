import kafkajs, { type Admin } from 'kafkajs';
import type { Logger } from '../../util/log.ts';
import { SettingError } from '../../util/setting-error.ts';
import type { TopicSpec } from '../topics.ts';

// A CommonJS module: Node's ESM loader sees only some of its names (not this one) as named exports.
const { ConfigResourceTypes } = kafkajs;

/** Room above a record's own size for the batch framing Kafka counts in `max.message.bytes`. */
export const BATCH_OVERHEAD_BYTES = 64 * 1024;

/**
 * Creates the catalogue's topics that do not exist yet (existing ones are left as they are, so
 * running this on every start is harmless, also from several processes at once; a topic created
 * by an earlier version keeps CreateTime timestamps, see the bus README). A topic that
 * exists with another partition count is reported: its keys no longer map to the partitions the
 * embedded bus would use, and per-key order across the change is lost.
 *
 * Copies: every process opens the bus with one replication setting (`--replication-factor`,
 * TAPEHOUSE_REPLICATION_FACTOR; the broker's `default.replication.factor` when not set), and
 * whichever starts first creates the topics. So each open checks the existing topics against
 * it — replicas per partition, and `min.insync.replicas` of at least min(2, replicas) — and
 * refuses to start on a mismatch: with `acks=-1`, fewer copies than asked for would go unnoticed.
 */
export async function ensureTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  wanted: number | undefined,
  log: Logger,
  retentionMs?: number,
): Promise<void> {
  const replicationFactor = wanted ?? (await brokerDefaultReplication(admin));
  const created = await admin.createTopics({
    // kafkajs's own wait gives up on the "unknown topic" a broker answers right after creation.
    waitForLeaders: false,
    topics: specs.map((spec) => ({
      topic: spec.name,
      numPartitions: spec.partitions,
      replicationFactor,
      configEntries: topicConfig(spec, retentionMs ?? spec.retentionMs, Math.min(2, replicationFactor)),
    })),
  });
  const topics = await waitForLeaders(
    admin,
    specs.map((spec) => spec.name),
  );
  for (const spec of specs) {
    const found = topics.get(spec.name)?.partitions;
    if (found !== spec.partitions) {
      log.warn(
        { topic: spec.name, partitions: found, catalogue: spec.partitions },
        'topic partition count differs from the catalogue',
      );
    }
  }
  await checkCopies(admin, topics, replicationFactor, wanted !== undefined);
  if (retentionMs !== undefined) await keepRetention(admin, specs, retentionMs, log);
  log.info({ topics: specs.length, created, replicationFactor }, 'bus topics ready');
}

/** The configuration tapehouse gives each of its topics. */
function topicConfig(spec: TopicSpec, retentionMs: number, minInsync: number): Array<{ name: string; value: string }> {
  return [
    { name: 'cleanup.policy', value: 'delete' },
    { name: 'retention.ms', value: String(retentionMs) },
    // Retention counts from when the bus took a record, not from its receive time: a record
    // published with an old receive time (a replay, a republished dead letter, a test's fixed
    // day) would otherwise sit in a segment already past retention, deleted at the broker's
    // next check before any loader read it — a hole no gap records.
    { name: 'message.timestamp.type', value: 'LogAppendTime' },
    { name: 'max.message.bytes', value: String(spec.maxRecordBytes + BATCH_OVERHEAD_BYTES) },
    // With acks=-1, a write is durable once this many replicas have it.
    { name: 'min.insync.replicas', value: String(minInsync) },
  ];
}

/**
 * `--bus-retention` (TAPEHOUSE_BUS_RETENTION) given: existing topics whose `retention.ms` differs
 * get it, so the setting means the same on a cluster whose topics an earlier start created.
 * kafkajs has only the non-incremental AlterConfigs (it replaces a topic's whole set), so the
 * topic's whole configuration goes again, its `min.insync.replicas` as found.
 */
async function keepRetention(
  admin: Admin,
  specs: readonly TopicSpec[],
  retentionMs: number,
  log: Logger,
): Promise<void> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: specs.map((spec) => ({
      type: ConfigResourceTypes.TOPIC,
      name: spec.name,
      configNames: ['retention.ms', 'min.insync.replicas'],
    })),
  });
  const valueOf = (name: string, config: string) =>
    resources.find((r) => r.resourceName === name)?.configEntries.find((e) => e.configName === config)?.configValue;
  const changed = specs.filter((spec) => valueOf(spec.name, 'retention.ms') !== String(retentionMs));
  if (changed.length === 0) return;
  await admin.alterConfigs({
    validateOnly: false,
    resources: changed.map((spec) => ({
      type: ConfigResourceTypes.TOPIC,
      name: spec.name,
      configEntries: topicConfig(spec, retentionMs, Number(valueOf(spec.name, 'min.insync.replicas') ?? 1)),
    })),
  });
  log.info({ topics: changed.map((spec) => spec.name), retentionMs }, 'bus topic retention set');
}

export const REPLICATION_SETTING = '--replication-factor (TAPEHOUSE_REPLICATION_FACTOR)';

/** The broker's `default.replication.factor`: what a topic created without a setting gets. */
async function brokerDefaultReplication(admin: Admin): Promise<number> {
  const { brokers } = await admin.describeCluster();
  const broker = brokers[0];
  if (!broker) throw new Error('the Kafka cluster lists no broker');
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      { type: ConfigResourceTypes.BROKER, name: String(broker.nodeId), configNames: ['default.replication.factor'] },
    ],
  });
  const value = Number(
    resources[0]?.configEntries.find((entry) => entry.configName === 'default.replication.factor')?.configValue ?? 1,
  );
  return Number.isSafeInteger(value) && value > 0 ? value : 1;
}

/** Existing topics must keep the copies asked for: replicas per partition, and acks=-1 meaning at least min(2,
 * replicas). */
async function checkCopies(
  admin: Admin,
  topics: ReadonlyMap<string, TopicShape>,
  replicationFactor: number,
  explicit: boolean,
): Promise<void> {
  const wantedIsr = Math.min(2, replicationFactor);
  const asked = explicit
    ? `${REPLICATION_SETTING} ${replicationFactor}`
    : `the broker's default.replication.factor ${replicationFactor} (${REPLICATION_SETTING} not set)`;
  const fewer = [...topics].filter(([, shape]) => shape.replicas.some((n) => n !== replicationFactor));
  if (fewer.length > 0) {
    const list = fewer.map(([name, shape]) => `${name} (${[...new Set(shape.replicas)].join('/')})`).join(', ');
    throw new SettingError(
      `bus topics exist with another number of replicas than ${asked}: ${list}. Give the setting the topics were created with, or change the topics (kafka-reassign-partitions.sh) before starting`,
    );
  }
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [...topics.keys()].map((name) => ({
      type: ConfigResourceTypes.TOPIC,
      name,
      configNames: ['min.insync.replicas'],
    })),
  });
  const weak = resources.filter(
    (r) => Number(r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue ?? 1) < wantedIsr,
  );
  if (weak.length > 0) {
    throw new SettingError(
      `bus topics have min.insync.replicas below ${wantedIsr} with ${asked}, so acks=-1 would accept a write held by one copy: ${weak.map((r) => r.resourceName).join(', ')}. Raise it (kafka-configs.sh --alter --add-config min.insync.replicas=${wantedIsr})`,
    );
  }
}

interface TopicShape {
  partitions: number;
  /** Replicas of each partition. */
  replicas: number[];
}

const LEADER_WAIT_MS = 30_000;
const SETTLING = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION']);

/**
 * Waits until every partition of the topics has a leader that answers (metadata can name a
 * leader a moment before it serves), so neither the first publish nor the first lag reading races
 * the election; returns each topic's partitions and their replicas.
 */
async function waitForLeaders(admin: Admin, names: readonly string[]): Promise<Map<string, TopicShape>> {
  const deadline = Date.now() + LEADER_WAIT_MS;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [...names] });
      if (topics.every((topic) => topic.partitions.every((partition) => partition.leader >= 0))) {
        for (const name of names) await admin.fetchTopicOffsets(name);
        return new Map(
          topics.map((topic) => [
            topic.name,
            { partitions: topic.partitions.length, replicas: topic.partitions.map((p) => p.replicas.length) },
          ]),
        );
      }
    } catch (error) {
      if (!SETTLING.has((error as { type?: string }).type ?? '') || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topics have no leader after ${LEADER_WAIT_MS} ms: ${names.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
