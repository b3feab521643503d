/**
 * Telling a warehouse that refuses a value apart from a warehouse that is slow, down or busy. The
 * first names the row it failed at (chDB: `failedAtRow`; a server: "(at row N)" in the message):
 * that record becomes a dead letter. Anything else is retried with backoff, for as long as it takes.
 */

const AT_ROW = /\(at row (\d+)\)/;

/** The 0-based row of the insert the engine refused, when the failure is about that row's data. */
export function refusedRow(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const failedAtRow = (error as { failedAtRow?: unknown }).failedAtRow;
  if (typeof failedAtRow === 'number' && Number.isInteger(failedAtRow) && failedAtRow >= 1) return failedAtRow - 1;
  const match = AT_ROW.exec(String((error as { message?: unknown }).message ?? ''));
  return match ? Number(match[1]) - 1 : undefined;
}

/** The first line of an error's message (engine messages go on with a dump of the rows). */
export function errorSummary(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n', 1)[0] ?? message;
  return line.length > 500 ? `${line.slice(0, 497)}…` : line;
}
