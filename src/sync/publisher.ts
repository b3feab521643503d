import type { Bus } from '../bus/bus.ts';
import type { ReceivedRecord } from '../bus/record.ts';
import type { TopicCatalogue } from '../bus/topics.ts';
import { hash } from 'node:crypto';
import { DigestRing } from '../util/digest-ring.ts';
import { observationKey } from './records.ts';

/**
 * Observations this process has already published and the bus confirmed, so an unchanged order
 * or event is not published again on every pass. Bounded (oldest forgotten first); forgetting
 * only costs a re-publish, which the loaders deduplicate by the same natural key.
 *
 * It holds a digest of each key, not the key, in a `DigestRing` (24 bytes an entry outside the JS
 * heap, allocated once): the order list is read to its end on every pass (§4.1), so this holds
 * every order, fill and activity state of the account's history — ~1,750 new keys a minute at
 * rate 20. As strings in a Set they were the largest steady growth of a job's JS heap.
 */
export class PublishedMemory {
  readonly #digests: DigestRing;

  constructor(readonly capacity = 500_000) {
    this.#digests = new DigestRing(capacity);
  }

  has(record: ReceivedRecord): boolean {
    const key = memoryKey(record);
    return key !== undefined && this.#digests.has(key);
  }

  remember(records: readonly ReceivedRecord[]): void {
    for (const record of records) {
      const key = memoryKey(record);
      if (key !== undefined) this.#digests.add(key);
    }
  }

  /** Work a job finished and need not repeat while nothing changes (e.g. an order's fills, all settled). */
  isDone(tag: string): boolean {
    return this.#digests.has(digest(`done:${tag}`));
  }

  markDone(tags: readonly string[]): void {
    for (const tag of tags) this.#digests.add(digest(`done:${tag}`));
  }

  /** The records whose observation is new to this process. */
  unpublished(records: readonly ReceivedRecord[]): ReceivedRecord[] {
    return records.filter((record) => !this.has(record));
  }
}

function memoryKey(record: ReceivedRecord): Buffer | undefined {
  const key = observationKey(record);
  return key === undefined ? undefined : digest(`${record.kind}\u0000${record.key}\u0000${key}`);
}

/**
 * SHA-1 of the key (its first 128 bits are kept), in ~0.6 µs (one-shot `hash`; `createHash` took
 * 3 µs). The keys are the venue's own ids and states, not chosen to collide; by chance, a million
 * keys collide with a probability of about 2^-89.
 */
function digest(key: string): Buffer {
  return hash('sha1', key, 'buffer');
}

/** Publishes records to their kinds' topics; resolves once the bus says all of them are durable. `signal` cancels (a
 * stopping job). */
export async function publishAll(
  bus: Bus,
  topics: TopicCatalogue,
  records: readonly ReceivedRecord[],
  signal?: AbortSignal,
): Promise<void> {
  const byTopic = new Map<string, ReceivedRecord[]>();
  for (const record of records) {
    const topic = topics.topicFor(record.kind);
    const list = byTopic.get(topic);
    if (list) list.push(record);
    else byTopic.set(topic, [record]);
  }
  await Promise.all([...byTopic].map(([topic, list]) => bus.publish(topic, list, { signal })));
}
