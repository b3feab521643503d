import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, main, packageVersion } from '../src/cli/main.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cli-help-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Every command path: `run`, `schedules`, `schedules apply`, … */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

/** Runs `tapehouse …args` in this process, with what it prints. */
async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((stdout += String(chunk)), true),
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((stderr += String(chunk)), true),
  );
  const code = await main(args);
  vi.restoreAllMocks();
  return { code, stdout, stderr };
}

/** `tapehouse …args` as a child process, as a user runs it. */
function tapehouse(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [join(root, 'bin/tapehouse.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('tapehouse --help and --version', () => {
  const paths = commandPaths(buildProgram());

  it('has help for a dozen commands and their subcommands', () => {
    expect(paths.map((path) => path.join(' '))).toEqual(
      expect.arrayContaining(['run', 'sql', 'reconcile', 'migrate', 'schedules apply', 'rederive']),
    );
  });

  it.each(paths.map((path) => [path.join(' '), path] as const))(
    'tapehouse %s --help prints its usage and exits 0',
    async (_name, path) => {
      const result = await inProcess([...path, '--help']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: tapehouse ${path.join(' ')}`));
    },
  );

  it('tapehouse --version prints the package version', async () => {
    const result = await inProcess(['--version']);
    expect(result).toEqual({ code: 0, stdout: `${packageVersion()}\n`, stderr: '' });
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('bad settings exit 2, naming the flag and its variable', () => {
  let busy: Server | undefined;
  afterAll(() => busy?.close());

  it('a token file that is missing or empty, for the built-in simulator too', async () => {
    for (const args of [['run'], ['run', '--base-url', 'http://127.0.0.1:9']]) {
      const result = await inProcess([
        ...args,
        '--token-file',
        join(work, 'no-such-token'),
        '--data-dir',
        join(work, 'data'),
        '--http-port',
        '0',
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `tapehouse: --token-file (TAPEHOUSE_TOKEN_FILE): ${join(work, 'no-such-token')} does not exist\n`,
      );
    }
    writeFileSync(join(work, 'empty-token'), '\n');
    const none = await inProcess(['run', '--base-url', 'http://127.0.0.1:9', '--data-dir', join(work, 'data')]);
    expect(none).toMatchObject({
      code: 2,
      stderr: 'tapehouse: no access token: set TAPEHOUSE_TOKEN, or give --token-file (TAPEHOUSE_TOKEN_FILE)\n',
    });
    const fromVariable = tapehouse(['run', '--base-url', 'http://127.0.0.1:9', '--data-dir', join(work, 'data')], {
      TAPEHOUSE_TOKEN_FILE: join(work, 'empty-token'),
    });
    expect(fromVariable).toMatchObject({
      code: 2,
      stderr: `tapehouse: --token-file (TAPEHOUSE_TOKEN_FILE): ${join(work, 'empty-token')} is empty\n`,
    });
  });

  it('a --http-port another process holds, before anything starts', async () => {
    busy = createServer();
    const port = await new Promise<number>((resolve) =>
      busy!.listen(0, '127.0.0.1', () => resolve((busy!.address() as { port: number }).port)),
    );
    const result = tapehouse(['run', '--data-dir', join(work, 'busy'), '--http-port', String(port)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `tapehouse: --http-port (TAPEHOUSE_HTTP_PORT): 127.0.0.1:${port} is in use by another process`,
    );
    // Said before the warehouse is opened: the data directory was never created.
    expect(existsSync(join(work, 'busy'))).toBe(false);
  });

  it('a bad --format, --tolerance or --clickhouse-url', async () => {
    expect((await inProcess(['sql', '--format', 'xml', 'SELECT 1'])).code).toBe(2);
    expect((await inProcess(['reconcile', '--tolerance', '0.5'])).code).toBe(2);
    const url = await inProcess(['status', '--clickhouse-url', 'ftp://x']);
    expect(url).toMatchObject({
      code: 2,
      stderr:
        'tapehouse: --clickhouse-url (TAPEHOUSE_CLICKHOUSE_URL): "ftp://x" does not start with http:// or https://\n',
    });
  });

  it('a bad --venue-rules or TAPEHOUSE_VENUE_RULES names the flag and the variable, before any warehouse is opened', async () => {
    const missing = await inProcess(['reconcile', '--data-dir', join(work, 'rules'), '--venue-rules', 'nasdaq']);
    expect(missing).toMatchObject({
      code: 2,
      stderr:
        'tapehouse: --venue-rules (TAPEHOUSE_VENUE_RULES): "nasdaq" is neither a named rule set (simulator) nor a readable file\n',
    });
    const file = join(work, 'rules.json');
    writeFileSync(file, JSON.stringify({ taker_fee_bps: 100, maker_rebate_percent: 125, rounding: 'floor' }));
    vi.stubEnv('TAPEHOUSE_VENUE_RULES', file);
    try {
      const tooMuch = await inProcess(['reconcile', '--data-dir', join(work, 'rules')]);
      expect(tooMuch).toMatchObject({
        code: 2,
        stderr: `tapehouse: --venue-rules (TAPEHOUSE_VENUE_RULES): ${JSON.stringify(file)} has no maker_rebate_percent as a whole number from 0 to 100\n`,
      });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(existsSync(join(work, 'rules'))).toBe(false);
  });
});
