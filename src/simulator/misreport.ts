/**
 * Deliberate misreports, for testing a reconciler against a venue whose numbers are wrong: while
 * set, the REST answers say something the ground truth does not. Off unless a test sets them
 * (`misreports(sim.venue).avgPrice = {…}`). Only REST reads change; streams and the ground-truth
 * log keep telling the truth.
 */
export interface Misreports {
  /** Positions reads report this token's `avg_price_micro` shifted by `offsetMicro`. */
  avgPrice?: { tokenId: string; offsetMicro: bigint };
  /** The settled-PnL bucket at `bucketAtMs` reports `field` shifted by `offsetMicro`. */
  pnlBucket?: { bucketAtMs: number; field: string; offsetMicro: bigint };
  /** Fill listings (portfolio trades, an order's trades) leave this fill out. */
  missingFillId?: string;
}

const byVenue = new WeakMap<object, Misreports>();

export function misreports(venue: object): Misreports {
  let set = byVenue.get(venue);
  if (!set) byVenue.set(venue, (set = {}));
  return set;
}

function shifted(body: Record<string, unknown>, field: string, offsetMicro: bigint): Record<string, unknown> {
  const value = body[field];
  return typeof value === 'bigint' ? { ...body, [field]: value + offsetMicro } : body;
}

/** A rendered position as the positions read reports it. */
export function reportedPosition(venue: object, position: Record<string, unknown>): Record<string, unknown> {
  const wrong = byVenue.get(venue)?.avgPrice;
  return wrong && position.token_id === wrong.tokenId
    ? shifted(position, 'avg_price_micro', wrong.offsetMicro)
    : position;
}

/** A rendered settled-PnL bucket as the PnL read reports it. */
export function reportedPnlBucket(
  venue: object,
  bucketAtMs: number,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const wrong = byVenue.get(venue)?.pnlBucket;
  return wrong && wrong.bucketAtMs === bucketAtMs ? shifted(body, wrong.field, wrong.offsetMicro) : body;
}

/** The fills a listing reports. */
export function reportedFills<T extends { fillId: string }>(venue: object, fills: T[]): T[] {
  const missing = byVenue.get(venue)?.missingFillId;
  return missing === undefined ? fills : fills.filter((fill) => fill.fillId !== missing);
}
