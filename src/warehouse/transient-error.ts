/**
 * A warehouse failure that will pass by itself (the server is starting, restarting, unreachable
 * for a moment, or busy) versus one that will not (a wrong password, a refused statement, a
 * migration's SQL error): the first is worth retrying, the second ends the attempt at once.
 */

// Node's network errors: nothing is listening yet, the name is not in DNS yet, the link dropped.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

// ClickHouse error codes of a busy or not yet ready server: TIMEOUT_EXCEEDED, SOCKET_TIMEOUT,
// NETWORK_ERROR, TOO_MANY_SIMULTANEOUS_QUERIES, TABLE_IS_READ_ONLY, ALL_CONNECTION_TRIES_FAILED,
// KEEPER_EXCEPTION, SERVER_OVERLOADED.
const PASSING_CLICKHOUSE_CODES = new Set(['159', '209', '210', '202', '242', '279', '999', '745']);

export function isTransientWarehouseError(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (typeof code === 'string' && PASSING_CLICKHOUSE_CODES.has(code)) return true;
    const text = typeof message === 'string' ? message : '';
    if (/socket hang up|Timeout error|other side closed|fetch failed/i.test(text)) return true;
    // A proxy or the server itself answering 502/503/504 while it starts.
    if (/\b(502|503|504)\b.*(Bad Gateway|Service Unavailable|Gateway Timeout)/i.test(text)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
