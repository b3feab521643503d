import { pino, type Logger } from 'pino';

/**
 * The one logger factory. JSON lines (pino) on stderr so stdout stays for command output.
 * Anything that could carry the access token is redacted by path; the token itself travels as a
 * `Secret` (see secret.ts), whose JSON form is already redacted, so a stray log of it is harmless.
 */
export const REDACT_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'password',
  '*.password',
];

export function createLogger(name: string, level = process.env.TAPEHOUSE_LOG_LEVEL ?? 'info'): Logger {
  return pino(
    { name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    pino.destination({ dest: 2, sync: false }),
  );
}

export type { Logger };
