import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryCheckpointStore,
  positionOf,
  resumeFrom,
  type Checkpoint,
  type CheckpointStore,
} from '../src/sync/checkpoint.ts';
import { FileCheckpointStore } from '../src/sync/checkpoint-file.ts';
import { WarehouseCheckpointStore } from '../src/sync/checkpoint-warehouse.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

function checkpoint(version: number, cursor: string): Checkpoint {
  return {
    version,
    status: 'running',
    pass: {
      runId: `run-${version}`,
      cursor,
      page: version,
      records: version * 10,
      startedAt: '2025-01-06T12:00:00.000Z',
    },
    state: { frontierMs: 1_736_164_800_000, fingerprints: { 'ev-1': 'abc' } },
    updatedAt: '2025-01-06T12:00:01.000Z',
  };
}

/** What every store must do: the latest save per (job, scope) comes back whole; nothing else leaks. */
async function contract(store: CheckpointStore): Promise<void> {
  expect(await store.load('activities', 'demo')).toBeUndefined();
  await store.save('activities', 'demo', checkpoint(1, 'c1'));
  await store.save('activities', 'demo', checkpoint(2, 'c2'));
  await store.save('activities', 'other', checkpoint(7, 'x'));
  await store.save('catalogue', '', checkpoint(3, 'e3'));
  expect(await store.load('activities', 'demo')).toEqual(checkpoint(2, 'c2'));
  expect(await store.load('activities', 'other')).toEqual(checkpoint(7, 'x'));
  expect(await store.load('catalogue', '')).toEqual(checkpoint(3, 'e3'));
  expect(await store.load('orders', 'demo')).toBeUndefined();
}

describe('checkpoint stores', () => {
  it('in memory', async () => {
    await contract(new MemoryCheckpointStore());
  });

  it('in a file, surviving the process (a new store on the same file reads it back)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapehouse-sync-'));
    try {
      const path = join(dir, 'nested', 'checkpoints.json');
      await contract(new FileCheckpointStore(path));
      expect(await new FileCheckpointStore(path).load('activities', 'demo')).toEqual(checkpoint(2, 'c2'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('in the warehouse (sync_checkpoints)', () => {
    let wh: TestWarehouse;
    beforeAll(async () => {
      wh = await migratedWarehouse();
    });
    afterAll(async () => wh.cleanup());

    it('keeps a row per save and reads the latest back through sync_checkpoints_latest', async () => {
      const store = new WarehouseCheckpointStore(wh.warehouse);
      await contract(store);
      const history = await rows<{ run_id: string; status: string; pages: number }>(
        wh.warehouse.client,
        "SELECT run_id, status, pages FROM tapehouse.sync_checkpoints WHERE job = 'activities' AND scope = 'demo' ORDER BY updated_at",
      );
      expect(history).toEqual([
        { run_id: 'run-1', status: 'running', pages: 1 },
        { run_id: 'run-2', status: 'running', pages: 2 },
      ]);
    });
  });

  it('of the store and a heartbeat, the pass saved later wins; the job state always comes from the store', () => {
    const withState = (version: number, cursor: string): Checkpoint => ({
      ...checkpoint(version, cursor),
      state: { frontierMs: version },
    });
    expect(resumeFrom(withState(2, 'a'), positionOf(withState(5, 'b')))).toMatchObject({
      version: 5,
      pass: { cursor: 'b' },
      state: { frontierMs: 2 },
    });
    expect(resumeFrom(withState(6, 'a'), positionOf(withState(5, 'b')))).toMatchObject({
      version: 6,
      pass: { cursor: 'a' },
    });
    expect(resumeFrom(undefined, positionOf(withState(1, 'b')))).toMatchObject({ version: 1, pass: { cursor: 'b' } });
    expect(resumeFrom(undefined, positionOf(withState(1, 'b')))?.state).toBeUndefined();
  });
});
