const HOUR_MS = 3_600_000;

/**
 * The next instant an anchor snapshot is due: the next multiple of `everyMs` or the next UTC hour,
 * whichever comes first (both counted from the epoch, so every capture process anchors at the same
 * instants and any hour of data starts with a snapshot of every book).
 */
export function nextAnchorMs(nowMs: number, everyMs: number): { atMs: number; hour: boolean } {
  const nextHour = (Math.floor(nowMs / HOUR_MS) + 1) * HOUR_MS;
  const nextEvery = everyMs > 0 ? (Math.floor(nowMs / everyMs) + 1) * everyMs : Number.POSITIVE_INFINITY;
  const atMs = Math.min(nextHour, nextEvery);
  return { atMs, hour: atMs % HOUR_MS === 0 };
}
