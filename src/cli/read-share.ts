import { SettingError } from './settings.ts';

/**
 * `--read-share`: the part of the account's read budget (§8.1) a scale-out process keeps to.
 * `tapehouse capture` and `tapehouse worker` read the same account; each defaults to half, so
 * together they stay within what the venue grants. With more processes, split it further
 * (e.g. two capture shards at 0.25 each and the worker at 0.5).
 */
export const READ_SHARE_FLAG = '--read-share <fraction>';
export const READ_SHARE_ENV = 'TAPEHOUSE_READ_SHARE';
export const SCALE_OUT_READ_SHARE = 0.5;

export const readShareHelp = `share of the account's read budget this process keeps to, in (0, 1] (${READ_SHARE_ENV}, default ${SCALE_OUT_READ_SHARE}: capture and worker split it)`;

export function readShare(flag: unknown, env: NodeJS.ProcessEnv = process.env): number {
  const text = (flag as string | undefined) ?? env[READ_SHARE_ENV];
  if (text === undefined || text === '') return SCALE_OUT_READ_SHARE;
  const share = Number(text);
  if (!(share > 0 && share <= 1))
    throw new SettingError(`--read-share (${READ_SHARE_ENV}): ${JSON.stringify(text)} is not a fraction in (0, 1]`);
  return share;
}
