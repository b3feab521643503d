import { describe, expect, it } from 'vitest';
import { murmur2, partitionFor } from '../src/bus/partitioner.ts';
import { RECORD_KINDS } from '../src/bus/record.ts';
import { createTopicCatalogue, TOPICS } from '../src/bus/topics.ts';

describe('topic catalogue', () => {
  it('gives every record kind exactly one topic', () => {
    for (const kind of RECORD_KINDS) {
      const owners = TOPICS.topics.filter((spec) => spec.kinds.includes(kind));
      expect(owners.map((spec) => spec.name)).toEqual([TOPICS.topicFor(kind)]);
    }
  });

  it('names topics under the prefix, so deployments can share a cluster', () => {
    const other = createTopicCatalogue('staging');
    expect(TOPICS.topicFor('trade')).toBe('tapehouse.market.trades');
    expect(other.topicFor('trade')).toBe('staging.market.trades');
    expect(other.topics.every((spec) => spec.name.startsWith('staging.'))).toBe(true);
    expect(other.spec('tapehouse.market.trades')).toBeUndefined();
  });

  it('keys market data by condition and account data by account', () => {
    for (const kind of ['trade', 'book_change', 'book_snapshot', 'quote'] as const) {
      expect(TOPICS.spec(TOPICS.topicFor(kind))?.key).toBe('condition_id');
    }
    for (const kind of ['account_event', 'portfolio_sync', 'order', 'fill', 'position'] as const) {
      expect(TOPICS.spec(TOPICS.topicFor(kind))?.key).toBe('account');
    }
  });

  it('puts book snapshots on the topic of the changes they anchor', () => {
    expect(TOPICS.topicFor('book_snapshot')).toBe(TOPICS.topicFor('book_change'));
  });
});

describe('partitioner', () => {
  // Expected values from Kafka's own UtilsTest.testMurmur2.
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ])('hashes %s as the Java client does', (key, hash) => {
    expect(murmur2(new TextEncoder().encode(key))).toBe(hash);
  });

  it('maps a key to the same partition every time, within range', () => {
    for (let i = 0; i < 200; i++) {
      const partition = partitionFor(`0xcondition-${i}`, 12);
      expect(partition).toBeGreaterThanOrEqual(0);
      expect(partition).toBeLessThan(12);
      expect(partitionFor(`0xcondition-${i}`, 12)).toBe(partition);
    }
  });
});
