import type { RecordKind } from './record.ts';

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
}

const DAY_MS = 24 * 60 * 60 * 1000;
const MiB = 1024 * 1024;

type Layout = Omit<TopicSpec, 'name'> & { suffix: string };

const MARKET = { retentionMs: 7 * DAY_MS, maxRecordBytes: 2 * MiB };
const ACCOUNT = { key: 'account', partitions: 3, retentionMs: 30 * DAY_MS, maxRecordBytes: 8 * MiB };
// REST bodies can be large (an event with 150 recurring cycles), hence the higher record limit.
const SYNC = { partitions: 3, retentionMs: 7 * DAY_MS, maxRecordBytes: 8 * MiB };

const LAYOUT: readonly Layout[] = [
  { suffix: 'market.trades', kinds: ['trade'], key: 'condition_id', partitions: 6, ...MARKET },
  // Snapshots travel with the changes they anchor, so a replay sees them in order.
  { suffix: 'market.books', kinds: ['book_snapshot', 'book_change'], key: 'condition_id', partitions: 12, ...MARKET },
  { suffix: 'market.quotes', kinds: ['quote'], key: 'condition_id', partitions: 6, ...MARKET },
  {
    suffix: 'market.status',
    kinds: ['market_status'],
    key: 'condition_id (event id for event-scoped kinds)',
    partitions: 3,
    ...MARKET,
  },
  // One partition each: few records, and a reader wants them in the order they were found.
  {
    suffix: 'capture.gaps',
    kinds: ['capture_gap'],
    key: 'stream',
    partitions: 1,
    retentionMs: 30 * DAY_MS,
    maxRecordBytes: 2 * MiB,
  },
  {
    suffix: 'capture.quality',
    kinds: ['data_quality'],
    key: 'condition_id',
    partitions: 1,
    retentionMs: 30 * DAY_MS,
    maxRecordBytes: 2 * MiB,
  },
  { suffix: 'account.events', kinds: ['account_event'], ...ACCOUNT },
  { suffix: 'account.portfolio', kinds: ['portfolio_sync'], ...ACCOUNT },
  { suffix: 'sync.events', kinds: ['event'], key: 'event id', ...SYNC },
  { suffix: 'sync.markets', kinds: ['market'], key: 'condition_id', ...SYNC },
  { suffix: 'sync.orders', kinds: ['order'], key: 'account', ...SYNC },
  { suffix: 'sync.fills', kinds: ['fill'], key: 'account', ...SYNC },
  { suffix: 'sync.positions', kinds: ['position'], key: 'account', ...SYNC },
  { suffix: 'sync.portfolio_summaries', kinds: ['portfolio_summary'], key: 'account', ...SYNC },
  { suffix: 'sync.pnl', kinds: ['pnl_settled'], key: 'account', ...SYNC },
  { suffix: 'sync.rebates', kinds: ['rebates'], key: 'account', ...SYNC },
  { suffix: 'sync.activities', kinds: ['activity'], key: 'account', ...SYNC },
  { suffix: 'sync.lp_incentives', kinds: ['lp_incentive'], key: 'account', ...SYNC },
  { suffix: 'sync.withdrawal_assets', kinds: ['withdrawal_assets'], key: 'account', ...SYNC },
  // Price feeds: keyed by symbol, so one asset's prices stay in order; few symbols, few partitions.
  { suffix: 'prices.stream', kinds: ['price'], key: 'symbol', partitions: 3, ...MARKET },
  { suffix: 'prices.oracle_pro', kinds: ['oracle_pro_price'], key: 'symbol', partitions: 3, ...MARKET },
  // sync: lookup maps, sports sections, categories, account batches
  { suffix: 'sync.lookups', kinds: ['lookup'], key: 'account', ...SYNC },
  { suffix: 'sync.sports_sections', kinds: ['sports_sections'], key: 'sports_live', ...SYNC },
  { suffix: 'sync.categories', kinds: ['category'], key: 'category slug', ...SYNC },
  { suffix: 'sync.account_batches', kinds: ['account_batch'], key: 'account', ...SYNC },
];

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
