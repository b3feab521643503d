import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KAFKA_BROKERS, requireService } from './services.ts';
import { spawnTapehouse, type Child } from './load-helpers.ts';

/**
 * A loader group belongs to one warehouse (issue 38): on real Kafka, a second `tapehouse load` of
 * the group on another data directory refuses to start, naming both warehouses, and loads nothing;
 * the group's own warehouse is taken again after a stop.
 */
const run = `binding${Date.now()}`;
const work = mkdtempSync(join(tmpdir(), 'tapehouse-binding-'));
const first = join(work, 'first');
const second = join(work, 'second');
const children: Child[] = [];

/** Without a group named, the loader's is its topic prefix's: `<prefix>-loaders`. */
function load(dataDir: string, group?: string): Child {
  const child = spawnTapehouse(
    [
      'load',
      '--kafka-brokers',
      KAFKA_BROKERS.join(','),
      '--topic-prefix',
      run,
      ...(group ? ['--group', group] : []),
      '--data-dir',
      dataDir,
      '--kinds',
      'trade',
      '--stats-every',
      '0s',
    ],
    { TAPEHOUSE_LOG_LEVEL: 'error' },
  );
  children.push(child);
  return child;
}

async function stop(child: Child): Promise<number | null> {
  child.process.kill('SIGTERM');
  return child.exited;
}

beforeAll(async () => {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
});

afterAll(async () => {
  for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  rmSync(work, { recursive: true, force: true });
});

describe('a loader group bound to its warehouse, on real Kafka', () => {
  it('refuses a second loader of the group on another data directory (exit 2, both named), and takes the first again', async () => {
    // The default group follows the prefix: deployments on one Kafka under their own prefixes do not meet.
    const owner = load(first);
    expect(await owner.ready).toMatch(new RegExp(`as group ${run}-loaders`));

    const intruder = load(second);
    expect(await intruder.exited).toBe(2);
    expect(intruder.stderr()).toContain(`loader group ${run}-loaders belongs to warehouse chDB on ${first}`);
    expect(intruder.stderr()).toContain(`this loader writes warehouse chDB on ${second}`);
    expect(intruder.lines()).toEqual([]);

    expect(await stop(owner)).toBe(0);
    // The stop's final line, as capture prints one.
    expect(owner.lines().at(-1)).toMatch(/^stopped: /);

    // Still refused with the owner gone: the binding is the group's, not a live member's.
    const again = load(second);
    expect(await again.exited).toBe(2);

    const back = load(first);
    expect(await back.ready).toMatch(/^loading 1 topics/);
    expect(await stop(back)).toBe(0);

    // Another group is free to use the second warehouse.
    const other = load(second, `${run}-others`);
    expect(await other.ready).toMatch(new RegExp(`as group ${run}-others`));
    expect(await stop(other)).toBe(0);
  }, 180_000);
});
