/**
 * Cases the interface allows that a narrower simulator would never show, so a pipeline tested
 * against it could not meet them (README, "Interface cases"). Each is on by default — in
 * `tapehouse simulate`, in the fault suite and in-process — except the repeated cursor, a venue
 * fault, which `tapehouse simulate` turns on and in-process tests inject (`repeat_cursor`).
 * Plain data: the whole configuration is JSON.
 */
export interface InterfaceCases {
  /**
   * §2.3, §6.2 "Public fills": a taker that meets several resting orders makes one trade of several
   * fills (one `trade_id`, a `fill_id`, price and size per maker). False: a trade per maker met.
   */
  publicFills: boolean;
  /** §2.9 "state: DRAFT seen": every recurring event's live cycle, and this share of other trading markets, read DRAFT
   * while accepting orders. */
  draftLiveShare: number;
  /** §2.9, §3.2 (state values "seen", transitions "not shown"): this share of markets names its states outside the
   * documented set. */
  unknownStateShare: number;
  /** §3.2 "resolution statuses seen: ACTIVE, proposed, DISPUTED, …": a proposal is written `proposed`, as the interface
   * writes it. */
  lowercaseProposed: boolean;
  /** §3.1 "CANCELLED | late fill": this share of resting orders removed by a cancel-all or a GTD expiry had filled just
   * before, reported late. */
  lateFillShare: number;
  /** How late such a fill is reported: from cancel to the order turning MATCHED (ms, min and max). */
  lateFillDelayMs: [number, number];
  /** §4.1 cancel-all `as_of` "conservative upper bound, not the exact cutoff": `as_of` lies up to this much after the
   * cutoff. */
  cancelAllSlackMs: number;
  /** §8.3 "Counting has a short settling delay": a request counts toward the edge caps only this long after it arrived.
   */
  edgeSettlingMs: number;
  /** §8.4 "Responses served from the CDN cache spend no budget": public catalogue GETs are cached this long (0: no
   * cache). */
  cdnCacheMs: number;
  /** §4.1 cursor paging, page sizes "not shown": this share of list pages that have a next page stop short (even
   * empty), cursor given. */
  shortPageShare: number;
  /** A venue fault: this share of list pages read at a cursor hand the same cursor back. */
  repeatCursorShare: number;
  /** §8.2 "Optional on authenticated trading responses (absent on some responses)": this share of answered requests
   * carry `X-RateLimit-*` (a 429 always does). */
  rateLimitHeadersShare: number;
}

/** The interface's full width: what `tapehouse simulate` serves. */
export const WIDE_CASES: InterfaceCases = {
  publicFills: true,
  draftLiveShare: 0.25,
  unknownStateShare: 0.1,
  lowercaseProposed: true,
  lateFillShare: 0.3,
  lateFillDelayMs: [500, 5_000],
  cancelAllSlackMs: 1_500,
  edgeSettlingMs: 2_000,
  cdnCacheMs: 1_000,
  shortPageShare: 0.2,
  repeatCursorShare: 0.02,
  rateLimitHeadersShare: 0.8,
};

/** In-process default: the same, without the repeated cursor (tests inject it as a fault). */
export const DEFAULT_CASES: InterfaceCases = { ...WIDE_CASES, repeatCursorShare: 0 };

/** The simulator's former, narrower reading, for tests that count exactly (requests, pages, trades). */
export const NARROW_CASES: InterfaceCases = {
  publicFills: false,
  draftLiveShare: 0,
  unknownStateShare: 0,
  lowercaseProposed: false,
  lateFillShare: 0,
  lateFillDelayMs: [0, 0],
  cancelAllSlackMs: 0,
  edgeSettlingMs: 0,
  cdnCacheMs: 0,
  shortPageShare: 0,
  repeatCursorShare: 0,
  rateLimitHeadersShare: 1,
};

export function resolveCases(
  cases: Partial<InterfaceCases> | undefined,
  base: InterfaceCases = DEFAULT_CASES,
): InterfaceCases {
  return { ...base, ...cases };
}
