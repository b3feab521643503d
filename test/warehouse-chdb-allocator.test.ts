import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryDataDir } from './warehouse-fixtures.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * A fresh process opens the embedded warehouse and prints what chDB's jemalloc says of its decay:
 * libchdb reads its allocator settings once, as it loads, so only a process of its own shows
 * which settings it loaded with.
 */
async function decayInFreshProcess(dataDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = `
    const { openEmbeddedWarehouse } = await import('./src/warehouse/warehouse.ts');
    const warehouse = await openEmbeddedWarehouse(${JSON.stringify(dataDir)});
    const stats = await (await warehouse.client.query({ query: 'SELECT * FROM system.jemalloc_stats', format: 'TabSeparatedRaw' })).text();
    console.log(/opt\\.dirty_decay_ms: .*/.exec(stats)?.[0]);
    await warehouse.close();`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: root, env },
  );
  return stdout.trim();
}

describe("chDB's allocator", () => {
  const dirs = [temporaryDataDir(), temporaryDataDir()];
  afterAll(() => dirs.forEach((dir) => dir.remove()));

  it('gives freed pages back at once unless the user set JE_MALLOC_CONF, and then keeps theirs', async () => {
    const { JE_MALLOC_CONF: _ignored, ...unset } = process.env;
    const [ours, theirs] = await Promise.all([
      decayInFreshProcess(dirs[0]!.dataDir, unset),
      decayInFreshProcess(dirs[1]!.dataDir, { ...unset, JE_MALLOC_CONF: 'dirty_decay_ms:1234' }),
    ]);
    expect({ ours, theirs }).toEqual({
      ours: 'opt.dirty_decay_ms: 0 (arenas.dirty_decay_ms: 0)',
      theirs: 'opt.dirty_decay_ms: 1234 (arenas.dirty_decay_ms: 1234)',
    });
  });
});
