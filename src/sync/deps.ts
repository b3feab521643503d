import type { Bus } from '../bus/bus.ts';
import { TOPICS, type TopicCatalogue } from '../bus/topics.ts';
import { createLogger, type Logger } from '../util/log.ts';
import type { CheckpointStore } from './checkpoint.ts';
import { PublishedMemory } from './publisher.ts';
import type { SyncVenue } from './venue.ts';

/** Knobs of the jobs; the defaults suit the documented venue. */
export interface SyncTuning {
  /** Items per page of each paged list (the interface's maxima where it names them). */
  pageSize: { events: number; orders: number; openOrders: number; trades: number; activities: number };
  /** A CANCELLED order can still turn MATCHED by a late fill (§3.1): watched this long after the cancel. */
  lateFillGraceMs: number;
  /** Items older than this count as settled even if their status could still change (bounds every pass). */
  openHorizonMs: number;
  /** An endpoint not offered here is asked again only after this long. */
  unavailableRetryMs: number;
}

export const DEFAULT_TUNING: SyncTuning = {
  pageSize: { events: 100, orders: 500, openOrders: 500, trades: 500, activities: 500 },
  lateFillGraceMs: 10 * 60_000,
  openHorizonMs: 24 * 60 * 60_000,
  unavailableRetryMs: 30 * 60_000,
};

/** Everything a sync job needs; the same for the embedded scheduler and a Temporal worker. */
export interface SyncDeps {
  venue: SyncVenue;
  bus: Bus;
  topics: TopicCatalogue;
  /** Label of the account the token belongs to: the partition key and `account` column of its records. */
  account: string;
  checkpoints: CheckpointStore;
  memory: PublishedMemory;
  logger: Logger;
  /** Wall-clock time in ms since the epoch (venue times are compared with it). */
  now(): number;
  tuning: SyncTuning;
}

export interface SyncDepsOptions {
  venue: SyncVenue;
  bus: Bus;
  checkpoints: CheckpointStore;
  account: string;
  topics?: TopicCatalogue;
  memory?: PublishedMemory;
  logger?: Logger;
  now?: () => number;
  tuning?: Partial<SyncTuning>;
}

/** The jobs' dependencies with the defaults filled in. */
export function syncDeps(options: SyncDepsOptions): SyncDeps {
  const tuning = { ...DEFAULT_TUNING, ...options.tuning };
  return {
    venue: options.venue,
    bus: options.bus,
    checkpoints: options.checkpoints,
    account: options.account,
    topics: options.topics ?? TOPICS,
    memory: options.memory ?? new PublishedMemory(),
    logger: options.logger ?? createLogger('sync'),
    now: options.now ?? Date.now,
    tuning: { ...tuning, pageSize: { ...DEFAULT_TUNING.pageSize, ...options.tuning?.pageSize } },
  };
}
