import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionFor } from '../../src/bus/partitioner.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { openEmbeddedWarehouse, type EmbeddedWarehouse } from '../../src/warehouse/warehouse.ts';
import { NATURAL_KEYS, type Expected } from '../load-fixtures.ts';
import { rows } from '../warehouse-fixtures.ts';
import { sleep, spawnNode, type Child } from './load-helpers.ts';
import { nowMicros } from '../../src/util/clock.ts';

/**
 * The embedded path across a real process restart: a process running the embedded bus, the
 * loaders and a producer is killed with SIGKILL mid-stream; what its bus held unstored is gone.
 * The next process records that as a gap per topic-partition, from the last instant known stored
 * to its own start. Every record the killed process published is then stored exactly once or lies
 * inside the gap of its partition — never a silent hole; a clean stop leaves no gap.
 */

const CHILD = resolve(import.meta.dirname, 'load-embedded-child.ts');
const PREFIX = 'embkill';
const catalogue = createTopicCatalogue(PREFIX);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapehouse-load-embedded-'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Published {
  topic: string;
  key: string;
  receivedAtUs: string;
  rows: Expected[];
}

function run(name: string, firstIndex: number): Child & { file: string } {
  const file = join(dir, `${name}.jsonl`);
  return { ...spawnNode(['--import', 'tsx', CHILD, join(dir, 'data'), file, String(firstIndex), PREFIX]), file };
}

function publishedBy(file: string): Published[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line) as Published);
}

async function keysStored(warehouse: EmbeddedWarehouse): Promise<Map<string, string[]>> {
  const keys = new Map<string, string[]>();
  for (const table of ['trades', 'book_changes', 'quotes', 'book_snapshots']) {
    const found = await rows<{ k: string }>(
      warehouse.client,
      `SELECT ${NATURAL_KEYS[table]} AS k FROM tapehouse.${table}`,
    );
    keys.set(
      table,
      found.map((row) => row.k),
    );
  }
  return keys;
}

async function storedInsideGapsOutsideCutBatches(warehouse: EmbeddedWarehouse): Promise<string[]> {
  const inside = await rows<{ topic: string; partition: number; offset: string }>(
    warehouse.client,
    `SELECT s._topic AS topic, s._partition AS partition, toString(s._offset) AS offset
     FROM (SELECT _topic, _partition, _offset, _received_at FROM tapehouse.book_changes
           UNION ALL SELECT _topic, _partition, _offset, _received_at FROM tapehouse.trades
           UNION ALL SELECT _topic, _partition, _offset, _received_at FROM tapehouse.quotes
           UNION ALL SELECT _topic, _partition, _offset, _received_at FROM tapehouse.book_snapshots) AS s
     JOIN (SELECT channel, toUInt32(subject) AS partition, gap_start, gap_end FROM tapehouse.capture_gaps WHERE stream = 'bus') AS g
       ON s._topic = g.channel AND s._partition = g.partition
     WHERE s._received_at > g.gap_start AND s._received_at < g.gap_end`,
  );
  const cut = await rows<{ topic: string; partition: number; first: string; last: string }>(
    warehouse.client,
    `SELECT topic, partition, toString(min_offset) AS first, toString(max_offset) AS last
     FROM tapehouse.loader_offsets
     WHERE bus_epoch IN (SELECT bus_epoch FROM tapehouse.bus_coverage WHERE state = 'gaps_recorded')
     GROUP BY topic, partition, min_offset, max_offset HAVING countIf(state = 'after') = 0`,
  );
  const inCut = (r: { topic: string; partition: number; offset: string }) =>
    cut.some(
      (c) =>
        c.topic === r.topic &&
        c.partition === r.partition &&
        BigInt(r.offset) >= BigInt(c.first) &&
        BigInt(r.offset) <= BigInt(c.last),
    );
  return inside.filter((r) => !inCut(r)).map((r) => `${r.topic}[${r.partition}]@${r.offset}`);
}

describe('the embedded bus across a process killed with SIGKILL', () => {
  it('makes what the killed process had not stored a recorded gap, and stores the rest exactly once', async () => {
    const first = run('first', 0);
    expect(await first.ready).toBe('ready 0');
    await sleep(4000);
    first.process.kill('SIGKILL');
    await first.exited;

    const restartFrom = nowMicros();
    const second = run('second', 10_000_000);
    const ready = await second.ready;
    const restartTo = nowMicros();
    const partitions = catalogue.topics.reduce((n, spec) => n + spec.partitions, 0);
    expect(ready).toBe(`ready ${partitions}`);
    await sleep(2000);
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // Stopped cleanly: the next process finds nothing lost.
    const third = run('third', 20_000_000);
    expect(await third.ready).toBe('ready 0');
    third.process.kill('SIGTERM');
    expect(await third.exited).toBe(0);

    const warehouse = await openEmbeddedWarehouse(join(dir, 'data'));
    try {
      const stored = await keysStored(warehouse);
      for (const [table, keys] of stored) expect(new Set(keys).size, `${table} holds a row twice`).toBe(keys.length);
      const storedSets = new Map([...stored].map(([table, keys]) => [table, new Set(keys)]));
      const isStored = (p: Published) => p.rows.every(({ table, key }) => storedSets.get(table)!.has(key));

      const gaps = await rows<{ channel: string; subject: string; start: string; end: string }>(
        warehouse.client,
        `SELECT channel, subject, toString(toUnixTimestamp64Micro(gap_start)) AS start, toString(toUnixTimestamp64Micro(gap_end)) AS end
         FROM tapehouse.capture_gaps WHERE stream = 'bus' AND reason = 'bus_undelivered'`,
      );
      expect(gaps).toHaveLength(partitions);
      for (const gap of gaps) {
        expect(BigInt(gap.end)).toBeGreaterThanOrEqual(restartFrom);
        expect(BigInt(gap.end)).toBeLessThanOrEqual(restartTo);
      }
      const gapOf = (p: Published) =>
        gaps.find(
          (g) =>
            g.channel === p.topic && g.subject === String(partitionFor(p.key, catalogue.spec(p.topic)!.partitions)),
        )!;

      const killed = publishedBy(first.file);
      expect(killed.length).toBeGreaterThan(500);
      let lost = 0;
      for (const p of killed) {
        if (isStored(p)) continue;
        const gap = gapOf(p);
        lost += 1;
        expect(BigInt(p.receivedAtUs)).toBeGreaterThanOrEqual(BigInt(gap.start));
        expect(BigInt(p.receivedAtUs)).toBeLessThanOrEqual(BigInt(gap.end));
      }
      expect(lost).toBeGreaterThan(0);
      // The bounds are tight: a stored record of the killed run inside a gap can only be one of a
      // batch the kill cut short (recorded `before`, some of its tables stored, no `after`).
      expect(await storedInsideGapsOutsideCutBatches(warehouse)).toEqual([]);
      // What the later processes published, they stored: all of it.
      const later = [...publishedBy(second.file), ...publishedBy(third.file)];
      expect(later.length).toBeGreaterThan(0);
      expect(later.filter((p) => !isStored(p))).toEqual([]);
    } finally {
      await warehouse.close();
    }
  }, 300_000);
});
