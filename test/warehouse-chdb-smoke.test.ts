import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openChdbSession } from '../src/warehouse/embedded/chdb-client.ts';

describe('chDB through @clickhouse/client (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tapehouse-chdb-'));
  const session = openChdbSession(dir);

  afterAll(async () => {
    await (await session).client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a table, inserts and reads back 64-bit integers exactly', async () => {
    const { client } = await session;
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS smoke' });
    await client.command({
      query: 'CREATE TABLE smoke.t (id UInt64, pnl_micro Int64) ENGINE = MergeTree ORDER BY id',
    });
    const rows = [
      { id: '1', pnl_micro: '9223372036854775807' },
      { id: '2', pnl_micro: '-9223372036854775808' },
      { id: '3', pnl_micro: '9007199254740993' }, // 2^53 + 1: the first integer a double cannot hold
    ];
    await client.insert({ table: 'smoke.t', values: rows, format: 'JSONEachRow' });
    const result = await client.query({
      query: 'SELECT id, pnl_micro FROM smoke.t ORDER BY id',
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual(rows);
  });
});
