import type { CostMethod } from './cost-basis.ts';
import { inVenueOrder, type LedgerEvent } from './ledger-events.ts';
import { Ledger } from './ledger.ts';
import type { VenueRules } from './venue-rules.ts';

export interface ReplayOptions {
  method: CostMethod;
  /** The fee schedule and rebate share (--venue-rules); undefined: not known, no rebate is credited. */
  rules: VenueRules | undefined;
}

/**
 * Replays the events in the venue's order and stops at each checkpoint (epoch ms) to let the
 * caller read the ledger as it stood then: everything at or before the checkpoint's millisecond is
 * in, nothing after. Returns the ledger after the last event.
 */
export function replay(
  events: readonly LedgerEvent[],
  options: ReplayOptions,
  checkpoints: readonly number[] = [],
  onCheckpoint: (atMs: number, ledger: Ledger) => void = () => {},
): Ledger {
  const ledger = new Ledger(options.method, options.rules);
  const stops = [...new Set(checkpoints)].sort((a, b) => a - b);
  let next = 0;
  for (const event of inVenueOrder(events)) {
    while (next < stops.length && stops[next]! < event.atMs) onCheckpoint(stops[next++]!, ledger);
    ledger.apply(event);
  }
  while (next < stops.length) onCheckpoint(stops[next++]!, ledger);
  return ledger;
}
