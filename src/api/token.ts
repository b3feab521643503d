import { readFile, stat } from 'node:fs/promises';
import { createLogger } from '../util/log.ts';
import { Secret } from '../util/secret.ts';
import { SettingError } from '../util/setting-error.ts';

/** Where the client gets its personal access token; called per request, so a rotated token is picked up. */
export type TokenSource = () => Secret | Promise<Secret>;

export const TOKEN_ENV = 'TAPEHOUSE_TOKEN';

export interface TokenLookup {
  /** `--token-file`: wins over the variable because it was asked for explicitly. */
  tokenFile?: string;
  /** `TAPEHOUSE_TOKEN` as the settings read it (environment only: never a command-line value). */
  token?: Secret;
}

/**
 * The access token from a token file or `TAPEHOUSE_TOKEN` — never from a command-line value,
 * which would show in `ps` and shell history. Surrounding whitespace (a trailing newline) is dropped.
 */
export async function readAccessToken(lookup: TokenLookup = {}): Promise<Secret> {
  if (lookup.tokenFile !== undefined) {
    let content: string;
    try {
      content = await readFile(lookup.tokenFile, 'utf8');
    } catch (err) {
      const why =
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'does not exist'
          : `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      throw new SettingError(`${TOKEN_FILE_SETTING}: ${lookup.tokenFile} ${why}`);
    }
    const token = nonEmpty(content, `${TOKEN_FILE_SETTING}: ${lookup.tokenFile} is empty`);
    await warnIfShared(lookup.tokenFile);
    return token;
  }
  if (lookup.token === undefined)
    throw new SettingError(`no access token: set ${TOKEN_ENV}, or give ${TOKEN_FILE_SETTING}`);
  return nonEmpty(lookup.token.reveal(), `${TOKEN_ENV} is empty`);
}

/** The token file's flag and variable, as a bad value of it is reported. */
const TOKEN_FILE_SETTING = '--token-file (TAPEHOUSE_TOKEN_FILE)';

/**
 * A token file others on the machine can read is a token they can use: said once, at warn (a
 * person must act: `chmod 600`), and still used — refusing it would stop a running deployment
 * over a mode bit. SECURITY.md says what tapehouse expects. Descriptors (/dev/fd/N) are skipped.
 */
async function warnIfShared(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile() || (info.mode & 0o077) === 0) return;
  const who = info.mode & 0o007 ? 'everyone on this machine' : 'its group';
  createLogger('token').warn(
    { file, mode: (info.mode & 0o777).toString(8).padStart(4, '0') },
    `the token file is readable by ${who}: chmod 600 ${file}`,
  );
}

/** A token source that always gives the same token. */
export function fixedToken(token: Secret): TokenSource {
  return () => token;
}

function nonEmpty(value: string, message: string): Secret {
  const trimmed = value.trim();
  if (trimmed === '') throw new SettingError(message);
  return new Secret(trimmed);
}
