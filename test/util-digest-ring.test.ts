import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DigestRing } from '../src/util/digest-ring.ts';

const digestOf = (key: string) => hash('sha1', key, 'buffer');

/** A digest whose home slot is chosen, to force probe runs that collide and wrap around the index's end. */
function digestAt(home: number, id: number): Uint8Array {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, home, true);
  view.setUint32(4, id, true);
  return bytes;
}

describe('DigestRing: a bounded set of digests, oldest forgotten first', () => {
  it('answers like a first-in-first-out set of the same capacity over many random adds', () => {
    const capacity = 50;
    const ring = new DigestRing(capacity);
    const model: string[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 20_000; step += 1) {
      const key = `k${Math.floor(random() * 120)}`;
      expect(ring.has(digestOf(key))).toBe(model.includes(key));
      ring.add(digestOf(key));
      if (!model.includes(key)) {
        model.push(key);
        if (model.length > capacity) model.shift();
      }
      expect(ring.size).toBe(model.length);
    }
    for (let k = 0; k < 120; k += 1) expect(ring.has(digestOf(`k${k}`))).toBe(model.includes(`k${k}`));
  });

  it('still finds every entry after forgetting ones in the middle of colliding probe runs that wrap around', () => {
    // Capacity 4 gives an index of 8 slots; every digest is homed at slot 6 or 7, so runs wrap to 0, 1, 2.
    const ring = new DigestRing(4);
    const added = [digestAt(6, 1), digestAt(7, 2), digestAt(6, 3), digestAt(7, 4)];
    for (const d of added) ring.add(d);
    expect(added.map((d) => ring.has(d))).toEqual([true, true, true, true]);
    // Each add forgets the oldest, the head of a run: the entries after it must move back into the hole.
    const more = [digestAt(7, 5), digestAt(6, 6), digestAt(6, 7)];
    const all = [...added, ...more];
    more.forEach((d, i) => {
      ring.add(d);
      expect(all.map((e) => ring.has(e))).toEqual(all.map((_, j) => j > i && j <= i + 4));
    });
  });

  it('keeps an entry added twice at its first age', () => {
    const ring = new DigestRing(2);
    ring.add(digestOf('a'));
    ring.add(digestOf('b'));
    ring.add(digestOf('a'));
    ring.add(digestOf('c'));
    expect(['a', 'b', 'c'].map((k) => ring.has(digestOf(k)))).toEqual([false, true, true]);
  });

  it('refuses a digest too short to hold an entry', () => {
    expect(() => new DigestRing(2).add(new Uint8Array(8))).toThrow(/at least 16 bytes/);
  });
});
