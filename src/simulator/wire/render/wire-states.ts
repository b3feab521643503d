import type { InterfaceCases } from '../../cases.ts';
import type { ResolutionStatus, SimEvent, SimMarket } from '../../catalogue/types.ts';

/**
 * How states travel on the wire. The interface shows market `state` DRAFT and PROVISIONED only
 * (§2.9) and leaves the other names and every transition "not shown" (§3.2); its resolution
 * statuses are written ACTIVE, proposed, DISPUTED, RESOLVED, VOID. So, with the cases on: every
 * recurring event's live cycle, and a share of other trading markets, reads DRAFT while it accepts
 * orders (the independent implementation saw exactly that); a share of markets names its trading,
 * closed and resolved states outside the documented set; a proposal reads `proposed`. Which
 * market does what is a fixed function of its id, so a market never changes dialect.
 */

/** Names for the states the interface does not document, as a venue of another dialect writes them. */
const UNKNOWN_NAMES: Record<string, string> = { ACTIVE: 'OPEN', CLOSED: 'AWAITING_RESOLUTION', RESOLVED: 'SETTLED' };

/** A market's place in [0, 1), from its id (FNV-1a): stable across runs and restarts. */
function share(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32;
}

export function wireMarketState(market: SimMarket, cases: InterfaceCases): string {
  const at = share(market.id);
  if (
    market.state === 'ACTIVE' &&
    (market.recurring !== undefined ? cases.draftLiveShare > 0 : at < cases.draftLiveShare)
  )
    return 'DRAFT';
  if (at >= 1 - cases.unknownStateShare) return UNKNOWN_NAMES[market.state] ?? market.state;
  return market.state;
}

export function wireResolutionStatus(status: ResolutionStatus, cases: InterfaceCases): string {
  return status === 'PROPOSED' && cases.lowercaseProposed ? 'proposed' : status;
}

export function wireEventResolution(event: SimEvent, cases: InterfaceCases): string {
  return wireResolutionStatus(event.resolutionStatus, cases);
}
