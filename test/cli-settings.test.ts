import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addSettings, refusePlainToken, resolveSettings, SettingError } from '../src/cli/settings.ts';
import { parseDuration } from '../src/util/duration.ts';

describe('settings', () => {
  it('takes a flag over its variable over its default', () => {
    const env = { TAPEHOUSE_RATE: '7', TAPEHOUSE_SEED: '3' };
    const resolved = resolveSettings(['rate', 'seed', 'dataDir', 'baseUrl'], { seed: '9' }, env);
    expect(resolved).toEqual({ rate: 7, seed: 9, dataDir: './data' });
  });

  it('names the bad setting both ways', () => {
    expect(() => resolveSettings(['rate'], {}, { TAPEHOUSE_RATE: 'fast' })).toThrow(
      new SettingError('--rate (TAPEHOUSE_RATE): "fast" is not a non-negative number'),
    );
    expect(() => resolveSettings(['shard'], { shard: '3/3' }, {})).toThrow(
      /--shard \(TAPEHOUSE_SHARD\): "3\/3" is not i\/n/,
    );
    expect(() => resolveSettings(['baseUrl'], { baseUrl: 'ftp://x' }, {})).toThrow(/is not an http\(s\) URL/);
    expect(() => resolveSettings(['kafkaBrokers'], {}, { TAPEHOUSE_KAFKA_BROKERS: 'a:1,b' })).toThrow(
      /is not host:port/,
    );
  });

  it('parses lists, shards, ports and durations', () => {
    const resolved = resolveSettings(
      ['kafkaBrokers', 'shard', 'httpPort', 'duration'],
      { shard: '1/4', httpPort: '0', duration: '1.5m' },
      { TAPEHOUSE_KAFKA_BROKERS: 'k1:9092, k2:9092' },
    );
    expect(resolved).toEqual({
      kafkaBrokers: ['k1:9092', 'k2:9092'],
      shard: { index: 1, count: 4 },
      httpPort: 0,
      duration: 90_000,
    });
    expect(() => resolveSettings(['duration'], { duration: '0s' }, {})).toThrow(/positive/);
  });

  it('refuses a duration given as a bare number, from the flag or the variable, and says to add the unit', () => {
    expect(() => resolveSettings(['duration'], { duration: '30' }, {})).toThrow(
      new SettingError(
        '--duration (TAPEHOUSE_DURATION): "30" is a bare number: add its unit (ms, s, m or h, e.g. 250ms, 30s, 10m, 2h)',
      ),
    );
    expect(() => resolveSettings(['duration'], {}, { TAPEHOUSE_DURATION: '1500' })).toThrow(
      /"1500" is a bare number: add its unit/,
    );
  });

  it('shows each variable and default in the help', () => {
    const help = addSettings(new Command('x'), ['dataDir', 'baseUrl']).helpInformation();
    expect(help).toContain('(TAPEHOUSE_DATA_DIR, default "./data")');
    expect(help).toContain('(TAPEHOUSE_BASE_URL)');
  });

  it('refuses a token given on the command line, with the way to give it instead', async () => {
    const command = refusePlainToken(new Command('x').exitOverride()).action(() => undefined);
    await expect(command.parseAsync(['--token', 'abc'], { from: 'user' })).rejects.toThrow(
      /--token-file F.*TAPEHOUSE_TOKEN/,
    );
    await expect(command.parseAsync([], { from: 'user' })).resolves.toBe(command);
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
