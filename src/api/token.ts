import { readFile } from 'node:fs/promises';
import { Secret } from '../util/secret.ts';

/** Where the client gets its personal access token; called per request, so a rotated token is picked up. */
export type TokenSource = () => Secret | Promise<Secret>;

export const TOKEN_ENV = 'TAPEHOUSE_TOKEN';

export interface TokenLookup {
  /** `--token-file`: wins over the environment because it was asked for explicitly. */
  tokenFile?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Reads the access token from a token file or `TAPEHOUSE_TOKEN` — never from a command-line value,
 * which would show in `ps` and shell history. Surrounding whitespace (a trailing newline) is dropped.
 */
export async function readAccessToken(lookup: TokenLookup = {}): Promise<Secret> {
  if (lookup.tokenFile !== undefined) {
    const content = await readFile(lookup.tokenFile, 'utf8');
    return nonEmpty(content, `token file ${lookup.tokenFile} is empty`);
  }
  const fromEnv = (lookup.env ?? process.env)[TOKEN_ENV];
  if (fromEnv === undefined) throw new Error(`no access token: set ${TOKEN_ENV} or pass --token-file`);
  return nonEmpty(fromEnv, `${TOKEN_ENV} is empty`);
}

/** A token source that always gives the same token. */
export function fixedToken(token: Secret): TokenSource {
  return () => token;
}

function nonEmpty(value: string, message: string): Secret {
  const trimmed = value.trim();
  if (trimmed === '') throw new Error(message);
  return new Secret(trimmed);
}
