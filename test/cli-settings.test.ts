import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addSettings, durationMs, refusePlainToken, resolveSettings, SettingError } from '../src/cli/settings.ts';

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
    expect([durationMs('250ms'), durationMs('30'), durationMs('2h')]).toEqual([250, 30_000, 7_200_000]);
    expect(() => durationMs('0s')).toThrow(/positive/);
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
