import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  addSettings,
  refusePlainToken,
  resolveSettings,
  SETTINGS,
  SettingError,
  type SettingName,
} from '../src/cli/settings.ts';
import { parseDuration } from '../src/util/duration.ts';

describe('settings', () => {
  it('takes a flag over its variable over its default', () => {
    const env = { TAPEHOUSE_RATE: '7', TAPEHOUSE_SEED: '3', TAPEHOUSE_TASK_QUEUE: 'from-variable' };
    const resolved = resolveSettings(
      ['rate', 'seed', 'account', 'baseUrl', 'taskQueue', 'loaderGroup'],
      { seed: '9', taskQueue: 'from-flag' },
      { env },
    );
    expect(resolved).toEqual({
      rate: 7,
      seed: 9,
      account: 'default',
      taskQueue: 'from-flag',
    });
  });

  it("reads a flag by commander's name for it, whatever the setting is called", () => {
    const env = { TAPEHOUSE_LOADER_GROUP: 'g-variable', TAPEHOUSE_TEMPORAL_NAMESPACE: 'ns-variable' };
    expect(resolveSettings(['loaderGroup', 'temporalNamespace'], {}, { env })).toEqual({
      loaderGroup: 'g-variable',
      temporalNamespace: 'ns-variable',
    });
    expect(
      resolveSettings(['loaderGroup', 'temporalNamespace', 'statsEverySeconds'], {
        group: 'g-flag',
        namespace: 'ns-flag',
        statsEveryS: '3',
      }),
    ).toEqual({ loaderGroup: 'g-flag', temporalNamespace: 'ns-flag', statsEverySeconds: 3 });
  });

  it('names the bad setting both ways', () => {
    expect(() => resolveSettings(['rate'], {}, { env: { TAPEHOUSE_RATE: 'fast' } })).toThrow(
      new SettingError('--rate (TAPEHOUSE_RATE): "fast" is not a non-negative number'),
    );
    expect(() => resolveSettings(['shard'], { shard: '3/3' }, { env: {} })).toThrow(
      /--shard \(TAPEHOUSE_SHARD\): "3\/3" is not i\/n/,
    );
    expect(() => resolveSettings(['baseUrl'], { baseUrl: 'ftp://x' }, { env: {} })).toThrow(/is not an http\(s\) URL/);
    expect(() => resolveSettings(['kafkaBrokers'], {}, { env: { TAPEHOUSE_KAFKA_BROKERS: 'a:1,b' } })).toThrow(
      /is not host:port/,
    );
    expect(() => resolveSettings(['readShare'], { readShare: '2' }, { env: {} })).toThrow(
      new SettingError('--read-share (TAPEHOUSE_READ_SHARE): "2" is not a fraction in (0, 1]'),
    );
  });

  it('parses lists, shards, ports and durations', () => {
    const resolved = resolveSettings(
      ['kafkaBrokers', 'shard', 'httpPort', 'duration'],
      { shard: '1/4', httpPort: '0', duration: '1.5m' },
      { env: { TAPEHOUSE_KAFKA_BROKERS: 'k1:9092, k2:9092' } },
    );
    expect(resolved).toEqual({
      kafkaBrokers: ['k1:9092', 'k2:9092'],
      shard: { index: 1, count: 4 },
      httpPort: 0,
      duration: 90_000,
    });
    expect(() => resolveSettings(['duration'], { duration: '0s' }, { env: {} })).toThrow(/positive/);
  });

  it('refuses a duration given as a bare number, from the flag or the variable, and says to add the unit', () => {
    expect(() => resolveSettings(['duration'], { duration: '30' }, { env: {} })).toThrow(
      new SettingError(
        '--duration (TAPEHOUSE_DURATION): "30" is a bare number: add its unit (ms, s, m or h, e.g. 250ms, 30s, 10m, 2h)',
      ),
    );
    expect(() => resolveSettings(['duration'], {}, { env: { TAPEHOUSE_DURATION: '1500' } })).toThrow(
      /"1500" is a bare number: add its unit/,
    );
  });

  it('reads an environment-only setting from its variable, never from a flag', () => {
    const names = ['token', 'clickhouseUser', 'clickhousePassword', 'logLevel'] as const;
    const flags = { token: 't', clickhouseUser: 'u', clickhousePassword: 'p', logLevel: 'trace' };
    expect(resolveSettings(names, flags, { env: {} })).toEqual({ logLevel: 'info' });
    const env = {
      TAPEHOUSE_TOKEN: 'tok',
      TAPEHOUSE_CLICKHOUSE_USER: 'reader',
      TAPEHOUSE_CLICKHOUSE_PASSWORD: 'pw',
      TAPEHOUSE_LOG_LEVEL: 'warn',
    };
    const resolved = resolveSettings(names, flags, { env });
    expect([resolved.token?.reveal(), resolved.clickhouseUser, resolved.clickhousePassword?.reveal()]).toEqual([
      'tok',
      'reader',
      'pw',
    ]);
    expect(resolved.logLevel).toBe('warn');
    expect(() => resolveSettings(['logLevel'], {}, { env: { TAPEHOUSE_LOG_LEVEL: 'loud' } })).toThrow(
      /^TAPEHOUSE_LOG_LEVEL: "loud" is not one of trace, debug, info, warn, error, fatal, silent$/,
    );
    // A secret has no flag at all: nothing a command line or a process listing could show.
    for (const [name, s] of Object.entries(SETTINGS))
      if ('secret' in s) expect('flag' in s, `${name} is secret`).toBe(false);
  });

  it("of two settings that exclude each other, a flag wins over the other one's variable; both flags or both variables is a usage error", () => {
    const either = [['dataDir', 'clickhouseUrl']] as const;
    const names = ['dataDir', 'clickhouseUrl'] as const;
    const url = { TAPEHOUSE_CLICKHOUSE_URL: 'http://ch:8123' };
    expect(resolveSettings(names, { dataDir: '/d' }, { env: url, either })).toEqual({ dataDir: '/d' });
    expect(resolveSettings(names, {}, { env: { ...url, TAPEHOUSE_DATA_DIR: '' }, either })).toEqual({
      clickhouseUrl: 'http://ch:8123',
    });
    const both =
      /^give either --data-dir \(TAPEHOUSE_DATA_DIR\) or --clickhouse-url \(TAPEHOUSE_CLICKHOUSE_URL\), not both$/;
    expect(() => resolveSettings(names, { dataDir: '/d', clickhouseUrl: 'http://x:1' }, { env: {}, either })).toThrow(
      both,
    );
    expect(() => resolveSettings(names, {}, { env: { ...url, TAPEHOUSE_DATA_DIR: '/d' }, either })).toThrow(both);
    // Without the pair (tapehouse run keeps its state files in the data directory in server mode), both are kept.
    expect(resolveSettings(names, { dataDir: '/d' }, { env: url })).toEqual({
      dataDir: '/d',
      clickhouseUrl: 'http://ch:8123',
    });
  });

  it('shows each variable and default in the help, and the environment-only ones after the options', () => {
    const help = (names: SettingName[]) => {
      // Wide enough that commander wraps nothing.
      const command = addSettings(new Command('x').configureHelp({ helpWidth: 1000 }), names);
      let text = '';
      command.configureOutput({ writeOut: (s) => (text += s) });
      command.outputHelp();
      return text;
    };
    const shown = help(['dataDir', 'baseUrl', 'silenceMs', 'clickhousePassword']);
    expect(shown).toContain('(TAPEHOUSE_DATA_DIR, default "./data")');
    expect(shown).toContain('(TAPEHOUSE_BASE_URL)');
    expect(shown).toMatch(/--silence-ms <ms> +no frame .* \(TAPEHOUSE_SILENCE_MS, default 30000\)/);
    expect(shown).toMatch(/Environment only \(never a flag\):\n {2}TAPEHOUSE_CLICKHOUSE_PASSWORD +its password/);
    expect(shown).not.toContain('--clickhouse-password');
  });

  it('refuses a token given on the command line, with the way to give it instead', async () => {
    const command = refusePlainToken(new Command('x').exitOverride()).action(() => undefined);
    await expect(command.parseAsync(['--token', 'abc'], { from: 'user' })).rejects.toThrow(
      /--token-file F.*TAPEHOUSE_TOKEN/,
    );
    await expect(command.parseAsync([], { from: 'user' })).resolves.toBe(command);
  });

  it("README's configuration table names every flag and variable of the settings table", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Tests'));
    const missing = Object.values(SETTINGS).flatMap((s) => {
      const names = [s.env, ...('flag' in s ? [s.flag.split(' ')[0]!] : [])];
      return names.filter(
        (name) => !table.includes(`\`${name}\``) && !table.includes(`\`${name.replace(/^TAPEHOUSE_CLICKHOUSE/, '')}\``),
      );
    });
    expect(missing).toEqual([]);
  });
});

describe('durations (one parser for the command line and the workflows)', () => {
  it('reads 250ms, 30s, 1.5m, 10m and 2h, and zero with a unit', () => {
    expect(['250ms', '30s', '1.5m', '10m', '2h', '0s', ' 5 s '].map(parseDuration)).toEqual([
      250, 30_000, 90_000, 600_000, 7_200_000, 0, 5_000,
    ]);
  });

  it('refuses a bare number, saying to add a unit, and anything else that is not a duration', () => {
    for (const bare of ['30', '0', '1.5', '1500'])
      expect(() => parseDuration(bare)).toThrow(
        'is a bare number: add its unit (ms, s, m or h, e.g. 250ms, 30s, 10m, 2h)',
      );
    for (const bad of ['soon', '30 minutes', '-5s', '5d', ''])
      expect(() => parseDuration(bad)).toThrow(/is not a duration/);
  });
});
