import type { WebSocket } from 'ws';
import type { SimMarket } from '../catalogue/types.ts';
import { EVENT_SCOPED_KINDS, type MarketStatusEvent, type PublicTrade } from '../events.ts';
import type { Venue } from '../venue.ts';
import type { BookFeed, BookUpdate } from './book-feed.ts';
import { parseClientMessage, subjectJson, SUBJECT_FIELDS, type Subject } from './client-message.ts';
import { frameTail } from './envelope.ts';
import { openConnection, type StreamSettings } from './connection.ts';
import { MARKET_CHANNELS, type MarketChannel } from './protocol.ts';
import { SubscriptionIndex } from './subscription-index.ts';
import { bestQuoteData, deltaData, errorData, snapshotData, statusData, tradeData } from './wire.ts';
import { WsConnection } from './ws-connection.ts';

export type BookFrames = 'snapshot' | 'delta';

/**
 * The public market socket (§6.1, §6.2). Clients subscribe per channel to tokens, conditions or
 * events; every venue change is fanned out once to each connection that covers it.
 */
export class MarketStream {
  readonly connections = new Set<WsConnection>();
  readonly index = new SubscriptionIndex<WsConnection>();
  /** Tokens each connection has had a full book of: in delta mode, a token's first frame on a connection is a snapshot.
   */
  readonly #seeded = new WeakMap<WsConnection, Set<string>>();
  #delivery = 0;

  constructor(
    private readonly venue: Venue,
    private readonly feed: BookFeed,
    private readonly settings: StreamSettings,
    private readonly bookFrames: BookFrames,
  ) {
    feed.watch((tokenId) => this.#watched(tokenId));
    feed.onUpdate((u) => this.#onBook(u));
    venue.events.on('trade', (t) => this.#onTrade(t));
    venue.events.on('market_status', (e) => this.#onStatus(e));
  }

  accept(ws: WebSocket, ip: string): WsConnection {
    const conn: WsConnection = new WsConnection(
      ws,
      openConnection(this.settings, 'market', ip, () => ({ subjects: this.index.subjectsOf(conn).map(subjectJson) })),
    );
    this.connections.add(conn);
    ws.on('message', (data, isBinary) => this.#onMessage(conn, isBinary ? '' : data.toString()));
    ws.on('close', () => {
      this.connections.delete(conn);
      this.index.removeConnection(conn);
    });
    return conn;
  }

  tick(nowMs: number): void {
    for (const conn of this.connections) conn.tick(nowMs);
  }

  /** Sends an error frame whose data comes from `errorData`. */
  sendError(conn: WsConnection, data: string, nowMs: number): void {
    conn.send('error', frameTail(nowMs, data), nowMs);
  }

  /** Drops one subject of a connection (fault: error frame with action `resubscribe`). */
  dropSubject(conn: WsConnection, subject: Subject): void {
    this.index.remove(conn, subject);
    this.#forgetBooks(conn);
  }

  /** After coverage shrank, every token's next book frame on the connection is a full snapshot again (always a valid
   * base). */
  #forgetBooks(conn: WsConnection): void {
    this.#seeded.delete(conn);
  }

  /** Tokens whose books a connection holds through its orderbook subjects (for `sequence_reset`). */
  coveredTokens(conn: WsConnection): string[] {
    const tokens = new Set<string>();
    for (const s of this.index.subjectsOf(conn))
      if (s.channel === 'orderbook') for (const t of this.#tokensOf(s)) tokens.add(t);
    return [...tokens];
  }

  #onMessage(conn: WsConnection, raw: string): void {
    const now = this.settings.clock.now();
    const msg = parseClientMessage(raw, MARKET_CHANNELS, true);
    if ('code' in msg) return this.sendError(conn, errorData(msg.code, msg.detail, 'keep', { id: msg.id }), now);
    if (msg.op === 'ping') return conn.send('pong', frameTail(now, JSON.stringify({ id: msg.id })), now);
    if (msg.op === 'unsubscribe') {
      const removed = msg.subjects.filter((s) => this.index.remove(conn, s));
      this.#forgetBooks(conn);
      return conn.send('unsubscribed', frameTail(now, this.#ackData(msg.id, conn, removed, now)), now);
    }
    const accepted: Subject[] = [];
    const rejected: Array<{
      subject: Subject;
      code: 'token_not_found' | 'market_not_found' | 'event_not_found' | 'validation_failed';
    }> = [];
    for (const subject of msg.subjects) {
      const problem = this.#checkSubject(subject);
      if (problem) rejected.push({ subject, code: problem });
      else if (
        !this.index.has(conn, subject) &&
        this.index.countOf(conn) >= this.settings.limits.maxSubjectsPerConnection
      )
        rejected.push({ subject, code: 'validation_failed' });
      else {
        this.index.add(conn, subject);
        accepted.push(subject);
      }
    }
    if (rejected.length > 0) {
      const first = rejected[0] as (typeof rejected)[number];
      const detail =
        rejected.length === 1
          ? `Not subscribed: ${first.subject.kind} ${first.subject.id}.`
          : `${rejected.length} subjects not subscribed.`;
      this.sendError(
        conn,
        errorData(first.code, detail, 'keep', {
          id: msg.id,
          rejected: rejected.map((r) => ({ ...subjectJson(r.subject), code: r.code })),
        }),
        now,
      );
    }
    conn.send('subscribed', frameTail(now, this.#ackData(msg.id, conn, accepted, now)), now);
    this.#sendInitial(conn, accepted, now);
  }

  #ackData(id: string | number | undefined, conn: WsConnection, subjects: Subject[], nowMs: number): string {
    const lists: Record<string, string[]> = {};
    for (const s of subjects) (lists[SUBJECT_FIELDS[s.kind]] ??= []).push(s.id);
    const channels = [...new Set(subjects.map((s) => s.channel))];
    return JSON.stringify({
      id,
      connection_id: conn.id,
      as_of: new Date(nowMs).toISOString(),
      channels,
      subjects: subjects.map(subjectJson),
      ...lists,
    });
  }

  #checkSubject(
    s: Subject,
  ): 'token_not_found' | 'market_not_found' | 'event_not_found' | 'validation_failed' | undefined {
    const { catalogue } = this.venue;
    if (s.channel === 'market_status' && s.kind === 'token') return 'validation_failed';
    if (s.kind === 'token') return catalogue.token(s.id) ? undefined : 'token_not_found';
    if (s.kind === 'condition') return catalogue.marketByCondition(s.id) ? undefined : 'market_not_found';
    return catalogue.eventById(s.id) ? undefined : 'event_not_found';
  }

  /** After `subscribed`: the book of every token an orderbook subject covers, and its top for best_quote. */
  #sendInitial(conn: WsConnection, subjects: Subject[], nowMs: number): void {
    for (const channel of ['orderbook', 'best_quote'] as const) {
      const tokens = new Set<string>();
      for (const s of subjects) if (s.channel === channel) for (const t of this.#tokensOf(s)) tokens.add(t);
      for (const tokenId of tokens) {
        const ladder = this.feed.current(tokenId);
        const ref = this.venue.catalogue.token(tokenId);
        if (!ladder || !ref) continue;
        const bookRef = {
          tokenId,
          conditionId: ref.market.conditionId,
          marketId: ref.market.id,
          sequence: ladder.sequence,
        };
        const data =
          channel === 'orderbook'
            ? snapshotData(bookRef, ladder.bids, ladder.asks, true)
            : bestQuoteData(bookRef, ladder.bids, ladder.asks);
        conn.send(channel, frameTail(nowMs, data), nowMs);
        if (channel === 'orderbook') this.#seededSet(conn).add(tokenId);
      }
    }
  }

  /** Tokens a subject covers with a book worth sending; for an event, its markets that trade now (the others' books are
   * empty). */
  #tokensOf(s: Subject): string[] {
    const { catalogue } = this.venue;
    const marketTokens = (m: SimMarket | undefined): string[] => (m ? m.outcomes.map((o) => o.tokenId) : []);
    if (s.kind === 'token') return [s.id];
    if (s.kind === 'condition') return marketTokens(catalogue.marketByCondition(s.id));
    const event = catalogue.eventById(s.id);
    if (!event) return [];
    return catalogue
      .marketsOf(event)
      .filter((m) => m.state === 'ACTIVE')
      .flatMap(marketTokens);
  }

  #watched(tokenId: string): boolean {
    const ref = this.venue.catalogue.token(tokenId);
    if (!ref) return false;
    return (['orderbook', 'best_quote'] as const).some(
      (c) => this.#holders(c, tokenId, ref.market.conditionId, ref.market.eventId).length > 0,
    );
  }

  /** Connections covering a token's channel through the token, its condition or its event. */
  #holders(
    channel: MarketChannel,
    tokenId: string | undefined,
    conditionId: string | undefined,
    eventId: string,
  ): WsConnection[] {
    return this.#union([
      tokenId === undefined ? undefined : this.index.holders(channel, 'token', tokenId),
      conditionId === undefined ? undefined : this.index.holders(channel, 'condition', conditionId),
      this.index.holders(channel, 'event', eventId),
    ]);
  }

  /** Each connection once, however many of its subjects cover the frame. */
  #union(sets: Array<Set<WsConnection> | undefined>): WsConnection[] {
    const stamp = ++this.#delivery;
    const out: WsConnection[] = [];
    for (const set of sets) {
      if (!set) continue;
      for (const conn of set) {
        if (conn.stamp === stamp) continue;
        conn.stamp = stamp;
        out.push(conn);
      }
    }
    return out;
  }

  #fanOut(conns: WsConnection[], channel: MarketChannel, data: string, atMs: number): void {
    if (conns.length === 0) return;
    const tail = frameTail(atMs, data);
    for (const conn of conns) conn.send(channel, tail, atMs);
  }

  #seededSet(conn: WsConnection): Set<string> {
    let set = this.#seeded.get(conn);
    if (!set) {
      set = new Set();
      this.#seeded.set(conn, set);
    }
    return set;
  }

  #onBook(u: BookUpdate): void {
    const books = this.#holders('orderbook', u.tokenId, u.conditionId, u.eventId);
    if (this.bookFrames === 'snapshot') this.#fanOut(books, 'orderbook', snapshotData(u, u.bids, u.asks), u.atMs);
    else {
      // A token the connection never had a book of (a market that opened after an event subscription) starts with a
      // snapshot.
      const unseeded = books.filter((c) => !this.#seededSet(c).has(u.tokenId));
      for (const c of unseeded) this.#seededSet(c).add(u.tokenId);
      this.#fanOut(unseeded, 'orderbook', snapshotData(u, u.bids, u.asks), u.atMs);
      this.#fanOut(
        unseeded.length === 0 ? books : books.filter((c) => !unseeded.includes(c)),
        'orderbook',
        deltaData(u),
        u.atMs,
      );
    }
    if (!u.topChanged) return;
    this.#fanOut(
      this.#holders('best_quote', u.tokenId, u.conditionId, u.eventId),
      'best_quote',
      bestQuoteData(u, u.bids, u.asks),
      u.atMs,
    );
  }

  /** One frame per trade, to whoever covers either token of the market, its condition or its event. */
  #onTrade(t: PublicTrade): void {
    const market = this.venue.catalogue.marketByCondition(t.conditionId);
    if (!market) return;
    const conns = this.#union([
      ...market.outcomes.map((o) => this.index.holders('trades', 'token', o.tokenId)),
      this.index.holders('trades', 'condition', t.conditionId),
      this.index.holders('trades', 'event', market.eventId),
    ]);
    this.#fanOut(conns, 'trades', tradeData(t, market), t.atMs);
  }

  /** Market kinds reach condition and event subscribers; event-scoped kinds reach event subscribers only. */
  #onStatus(e: MarketStatusEvent): void {
    const conditionId = EVENT_SCOPED_KINDS.has(e.kind) ? undefined : e.conditionId;
    this.#fanOut(
      this.#holders('market_status', undefined, conditionId, e.eventId),
      'market_status',
      statusData(e),
      e.atMs,
    );
  }
}
