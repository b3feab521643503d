import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** A venue that answers every request 503 dependency_unavailable, as in an outage. */
async function venueDown(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests += 1;
    res.writeHead(503, { 'content-type': 'application/problem+json' });
    res.end(
      JSON.stringify({
        code: 'dependency_unavailable',
        title: 'Unavailable',
        status: 503,
        recovery: { strategy: 'retry' },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const work = mkdtempSync(join(tmpdir(), 'run-stop-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('tapehouse run against a venue that is down', () => {
  it('stops cleanly on SIGTERM while start-up still waits for the catalogue', async () => {
    const venue = await venueDown();
    const child = spawn(
      process.execPath,
      [
        'bin/tapehouse.js',
        'run',
        '--base-url',
        venue.url,
        '--data-dir',
        join(work, 'data'),
        '--http-port',
        '0',
        '--status',
        'off',
      ],
      {
        env: { ...process.env, TAPEHOUSE_TOKEN: 'stop-test-token', TAPEHOUSE_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Start-up is retrying the catalogue: the venue has been asked, and said 503.
    while (!/catalogue read failed/.test(out)) await new Promise((r) => setTimeout(r, 200));
    expect(venue.requests()).toBeGreaterThan(0);
    child.kill('SIGTERM');
    // Before, the process kept retrying and only SIGKILL ended it (the test's timeout would fire).
    expect(await exited).toBe(0);
    expect(out).toMatch(/stopped cleanly/);
    await venue.close();
  }, 90_000);
});

describe('tapehouse started through npm (npx, npm start)', () => {
  it('stops when a supervisor ends npm and its shell: the node process is not left behind', async () => {
    // npm runs the command under a shell and exits on SIGTERM without passing it on; here the
    // shell stands for both, with npm's variable set as npm sets it.
    const shell = spawn(
      'sh',
      ['-c', `"${process.execPath}" bin/tapehouse.js simulate --port 0 & echo "pid $!"; wait`],
      {
        env: { ...process.env, npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js', TAPEHOUSE_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    shell.stdout.on('data', (c: Buffer) => (out += c.toString()));
    while (!/simulator listening/.test(out)) await new Promise((r) => setTimeout(r, 200));
    const pid = Number(/pid (\d+)/.exec(out)![1]);
    shell.kill('SIGKILL');
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (alive()) await new Promise((r) => setTimeout(r, 200));
    expect(alive()).toBe(false);
  }, 60_000);
});

/** A venue that answers nothing: every connection is closed as soon as it opens. */
async function venueSilent(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('tapehouse run against a venue that does not answer at all', () => {
  it('says so in one log line and on the status line, and tries again with a backoff', async () => {
    const venue = await venueSilent();
    const child = spawn(
      process.execPath,
      [
        'bin/tapehouse.js',
        'run',
        '--base-url',
        venue.url,
        '--data-dir',
        join(work, 'silent'),
        '--http-port',
        '0',
        '--status',
        'log',
      ],
      {
        env: { ...process.env, TAPEHOUSE_TOKEN: 'stop-test-token', TAPEHOUSE_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let log = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // The status line comes every 10 s in log mode; wait for the second one.
      while ((out.match(/^status: /gm) ?? []).length < 2) await new Promise((r) => setTimeout(r, 200));
      expect(out).toMatch(
        /^status: venue unreachable since \d\d:\d\d:\d\d UTC \((read ECONNRESET|socket hang up|other side closed)\) · /m,
      );
      const warnings = log.split('\n').filter((line) => line.includes('"level":40'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/unreachable .*trying again with a backoff/);
      // A dozen readers (capture's catalogue and every sync job) share one probe: about a dozen
      // requests at the start, then one at 1, 2, 4, 8, 16 s… — not each reader retrying on its own.
      expect(venue.connections()).toBeLessThan(30);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL'); // a failed check leaves no job behind
      await venue.close();
    }
  }, 90_000);
});
