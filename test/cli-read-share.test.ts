import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/cli/settings.ts';

const readShare = (flag: string | undefined, env: Record<string, string>) =>
  resolveSettings(['readShare'], { readShare: flag }, { env }).readShare;

describe('--read-share (scale-out capture and worker split one account)', () => {
  it('defaults to half, takes a fraction from the flag or TAPEHOUSE_READ_SHARE, the flag first', () => {
    expect(readShare(undefined, {})).toBe(0.5);
    expect(readShare(undefined, { TAPEHOUSE_READ_SHARE: '0.25' })).toBe(0.25);
    expect(readShare('1', { TAPEHOUSE_READ_SHARE: '0.25' })).toBe(1);
  });

  it('refuses anything outside (0, 1] with exit code 2 and the setting named', () => {
    for (const bad of ['0', '1.5', '-0.2', 'half'])
      expect(() => readShare(bad, {})).toThrow(/--read-share \(TAPEHOUSE_READ_SHARE\)/);
    for (const command of ['capture', 'worker']) {
      const run = spawnSync(
        process.execPath,
        ['bin/tapehouse.js', command, '--base-url', 'http://127.0.0.1:9', '--read-share', '2'],
        {
          encoding: 'utf8',
          env: { ...process.env, TAPEHOUSE_TOKEN: '' },
        },
      );
      expect(run.status, command).toBe(2);
      expect(run.stderr).toMatch(/--read-share/);
    }
  });
});
