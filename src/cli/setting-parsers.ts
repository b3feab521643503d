import { parseDuration } from '../util/duration.ts';
import { Secret } from '../util/secret.ts';

/**
 * The settings table's parsers (src/cli/settings.ts). Each reads a flag's or a variable's text and
 * throws with the tail of a sentence ("is not …"), which the table prefixes with the setting's
 * flag and variable.
 */

/** A refusal whose message must not repeat the value (it carries a password). */
export class CredentialsInValue extends Error {}

export function nonEmpty(text: string): string {
  if (!text.trim()) throw new Error('is empty');
  return text.trim();
}

/** A password or a token: kept as given (a token's own rules trim it), never printed. */
export function secret(text: string): Secret {
  return new Secret(text);
}

export function httpUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('is not an http(s) URL');
  if (url.username !== '' || url.password !== '') throw credentialsRefused();
  return url.toString().replace(/\/$/, '');
}

export function hostPort(text: string): string {
  if (text.includes('@')) throw credentialsRefused();
  const match = /^([^\s:]+):(\d{1,5})$/.exec(text.trim());
  if (!match || Number(match[2]) > 65535) throw new Error('is not host:port');
  return text.trim();
}

export function brokers(text: string): string[] {
  const list = text
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (list.length === 0) throw new Error('names no broker');
  return list.map(hostPort);
}

/** Passwords never come from a flag or a URL: ps and shell history would show them. */
function credentialsRefused(): CredentialsInValue {
  return new CredentialsInValue(
    'carries credentials (user:password@), which are refused there: the venue token comes from TAPEHOUSE_TOKEN or --token-file, ClickHouse credentials from TAPEHOUSE_CLICKHOUSE_USER and TAPEHOUSE_CLICKHOUSE_PASSWORD (Kafka is reached without credentials)',
  );
}

export function port(text: string): number {
  const n = nonNegativeInt(text);
  if (n > 65535) throw new Error('is not a port (0-65535)');
  return n;
}

export function nonNegativeInt(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new Error('is not a whole number');
  return Number(text.trim());
}

export function positiveInt(text: string): number {
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || n < 1 || !Number.isSafeInteger(n)) throw new Error('is not a whole number above 0');
  return n;
}

export function nonNegativeNumber(text: string): number {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new Error('is not a non-negative number');
  return n;
}

export function positiveNumber(text: string): number {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new Error('is not a number above 0');
  return n;
}

/** A share in (0, 1]. */
export function fraction(text: string): number {
  const n = Number(text.trim());
  if (text.trim() === '' || !(n > 0 && n <= 1)) throw new Error('is not a fraction in (0, 1]');
  return n;
}

/** A duration with its unit (util/duration.ts: a bare number is refused), above zero. */
export function positiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new Error('is not a positive duration');
  return ms;
}

export function shard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index >= count) throw new Error('is not i/n with 0 ≤ i < n');
  return { index, count };
}

export function oneOf<const T extends readonly string[]>(values: T): (text: string) => T[number] {
  return (text) => {
    if (!values.includes(text)) throw new Error(`is not one of ${values.join(', ')}`);
    return text as T[number];
  };
}
