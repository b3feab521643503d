import { describe, expect, it } from 'vitest';
import type { ReceivedRecord } from '../src/records/index.ts';
import { PublishedMemory } from '../src/sync/publisher.ts';

function order(id: string, status: string, matched: string): ReceivedRecord {
  return {
    kind: 'order',
    key: `default:${id}`,
    venueTime: null,
    receivedAtUs: 0n,
    source: { type: 'sync', job: 'orders', page: 0 },
    payload: { internal_id: id, status, size_matched_micro: matched },
    raw: null,
  };
}

describe('PublishedMemory: what a job does not publish again', () => {
  it('knows an observation it published, not the same order in another state or another order', () => {
    const memory = new PublishedMemory();
    memory.remember([order('o-1', 'LIVE', '0')]);
    expect(
      memory
        .unpublished([
          order('o-1', 'LIVE', '0'),
          order('o-1', 'LIVE', '5000000'),
          order('o-1', 'MATCHED', '10000000'),
          order('o-2', 'LIVE', '0'),
        ])
        .map((r) => r.payload),
    ).toEqual([
      { internal_id: 'o-1', status: 'LIVE', size_matched_micro: '5000000' },
      { internal_id: 'o-1', status: 'MATCHED', size_matched_micro: '10000000' },
      { internal_id: 'o-2', status: 'LIVE', size_matched_micro: '0' },
    ]);
  });

  it('remembers finished work by tag, apart from observations', () => {
    const memory = new PublishedMemory();
    memory.markDone(['order-trades:o-1']);
    expect(memory.isDone('order-trades:o-1')).toBe(true);
    expect(memory.isDone('order-trades:o-2')).toBe(false);
  });

  it('forgets the oldest first beyond its capacity (a re-publish, which the loaders deduplicate)', () => {
    const memory = new PublishedMemory(3);
    memory.remember(['a', 'b', 'c', 'd'].map((id) => order(id, 'LIVE', '0')));
    expect(['a', 'b', 'c', 'd'].map((id) => memory.has(order(id, 'LIVE', '0')))).toEqual([false, true, true, true]);
  });
});
