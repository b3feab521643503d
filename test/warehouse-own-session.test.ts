import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { temporaryDataDir } from './warehouse-fixtures.ts';

/** A warehouse's own sessions: in parallel with it on one data directory, and never outliving it. */
describe('Warehouse.ownSession on chDB', () => {
  const dir = temporaryDataDir();
  afterAll(() => dir.remove());

  it('answers while the warehouse is busy with a long query, sees what it writes, and is closed with it', async () => {
    const warehouse = await openEmbeddedWarehouse(dir.dataDir);
    const session = await warehouse.ownSession();
    await warehouse.client.command({ query: 'CREATE TABLE default.t (x UInt64) ENGINE = MergeTree ORDER BY x' });
    let busy = true;
    const long = warehouse.client
      .query({ query: 'SELECT sum(sleepEachRow(0.5)) FROM numbers(8) SETTINGS max_block_size = 1' })
      .finally(() => (busy = false));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const prepared = await session.prepareInsert('default.t', [{ x: 7n }]);
    await prepared.send();
    const seen = await (await session.client.query({ query: 'SELECT x FROM default.t', format: 'JSONEachRow' })).json();
    expect({ seen, busy }).toEqual({ seen: [{ x: '7' }], busy: true });
    await long;
    // Left open by its user (a loader that never stopped): closing the warehouse closes it too.
    await warehouse.close();
    await expect(session.client.query({ query: 'SELECT 1' })).rejects.toThrow(/closed/i);
  });
});
