import type { Bus } from '../bus/bus.ts';
import type { ReceivedRecord } from '../bus/record.ts';
import type { TopicCatalogue } from '../bus/topics.ts';
import { hash } from 'node:crypto';
import { observationKey } from './records.ts';

/**
 * Observations this process has already published and the bus confirmed, so an unchanged order
 * or event is not published again on every pass. Bounded (oldest forgotten first); forgetting
 * only costs a re-publish, which the loaders deduplicate by the same natural key.
 *
 * It holds a digest of each key, not the key: the order list is read to its end on every
 * pass (§4.1), so this holds every order, fill and activity state of the account's history, and
 * as strings built from the records (~100 characters, concatenated, some slices of a page's body)
 * they were the largest steady growth of a job's JS heap — about 2 MiB every 8 minutes at rate 20.
 */
export class PublishedMemory {
  readonly #keys = new Set<string>();

  constructor(readonly capacity = 500_000) {}

  has(record: ReceivedRecord): boolean {
    const key = memoryKey(record);
    return key !== undefined && this.#keys.has(key);
  }

  remember(records: readonly ReceivedRecord[]): void {
    for (const record of records) {
      const key = memoryKey(record);
      if (key !== undefined) this.#touch(key);
    }
    this.#trim();
  }

  /** Work a job finished and need not repeat while nothing changes (e.g. an order's fills, all settled). */
  isDone(tag: string): boolean {
    return this.#keys.has(digest(`done:${tag}`));
  }

  markDone(tags: readonly string[]): void {
    for (const tag of tags) this.#touch(digest(`done:${tag}`));
    this.#trim();
  }

  #touch(key: string): void {
    this.#keys.delete(key);
    this.#keys.add(key);
  }

  #trim(): void {
    for (const oldest of this.#keys) {
      if (this.#keys.size <= this.capacity) break;
      this.#keys.delete(oldest);
    }
  }

  /** The records whose observation is new to this process. */
  unpublished(records: readonly ReceivedRecord[]): ReceivedRecord[] {
    return records.filter((record) => !this.has(record));
  }
}

function memoryKey(record: ReceivedRecord): string | undefined {
  const key = observationKey(record);
  return key === undefined ? undefined : digest(`${record.kind}\u0000${record.key}\u0000${key}`);
}

/**
 * SHA-1 of the key, 27 characters: a flat string of ~44 bytes that keeps nothing else alive, in
 * ~0.6 µs (one-shot `hash`; `createHash` took 3 µs). The keys are the venue's own ids and states,
 * not chosen to collide; by chance, a million keys collide with a probability of about 2^-120.
 */
function digest(key: string): string {
  return hash('sha1', key, 'base64url');
}

/** Publishes records to their kinds' topics; resolves once the bus says all of them are durable. `signal` cancels (a stopping job). */
export async function publishAll(bus: Bus, topics: TopicCatalogue, records: readonly ReceivedRecord[], signal?: AbortSignal): Promise<void> {
  const byTopic = new Map<string, ReceivedRecord[]>();
  for (const record of records) {
    const topic = topics.topicFor(record.kind);
    const list = byTopic.get(topic);
    if (list) list.push(record);
    else byTopic.set(topic, [record]);
  }
  await Promise.all([...byTopic].map(([topic, list]) => bus.publish(topic, list, { signal })));
}
