import { BusError } from './bus.ts';
import { encodeRecord, type ReceivedRecord } from './record.ts';
import type { TopicSpec } from './topics.ts';

/** A record ready for a partition: its key and its wire form. */
export interface Outgoing {
  key: string;
  value: string;
  /** UTF-8 size of `value`. */
  bytes: number;
  /** Our receive time in ms, as Kafka's message timestamp (so offsets can be found by time). */
  timestampMs: string;
}

/**
 * Encodes a publish call's records and checks them against the topic's limit before anything is
 * written, so a refused call leaves nothing half-published.
 */
export function prepareRecords(spec: TopicSpec, records: readonly ReceivedRecord[]): Outgoing[] {
  return records.map((record) => {
    const value = encodeRecord(record);
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > spec.maxRecordBytes) {
      throw new BusError(
        'record_too_large',
        `${record.kind} record with key ${record.key} is ${bytes} bytes; ${spec.name} takes at most ${spec.maxRecordBytes}`,
      );
    }
    return { key: record.key, value, bytes, timestampMs: (record.receivedAtUs / 1000n).toString() };
  });
}

/** Looks topics up by name, with the error a publish or subscribe to an unknown topic gets. */
export class TopicIndex {
  private readonly byName: ReadonlyMap<string, TopicSpec>;

  constructor(readonly topics: readonly TopicSpec[]) {
    this.byName = new Map(topics.map((spec) => [spec.name, spec]));
  }

  get(topic: string): TopicSpec {
    const spec = this.byName.get(topic);
    if (spec === undefined) throw new BusError('unknown_topic', `topic ${topic} is not in this bus's catalogue`);
    return spec;
  }
}
