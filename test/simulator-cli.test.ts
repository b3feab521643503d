import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { readGroundTruth } from '../src/simulator/ground-truth-reader.ts';

function simulate(args: string[]): { lines: AsyncIterableIterator<string>; stop: () => Promise<number | null> } {
  const child = spawn(process.execPath, ['bin/tapehouse.js', 'simulate', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    lines,
    stop: async () => {
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

async function next(lines: AsyncIterableIterator<string>): Promise<string> {
  return (await lines.next()).value as string;
}

describe('tapehouse simulate', () => {
  it('prints its address first, serves on 127.0.0.1, and stops cleanly on SIGTERM', async () => {
    const { lines, stop } = simulate(['--seed', '9', '--rate', '5', '--token', 'pat_demo_for_test']);
    const first = await next(lines);
    expect(first).toMatch(/^simulator listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = first.replace('simulator listening on ', '');
    const res = await fetch(`${url}/trade/v1/portfolio/summary`, {
      headers: { authorization: 'Bearer pat_demo_for_test' },
    });
    expect(res.status).toBe(200);
    expect(await stop()).toBe(0);
  });

  it('serves fault control on its own port and logs the faults to the ground-truth folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapehouse-cli-gt-'));
    const { lines, stop } = simulate([
      '--rate',
      '5',
      '--control-port',
      '0',
      '--ground-truth',
      dir,
      '--book-frames',
      'delta',
      '--heartbeat-ms',
      '500',
      '--price-streams',
      'on',
    ]);
    const url = (await next(lines)).replace('simulator listening on ', '');
    await next(lines);
    const control = await next(lines);
    expect(control).toMatch(/^fault control on http:\/\/127\.0\.0\.1:\d+$/);
    expect(await next(lines)).toBe(`ground truth in ${dir}`);
    const controlUrl = control.replace('fault control on ', '');
    expect(controlUrl).not.toBe(url);
    const injected = await fetch(`${controlUrl}/faults`, {
      method: 'POST',
      body: JSON.stringify({ kind: 'rest_server_error', strategy: 'retry', duration_ms: 60_000 }),
    });
    expect(injected.status).toBe(201);
    expect((await fetch(`${url}/api/v1/events`)).status).toBe(503);
    const prices = await fetch(`${url}/api/v1/prices/stream`);
    expect(prices.headers.get('content-type')).toBe('text/event-stream');
    await prices.body?.cancel();
    expect(await stop()).toBe(0);
    expect(readGroundTruth(dir).faults.map((f) => f.kind)).toEqual(['rest_server_error']);
    rmSync(dir, { recursive: true, force: true });
  });
});
