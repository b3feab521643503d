import { DECLARATIONS, type Lane, type RecordKind } from '../records/index.ts';

/**
 * The topic catalogue: every record kind has exactly one topic; each topic says what its key is,
 * how many partitions it has and how long the bus keeps it. Both buses read it (the embedded bus
 * for partition counts and record size limits, Kafka to create the topics).
 *
 * Keys: market data is keyed by `condition_id`, so both outcomes of a market (and a book's
 * snapshots with its changes) stay in one partition, in order; account data is keyed by the
 * account, so one account's orders, fills and positions stay in order.
 *
 * Retention is how long a loader may be down before it misses records: the warehouse keeps the
 * history, the bus only has to bridge an outage. Partition counts are fixed once a topic exists
 * (more partitions would move keys): choose them for the busiest day expected.
 */

export interface TopicSpec {
  name: string;
  kinds: readonly RecordKind[];
  /** What the record key is on this topic (documentation; producers set `record.key` to it). */
  key: string;
  partitions: number;
  retentionMs: number;
  /** Largest encoded record accepted (Kafka `max.message.bytes`); larger ones are refused. */
  maxRecordBytes: number;
  /** The loader's insert lane for its records (src/load/loader.ts). */
  lane: Lane;
}

type Layout = Omit<TopicSpec, 'name'> & { suffix: string };

/**
 * The topics, derived from the kinds' declarations (src/records/kinds/): kinds that declare one
 * suffix share its topic, in the declarations' order. The README's topic table is generated from them.
 */
const LAYOUT: readonly Layout[] = (() => {
  const bySuffix = new Map<string, Layout>();
  for (const { name, topic } of Object.values(DECLARATIONS)) {
    const spec = bySuffix.get(topic.suffix);
    const layout: Layout = {
      suffix: topic.suffix,
      kinds: [...(spec?.kinds ?? []), name],
      key: topic.key.what,
      partitions: topic.partitions,
      retentionMs: topic.retentionMs,
      maxRecordBytes: topic.maxRecordBytes,
      lane: topic.lane,
    };
    if (
      spec &&
      (spec.partitions !== layout.partitions ||
        spec.retentionMs !== layout.retentionMs ||
        spec.maxRecordBytes !== layout.maxRecordBytes ||
        spec.lane !== layout.lane ||
        spec.key !== layout.key)
    )
      throw new Error(
        `kinds ${spec.kinds.join(', ')} and ${name} share topic ${topic.suffix} but declare it differently`,
      );
    bySuffix.set(topic.suffix, layout);
  }
  return [...bySuffix.values()];
})();

/** The suffixes of the topics whose records take the loader's short lane. */
export const SHORT_LANE_SUFFIXES: readonly string[] = LAYOUT.filter((t) => t.lane === 'short').map((t) => t.suffix);

export const DEFAULT_TOPIC_PREFIX = 'tapehouse';

export interface TopicCatalogue {
  readonly prefix: string;
  readonly topics: readonly TopicSpec[];
  /** The topic a record of this kind is published to. */
  topicFor(kind: RecordKind): string;
  /** The topic's spec, or undefined when it is not in the catalogue. */
  spec(topic: string): TopicSpec | undefined;
}

/**
 * The catalogue with topic names `<prefix>.<suffix>`, e.g. `tapehouse.market.trades`. A prefix
 * other than the default lets several deployments (or test runs) share one Kafka cluster.
 */
export function createTopicCatalogue(prefix = DEFAULT_TOPIC_PREFIX): TopicCatalogue {
  const topics = LAYOUT.map(({ suffix, ...rest }): TopicSpec => ({ name: `${prefix}.${suffix}`, ...rest }));
  const byKind = new Map<RecordKind, string>();
  const byName = new Map<string, TopicSpec>();
  for (const spec of topics) {
    byName.set(spec.name, spec);
    for (const kind of spec.kinds) byKind.set(kind, spec.name);
  }
  return {
    prefix,
    topics,
    topicFor(kind) {
      const topic = byKind.get(kind);
      if (topic === undefined) throw new Error(`record kind ${kind} has no topic in the catalogue`);
      return topic;
    },
    spec: (topic) => byName.get(topic),
  };
}

export const TOPICS: TopicCatalogue = createTopicCatalogue();
