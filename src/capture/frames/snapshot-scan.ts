/**
 * The fast path of the venue's snapshot book frames, the bulk of the market stream: a full ladder
 * for every change of a book (4 KB at 50 levels a side), of which a change touches a level or two.
 * `JSON.parse` of the whole frame was most of capture's time, and most of a frame is its two
 * level arrays. So when a frame is laid out as the venue writes it,
 *
 *   {…,"data":{…,"token_id":"T",…,"bids":[{"price_micro":"P","shares_micro":"S"},…],"asks":[…]}…}
 *
 * the arrays are read here by position, strictly, and only the rest (the envelope and the book's
 * own fields, a few hundred bytes) goes through `JSON.parse`, with the arrays emptied. A side whose
 * text is the one last read for the token is not read again: its levels have not changed.
 *
 * Strict means: no whitespace, exactly these two fields per level in this order, prices of 1 to 6
 * digits and sizes of 1 to 15 digits without a leading zero (so neither is 0), bids strictly
 * descending and asks strictly ascending (so no price twice). Anything else — another layout, a
 * zero size, an out-of-order level — is not read here, and the frame takes the general path,
 * which also says what is wrong with it. The caller checks the parsed rest (books/token-books.ts): the arrays
 * it emptied must be the book's own, and the book must have no field capture does not read.
 */

/** One price level as the ladder holds it (books/ladder.ts): the scan reads the wire's levels straight into this form. */
export interface Level {
  priceMicro: number;
  /** Canonical decimal string of a non-negative integer; "0" only in a change, meaning "removed". */
  sizeMicro: string;
}

/** What a snapshot frame's level arrays were, read by position. */
export interface ScannedSnapshot {
  /** The frame with both arrays emptied, for `JSON.parse`. */
  head: string;
  /** The token named first in the frame: the parsed `data.token_id` must be the same. */
  tokenId: string;
  bids: ScannedSide;
  asks: ScannedSide;
}

export interface ScannedSide {
  /** The array's text, `[` to `]`; when unchanged, the very string it was found equal to. */
  text: string;
  /** Its levels, best first; null when the text is the one last read for the token (unchanged). */
  levels: Level[] | null;
}

/** The level arrays last read for a token, each with its text (null: not known). */
export interface SideTexts {
  bids: string | null;
  asks: string | null;
}

const BIDS = ',"bids":[';
const ASKS = ',"asks":[';
const TOKEN = '"token_id":"';
const PRICE = '{"price_micro":"';
const SIZE = '","shares_micro":"';
const EMPTIED = ',"bids":[],"asks":[]';

/** The frame's arrays by position, or null when it is not laid out strictly as the venue writes it. */
export function scanSnapshot(
  raw: string,
  previous: (tokenId: string) => SideTexts | undefined,
): ScannedSnapshot | null {
  const bidsAt = raw.indexOf(BIDS);
  if (bidsAt < 0) return null;
  const tokenAt = raw.indexOf(TOKEN);
  if (tokenAt < 0 || tokenAt > bidsAt) return null;
  const tokenEnd = raw.indexOf('"', tokenAt + TOKEN.length);
  if (tokenEnd < 0 || tokenEnd > bidsAt) return null;
  const tokenId = raw.slice(tokenAt + TOKEN.length, tokenEnd);
  const before = previous(tokenId);
  const bids = readSide(raw, bidsAt + BIDS.length - 1, -1, before?.bids ?? null);
  if (bids === null) return null;
  const asksAt = bids.end;
  if (!literalAt(raw, asksAt, ASKS)) return null;
  const asks = readSide(raw, asksAt + ASKS.length - 1, 1, before?.asks ?? null);
  if (asks === null) return null;
  // A later "bids" or "asks" key would be the one JSON.parse keeps.
  if (raw.indexOf('"bids"', asks.end) >= 0 || raw.indexOf('"asks"', asks.end) >= 0) return null;
  return {
    head: raw.slice(0, bidsAt) + EMPTIED + raw.slice(asks.end),
    tokenId,
    bids: { text: bids.known ?? raw.slice(bidsAt + BIDS.length - 1, bids.end), levels: bids.levels },
    asks: { text: asks.known ?? raw.slice(asksAt + ASKS.length - 1, asks.end), levels: asks.levels },
  };
}

/** A scanned side's levels: read already, or (found unchanged) read from its text, which the scan once read cleanly. */
export function levelsOf(side: ScannedSide, which: 'bid' | 'ask'): Level[] {
  return side.levels ?? readSide(side.text, 0, which === 'bid' ? -1 : 1, null)!.levels!;
}

/**
 * The array starting at `open` (its `[`): where it ends (past its `]`) and its levels, or null
 * levels when the text equals `known`. `direction` -1: prices must fall; 1: rise.
 */
function readSide(
  raw: string,
  open: number,
  direction: -1 | 1,
  known: string | null,
): { end: number; levels: Level[] | null; known: string | null } | null {
  // A slice compared with === is a memory compare; startsWith goes a character at a time.
  if (known !== null && raw.slice(open, open + known.length) === known)
    return { end: open + known.length, levels: null, known };
  const levels: Level[] = [];
  let at = open + 1;
  if (raw.charCodeAt(at) === 93 /* ] */) return { end: at + 1, levels, known: null };
  let last = direction === -1 ? Number.POSITIVE_INFINITY : 0;
  for (;;) {
    if (!literalAt(raw, at, PRICE)) return null;
    at += PRICE.length;
    // Price: 1 to 6 digits, no leading zero, so inside (0, 1,000,000).
    let price = raw.charCodeAt(at) - 48;
    if (price < 1 || price > 9) return null;
    let end = at + 1;
    for (let d = raw.charCodeAt(end) - 48; d >= 0 && d <= 9; d = raw.charCodeAt(end) - 48) {
      price = price * 10 + d;
      if (++end - at > 6) return null;
    }
    if (direction === -1 ? price >= last : price <= last) return null;
    last = price;
    if (!literalAt(raw, end, SIZE)) return null;
    at = end + SIZE.length;
    // Size: 1 to 15 digits, no leading zero (a snapshot level is never empty), exact as text.
    const first = raw.charCodeAt(at);
    if (first < 49 || first > 57) return null;
    end = at + 1;
    for (let c = raw.charCodeAt(end); c >= 48 && c <= 57; c = raw.charCodeAt(end)) {
      if (++end - at > 15) return null;
    }
    if (raw.charCodeAt(end) !== 34 /* " */ || raw.charCodeAt(end + 1) !== 125 /* } */) return null;
    levels.push({ priceMicro: price, sizeMicro: ownCopy(raw.slice(at, end)) });
    at = end + 2;
    const next = raw.charCodeAt(at);
    if (next === 93 /* ] */) return { end: at + 1, levels, known: null };
    if (next !== 44 /* , */) return null;
    at += 1;
  }
}

/**
 * The ladder keeps sizes for as long as their level stands. V8 makes a slice of 13 characters or
 * more a view that keeps the whole frame alive; a shorter one is a copy. The rare long size is
 * rebuilt from its number (exact up to 15 digits) so a ladder never pins its frames.
 */
function ownCopy(size: string): string {
  return size.length < 13 ? size : String(Number(size));
}

/** Whether `literal` is at `at` (a short literal: a loop the compiler inlines beats a builtin call). */
function literalAt(raw: string, at: number, literal: string): boolean {
  for (let i = 0; i < literal.length; i++) if (raw.charCodeAt(at + i) !== literal.charCodeAt(i)) return false;
  return true;
}
