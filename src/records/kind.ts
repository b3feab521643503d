import type { z } from 'zod';

/**
 * What a producer knows about a record's subject that its payload may not say: the key functions
 * read it (the account of an account-scoped kind, the condition of a subscribed token).
 */
export interface KeyHints {
  /** The condition of the token the record is about, when the producer knows it. */
  conditionId?: string | null;
  /** The account an account-scoped record belongs to. */
  account?: string;
}

/** Which of the loader's insert lanes a topic's records take (src/load/loader.ts). */
export type Lane = 'short' | 'bulk';

/** A kind's topic: where its records go on the bus, and how they are keyed. */
export interface TopicDeclaration<P> {
  /** The topic name after the deployment's prefix: `<prefix>.<suffix>`. Kinds may share a topic. */
  suffix: string;
  partitions: number;
  retentionMs: number;
  /** Largest encoded record accepted (Kafka `max.message.bytes`). */
  maxRecordBytes: number;
  /**
   * `short`: to the warehouse in rounds of their own, cut within a fraction of a second (what a
   * live reader watches); `bulk`: cut by the batch bounds.
   */
  lane: Lane;
  key: {
    /** What the key is, in words (the topic table in src/bus/README.md says it). */
    what: string;
    /** The record key of a payload: records with one key keep their order. */
    of(payload: P, hints: KeyHints): string;
  };
}

/**
 * One record kind, declared once (src/records/kinds/<kind>.ts): its name, its schema for the bus
 * boundary, its topic and the tables its records are stored in. Every list of kinds, topics and
 * tables is derived from the declarations (docs/records.md).
 *
 * `P` is the payload a producer writes; `S` what a sync kind is made from (the api's parsed item),
 * `never` for a stream kind.
 */
export interface KindDeclaration<
  Name extends string = string,
  Schema extends z.ZodType = z.ZodType,
  P = unknown,
  Tables extends readonly string[] = readonly string[],
  S = never,
> {
  readonly name: Name;
  readonly schema: Schema;
  readonly topic: TopicDeclaration<P>;
  /** The tables its records' rows go to; the first is the one a dead letter names. */
  readonly tables: Tables;
  /** Who publishes it. */
  readonly producer: 'capture' | 'sync' | 'capture and sync';
  /** What its rows are made from, in a line (the generated table of src/load/README.md). */
  readonly from: string;
  /** Type only: the payload producers write. */
  readonly payload?: P;
  /** Type only: what a sync kind is made from. */
  readonly source?: S;
}

/**
 * Declares a kind. Call it with the payload type (and, for a sync kind, its source) when the kind
 * has a hand-written one; without it the payload is what the schema reads (`z.output`).
 */
export function declareKind<P = undefined, S = never>() {
  return <const Name extends string, Schema extends z.ZodType, const Tables extends readonly [string, ...string[]]>(
    declaration: Omit<
      KindDeclaration<Name, Schema, P extends undefined ? z.output<Schema> : P, Tables, S>,
      'payload' | 'source'
    >,
  ): KindDeclaration<Name, Schema, P extends undefined ? z.output<Schema> : P, Tables, S> => declaration;
}

// ---- topic presets: what kinds of one family share ---------------------------------------------

const DAY_MS = 24 * 60 * 60 * 1000;
const MiB = 1024 * 1024;

/** Market data: a week on the bus (the warehouse keeps the history). */
export const MARKET_TOPIC = { retentionMs: 7 * DAY_MS, maxRecordBytes: 2 * MiB } as const;
/** Capture's own findings: few records, a month, one partition (a reader wants them in order). */
export const FINDINGS_TOPIC = {
  partitions: 1,
  retentionMs: 30 * DAY_MS,
  maxRecordBytes: 2 * MiB,
  lane: 'bulk',
} as const;
/** Account streams: a month, keyed by the account. */
export const ACCOUNT_TOPIC = {
  partitions: 3,
  retentionMs: 30 * DAY_MS,
  maxRecordBytes: 8 * MiB,
  lane: 'bulk',
} as const;
/** REST reads: bodies can be large (an event with 150 recurring cycles), hence the higher record limit. */
export const SYNC_TOPIC = { partitions: 3, retentionMs: 7 * DAY_MS, maxRecordBytes: 8 * MiB, lane: 'bulk' } as const;

/** The key of account-scoped kinds: the account the producer reads for. */
export const BY_ACCOUNT = {
  what: 'account',
  of: (_payload: unknown, hints: KeyHints): string => {
    if (!hints.account) throw new Error('an account-scoped record needs its account to be keyed');
    return hints.account;
  },
} as const;
