import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveEmbeddedEndpoint, type EmbeddedEndpoint } from '../src/warehouse/endpoint/embedded-endpoint.ts';
import { busRecord, migratedWarehouse, tapehouse, type TestWarehouse } from './warehouse-fixtures.ts';

// chDB allows one process per data directory. This process holds one; others are tapehouse
// commands run as child processes, as a user would.

describe('one process per data directory', () => {
  let w: TestWarehouse;
  let endpoint: EmbeddedEndpoint | undefined;

  beforeAll(async () => {
    w = await migratedWarehouse();
    await w.warehouse.insertRows('trades', [
      {
        token_id: 'tok-held',
        side: 'BUY',
        price_micro: 1n,
        shares_micro: 2n,
        executed_at: '2024-05-01T00:00:00Z',
        ...busRecord(1),
      },
    ]);
  });
  afterAll(async () => {
    await endpoint?.close();
    await w.cleanup();
  });

  it('a second process gets a clear error naming the directory when the owner serves no endpoint', async () => {
    const second = await tapehouse(['migrate', '--data-dir', w.dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`data directory ${resolve(w.dataDir)} is in use by another process`);
    expect(second.stderr).toMatch(/one process per data directory/);
  });

  it("the error names the running process's endpoint when it serves one, and tapehouse sql goes through it", async () => {
    endpoint = await serveEmbeddedEndpoint(w.warehouse);
    const second = await tapehouse(['migrate', '--data-dir', w.dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`pid ${process.pid}`);
    expect(second.stderr).toContain(`through that process's endpoint ${endpoint.url}`);

    const query = await tapehouse([
      'sql',
      '--data-dir',
      w.dataDir,
      '--format',
      'json',
      'SELECT token_id, shares_micro FROM trades',
    ]);
    expect(query).toMatchObject({ code: 0, stdout: '{"token_id":"tok-held","shares_micro":"2"}\n' });
    const write = await tapehouse(['sql', '--data-dir', w.dataDir, 'DROP TABLE trades']);
    expect(write.code).toBe(2);
    expect(write.stderr).toMatch(/readonly mode/);
    const asked = await tapehouse(['sql', '--data-dir', w.dataDir, '--allow-writes', 'DROP TABLE trades']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(
      /--allow-writes: .* is held by process \d+ \(a running job\), whose endpoint is read-only: stop it first to write/,
    );
  });
});
