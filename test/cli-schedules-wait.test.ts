import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { tapehouse } from './warehouse-fixtures.ts';

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('schedules apply before Temporal answers', () => {
  it('tries again, saying so on each attempt, and gives up after --wait-for-temporal with the reason', async () => {
    const port = await closedPort();
    const result = await tapehouse(
      ['schedules', 'apply', '--temporal-address', `127.0.0.1:${port}`, '--wait-for-temporal', '7s'],
      {
        TAPEHOUSE_LOG_LEVEL: 'info',
      },
    );
    expect(result.code).toBe(1);
    const retries = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; attempt?: number; address?: string })
      .filter((entry) => entry.msg === 'Temporal not answering yet; trying again');
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(retries.map((r) => r.attempt)).toEqual(retries.map((_, i) => i + 1));
    expect(retries.every((r) => r.address === `127.0.0.1:${port}`)).toBe(true);
    expect(result.stderr).toMatch(
      new RegExp(`Temporal at 127\\.0\\.0\\.1:${port} \\(namespace default\\) did not answer within 7 s, \\d+ attempt`),
    );
  }, 60_000);

  it('refuses a wait that is not a duration, or a bare number, as a usage error', async () => {
    const result = await tapehouse(['schedules', 'apply', '--wait-for-temporal', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--wait-for-temporal: "soon" is not a duration');
    const bare = await tapehouse(['schedules', 'apply', '--wait-for-temporal', '300']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--wait-for-temporal: "300" is a bare number: add its unit');
  });
});
