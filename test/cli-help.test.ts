import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, main, packageVersion } from '../src/cli/main.ts';
import { SETTINGS } from '../src/cli/settings.ts';

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

  it('a command never declares a flag of the settings table on its own: each shows its variable and default', () => {
    const byFlag = new Map(
      Object.values(SETTINGS).flatMap((s) => ('flag' in s ? [[s.flag.split(' ')[0]!, s] as const] : [])),
    );
    // Two flags of the same name that are not the setting: `load --http-port` (a chDB-only read
    // endpoint, any free port by default, not the main job's 18123) and `reconcile --account`
    // (which accounts to reconcile, repeatable, not the token's label).
    const own = new Set(['load --http-port', 'reconcile --account']);
    const commands = paths.map((path) => ({
      name: path.join(' '),
      command: path.reduce((c, name) => c.commands.find((sub) => sub.name() === name)!, buildProgram()),
    }));
    let seen = 0;
    for (const { name, command } of commands)
      for (const option of command.options) {
        const s = byFlag.get(option.long ?? '');
        if (!s || own.has(`${name} ${option.long}`)) continue;
        seen += 1;
        const byDefault =
          'default' in s
            ? `, default ${JSON.stringify(s.default)}`
            : 'defaultText' in s
              ? `, default ${s.defaultText}`
              : '';
        expect(option.flags, `${name} ${option.long}`).toBe(s.flag);
        expect(option.description, `${name} ${option.flags}`).toContain(`(${s.env}${byDefault})`);
      }
    expect(seen).toBeGreaterThan(60);
  });

  it("the worker's and capture's knobs come from the settings table: --help gives each with its variable and default", async () => {
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    const worker = flat((await inProcess(['worker', '--help'])).stdout);
    for (const shown of [
      '--task-queue <name> task queue of the sync workflows and their workers (TAPEHOUSE_TASK_QUEUE, default "tapehouse-sync")',
      '(TAPEHOUSE_TEMPORAL_ADDRESS, default "127.0.0.1:7233")',
      '(TAPEHOUSE_CHECKPOINT_FILE, default .tapehouse/worker-checkpoints.json without --clickhouse-url)',
      '(TAPEHOUSE_READ_SHARE, default 0.5)',
      '--read-burst <n>',
      'Environment only (never a flag): TAPEHOUSE_TOKEN',
      'TAPEHOUSE_CLICKHOUSE_PASSWORD its password',
    ])
      expect(worker).toContain(shown);
    const capture = flat((await inProcess(['capture', '--help'])).stdout);
    for (const shown of [
      '--tokens-per-connection <n> tokens per market socket (TAPEHOUSE_TOKENS_PER_CONNECTION, default 200)',
      '(TAPEHOUSE_SILENCE_MS, default 30000)',
      '--stats-every-s <n> log the figures every this many seconds (TAPEHOUSE_STATS_EVERY_S, default 10)',
      '(TAPEHOUSE_COVERAGE_FILE, default .tapehouse/capture-coverage.json, or …-shard-I-of-N.json with --shard)',
    ])
      expect(capture).toContain(shown);
    expect(flat((await inProcess(['--help'])).stdout)).toContain('TAPEHOUSE_LOG_LEVEL level of the logs');
  });

  it('tapehouse --version prints the package version', async () => {
    const result = await inProcess(['--version']);
    expect(result).toEqual({ code: 0, stdout: `${packageVersion()}\n`, stderr: '' });
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('bad settings exit 2, naming the flag and its variable', () => {
  let busy: Server | undefined;
  afterAll(() => busy?.close());

  it('a path setting the process cannot use: under /proc or /sys, a file for a folder, a folder for a file', async () => {
    writeFileSync(join(work, 'a-file'), 'x');
    const cases: Array<[string[], Record<string, string>, string]> = [
      [
        ['run', '--data-dir', '/proc/x', '--http-port', '0'],
        {},
        '--data-dir (TAPEHOUSE_DATA_DIR): "/proc/x" is under /proc, which the kernel makes up: no data can be kept there',
      ],
      [['status'], { TAPEHOUSE_DATA_DIR: '/sys/x/y' }, '--data-dir (TAPEHOUSE_DATA_DIR): "/sys/x/y" is under /sys'],
      [['sql', '--data-dir', join(work, 'a-file'), 'SELECT 1'], {}, 'is not a directory'],
      [
        ['sql', '--data-dir', join(work, 'a-file', 'below'), 'SELECT 1'],
        {},
        `cannot be created: ${join(work, 'a-file')} is a file, not a directory`,
      ],
      [
        ['capture', '--base-url', 'http://127.0.0.1:9', '--coverage-file', work],
        {},
        '--coverage-file (TAPEHOUSE_COVERAGE_FILE): ',
      ],
      [['worker', '--base-url', 'http://127.0.0.1:9'], { TAPEHOUSE_CHECKPOINT_FILE: '/proc/self/x' }, 'is under /proc'],
      [['simulate', '--port', '0', '--state-file', work], {}, `--state-file: "${work}" is a directory, not a file`],
      [
        ['simulate', '--port', '0', '--ground-truth', join(work, 'a-file', 'below')],
        {},
        `--ground-truth: "${join(work, 'a-file', 'below')}" cannot be created: ${join(work, 'a-file')} is a file`,
      ],
    ];
    for (const [args, env, message] of cases) {
      const result = tapehouse(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0]).toContain(message);
    }
    // Nothing was created on the way.
    expect(existsSync(join(work, 'a-file', 'below'))).toBe(false);
  });

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
        `tapehouse: --token-file (TAPEHOUSE_TOKEN_FILE): "${join(work, 'no-such-token')}" does not exist\n`,
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

  it('a capture knob, a duration without its unit, a log level: each names its flag and variable', async () => {
    const knob = await inProcess(['capture', '--base-url', 'http://127.0.0.1:9', '--silence-ms', '5s']);
    expect(knob).toMatchObject({
      code: 2,
      stderr: 'tapehouse: --silence-ms (TAPEHOUSE_SILENCE_MS): "5s" is not a whole number above 0\n',
    });
    vi.stubEnv('TAPEHOUSE_DURATION', '30');
    try {
      const bare = await inProcess(['run', '--data-dir', join(work, 'bare')]);
      expect(bare).toMatchObject({
        code: 2,
        stderr:
          'tapehouse: --duration (TAPEHOUSE_DURATION): "30" is a bare number: add its unit (ms, s, m or h, e.g. 250ms, 30s, 10m, 2h)\n',
      });
    } finally {
      vi.unstubAllEnvs();
    }
    const interval = await inProcess(['schedules', 'apply', '--interval', 'positions=15']);
    expect(interval).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--interval positions: "15" is a bare number'),
    });
    const level = tapehouse(['sql', '--data-dir', join(work, 'level'), 'SELECT 1'], { TAPEHOUSE_LOG_LEVEL: 'loud' });
    expect(level).toMatchObject({
      code: 2,
      stderr: 'tapehouse: TAPEHOUSE_LOG_LEVEL: "loud" is not one of trace, debug, info, warn, error, fatal, silent\n',
    });
    expect(existsSync(join(work, 'bare'))).toBe(false);
  });

  it('an environment-only setting given as a flag is an unknown option', async () => {
    for (const flag of ['--clickhouse-password', '--clickhouse-user', '--log-level'])
      expect((await inProcess(['sql', flag, 'x', 'SELECT 1'])).code, flag).toBe(2);
  });

  it('a bad --format, --tolerance or --clickhouse-url', async () => {
    expect((await inProcess(['sql', '--format', 'xml', 'SELECT 1'])).code).toBe(2);
    expect((await inProcess(['reconcile', '--tolerance', '0.5'])).code).toBe(2);
    const url = await inProcess(['status', '--clickhouse-url', 'ftp://x']);
    expect(url).toMatchObject({
      code: 2,
      stderr: 'tapehouse: --clickhouse-url (TAPEHOUSE_CLICKHOUSE_URL): "ftp://x" is not an http(s) URL\n',
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
