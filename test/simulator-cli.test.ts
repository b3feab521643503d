import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

describe('tapehouse simulate', () => {
  it('prints its address first, serves on 127.0.0.1, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/tapehouse.js', 'simulate', '--port', '0', '--seed', '9', '--rate', '5', '--token', 'pat_demo_for_test'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout });
    const [first] = (await once(lines, 'line')) as [string];
    expect(first).toMatch(/^simulator listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = first.replace('simulator listening on ', '');
    const res = await fetch(`${url}/trade/v1/portfolio/summary`, { headers: { authorization: 'Bearer pat_demo_for_test' } });
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
