import { pino, type Logger } from 'pino';
import { dropOutput } from './closed-output.ts';
import { prettyStderr } from './log-pretty.ts';

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

/** pino's levels, quietest last; `silent` logs nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/** The process's level (TAPEHOUSE_LOG_LEVEL, resolved by the settings table and set at start). */
let processLevel: LogLevel = 'info';
/**
 * Loggers made without a level of their own follow the process's level, also those made before
 * it was set: modules that make their logger as they load (the simulator's) load before the
 * command line is read. Held weakly, so a logger nobody uses is still collected.
 */
const following = new Set<WeakRef<Logger>>();
const collected = new FinalizationRegistry<WeakRef<Logger>>((ref) => following.delete(ref));

/** Sets the process's level: every logger made without a level of its own takes it, now and later. */
export function setLogLevel(level: LogLevel): void {
  processLevel = level;
  for (const ref of following) {
    const logger = ref.deref();
    if (logger) logger.level = level;
  }
}

/** How log lines are written: JSON for machines, one readable line each for a person (log-pretty.ts). */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
let processFormat: LogFormat = 'auto';

/** Sets the format of the loggers made from now on (the CLI sets it before any part loads). */
export function setLogFormat(format: LogFormat): void {
  processFormat = format;
}

function writesPretty(): boolean {
  return processFormat === 'pretty' || (processFormat === 'auto' && process.stderr.isTTY === true);
}

/** The process's level, for a child process that logs as this one does. */
export function logLevel(): LogLevel {
  return processLevel;
}

/** A logger named `name`, at `level` if given, otherwise at the process's level (and following it). */
export function createLogger(name: string, level?: LogLevel): Logger {
  // JSON on stderr unless a person reads it there (a terminal, or asked for).
  const destination = writesPretty() ? prettyStderr() : jsonStderr();
  const logger = pino(
    {
      name,
      level: level ?? processLevel,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: (object) => scrub(object, 0) as Record<string, unknown> },
    },
    destination,
  );
  if (level === undefined) {
    const ref = new WeakRef(logger);
    following.add(ref);
    collected.register(logger, ref);
  }
  return logger;
}

function jsonStderr(): pino.DestinationStream {
  const destination = pino.destination({ dest: 2, sync: false });
  // stderr closed under us (a pipe whose reader exited): logs are dropped, the process goes on.
  destination.on('error', dropOutput);
  return destination;
}

/** Keys whose values are credentials at any depth and in any case (REDACT_PATHS names only the usual places). */
const SECRET_KEY =
  /^(authorization|proxy-authorization|token|access_token|password|passwd|secret|cookie|set-cookie|x-clickhouse-key)$/i;
/** A bearer or basic credential, or the user:password@ of a URL, inside a longer string. */
const SECRET_IN_TEXT = /\b(Bearer|Basic)\s+[\w\-.~+/]+=*|(?<=\/\/[^/\s:@]+:)[^/\s@]+(?=@)/g;

/**
 * Redacts credentials wherever they sit in a log object: plain objects and arrays are walked (not
 * errors or class instances, which keep their own serialisers) and copied only where something
 * changes, so the objects the code logs are never altered.
 */
function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string')
    return value.replace(SECRET_IN_TEXT, (match, scheme: string | undefined) =>
      scheme ? `${scheme} [redacted]` : '[redacted]',
    );
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => scrub(item, depth + 1));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, inner] of Object.entries(value)) {
    const scrubbed =
      SECRET_KEY.test(key) && inner !== undefined && inner !== null ? '[redacted]' : scrub(inner, depth + 1);
    if (scrubbed !== inner) (copy ??= { ...value })[key] = scrubbed;
  }
  return copy ?? value;
}

export type { Logger };
