import type { BusRecord } from '../../records/index.ts';
import { StreamHolder } from '../../streams/stream-holder.ts';
import type { ConnectionBudget } from '../../streams/connection-budget.ts';
import { ReconnectingStream } from '../../streams/reconnecting-stream.ts';
import type { CoverageLoss, Frame, StreamSession } from '../../streams/types.ts';
import { WebSocketTransport } from '../../streams/websocket-transport.ts';
import type { Logger } from '../../util/log.ts';
import type { Secret } from '../../util/secret.ts';
import type { SnapshotReason } from '../books/index.ts';
import {
  attemptFailed,
  ConnectionCoverage,
  LOSS_REASONS,
  admitFrame,
  gapRecord,
  scopeOf,
  type FrameTime,
  type GapScope,
} from '../coverage/index.ts';
import {
  parseFrame,
  qualityRecord,
  countLoss,
  type FrameProblem,
  type JsonObject,
  type ParsedFrame,
  type Origin,
  type CaptureCounters,
} from '../frames/index.ts';
import { tradeContent, tradeKey } from '../../api/trade-key.ts';
import type { MarketFeed } from './market-feed.ts';
import { quoteRecord, statusRecord, tradeRecord, type MarketFrame } from './market-records.ts';
import type { Clock } from '../../util/clock.ts';

const BOOK_CHANNELS = ['orderbook', 'best_quote', 'trades'];
const STATUS_CHANNEL = 'market_status';
const ALL_CHANNELS = [...BOOK_CHANNELS, STATUS_CHANNEL];

/** How every market connection of a capture connects. */
export interface MarketConnectionOptions {
  url: string;
  token: Secret | null;
  budget: ConnectionBudget;
  clock: Clock;
  silenceMs: number;
  log?: Logger;
  counters: CaptureCounters;
  /** Where frames go down to: books, trades seen, and the record sink. */
  feed: MarketFeed;
  /** What the market capture that owns the connection follows. */
  owner: MarketOwner;
}

/** What a market connection tells the market capture that owns it (which follows the catalogue and re-seeds books). */
export interface MarketOwner {
  /** Books to read again from REST (their tokens' subscriptions are acknowledged again, or were reset). */
  reseed(tokens: readonly string[], reason: SnapshotReason, origin: Origin): void;
  /** A market_status frame, after its record (the catalogue follows recurring events with it). */
  statusSeen(data: JsonObject, stamp: FrameTime): void;
  /** A subscription of tokens added to a live connection is acknowledged. */
  added(tokens: readonly string[], stamp: FrameTime, origin: Origin): void;
  /** The connection covers its subjects (again). */
  covered(connection: MarketConnection, stamp: FrameTime, origin: Origin): void;
}

type Purpose = 'open' | 'add' | 'resubscribe';

interface Pending {
  purpose: Purpose;
  tokens: string[];
  loss?: SubjectLoss;
}

/** One subscription the venue dropped while the connection stayed open. */
interface SubjectLoss {
  since: FrameTime;
  scope: GapScope;
  detail: string;
  reseed: boolean;
}

/**
 * One market-stream socket and the subjects it carries (tokens on the book, quote and trade
 * channels; events on market_status), kept alive across reconnects. It subscribes on every open,
 * follows error-frame actions, notices lost and duplicated frames by the venue's frame numbers,
 * and turns frames into records.
 */
export class MarketConnection extends StreamHolder {
  /** token id → condition id. */
  readonly tokens = new Map<string, string>();
  readonly events = new Set<string>();
  readonly coverage = new ConnectionCoverage('market', 'books_reseeded');
  readonly #stream: ReconnectingStream;
  #session: StreamSession | null = null;
  readonly #pending = new Map<string, Pending>();
  #openAwaiting = 0;
  #subjectLosses: SubjectLoss[] = [];
  /** Whether this venue acknowledges subscriptions: unknown until the first acknowledgement or data frame. */
  #venueAcks: boolean | null = null;
  #nextId = 0;
  #covers = 0;

  constructor(
    private readonly ctx: MarketConnectionOptions,
    readonly name: string,
  ) {
    super();
    const transport = new WebSocketTransport({ url: ctx.url, token: ctx.token });
    this.#stream = new ReconnectingStream(
      transport,
      {
        onOpen: (session) => this.#onOpen(session),
        onFrame: (frame) => this.receive(frame),
        onCoverageLost: (loss) => this.#onLost(loss),
        onAttemptFailed: (failure) => attemptFailed(failure, ctx.counters, this.coverage),
      },
      { budget: ctx.budget, clock: ctx.clock, silenceMs: ctx.silenceMs, log: ctx.log },
    );
  }

  protected get stream(): ReconnectingStream {
    return this.#stream;
  }

  /** Covering every subject, with no loss open. */
  get covered(): boolean {
    return this.#live && this.#subjectLosses.length === 0;
  }

  /** The connection as a whole covers what it subscribed (single dropped subscriptions aside). */
  get #live(): boolean {
    return this.#session !== null && this.coverage.everCovered && !this.coverage.lost && this.#openAwaiting === 0;
  }

  get open(): boolean {
    return this.#session !== null;
  }

  /** Up to when everything this connection carries is known covered; null while it has never been. */
  coveredThroughUs(): bigint | null {
    if (!this.coverage.everCovered) return null;
    let through = this.coverage.coveredThroughUs();
    for (const loss of this.#subjectLosses) {
      const since = loss.since.receivedAtUs;
      if (through === null || since < through) through = since;
    }
    return through;
  }

  scope(): GapScope {
    return scopeOf(ALL_CHANNELS, this.tokens, this.events);
  }

  /** Takes up tokens (token → condition) and events; subscribed now when the socket is open. */
  add(tokens: ReadonlyMap<string, string>, events: readonly string[]): void {
    const newTokens = [...tokens.keys()].filter((t) => !this.tokens.has(t));
    const newEvents = events.filter((e) => !this.events.has(e));
    for (const t of newTokens) this.tokens.set(t, tokens.get(t)!);
    for (const e of newEvents) this.events.add(e);
    if (this.#session) this.#subscribe('add', newTokens, newEvents);
  }

  /** Ends coverage of tokens and events on purpose; recorded as an open-ended `unsubscribed` gap. */
  remove(tokens: readonly string[], events: readonly string[], detail: string): void {
    const gone = new Map<string, string>();
    for (const t of tokens) {
      const condition = this.tokens.get(t);
      if (condition === undefined) continue;
      gone.set(t, condition);
      this.tokens.delete(t);
    }
    const goneEvents = events.filter((e) => this.events.delete(e));
    if (gone.size === 0 && goneEvents.length === 0) return;
    const session = this.#session;
    if (session && gone.size > 0)
      session.send({ op: 'unsubscribe', id: this.#id(), channels: BOOK_CHANNELS, token_ids: [...gone.keys()] });
    if (session && goneEvents.length > 0)
      session.send({ op: 'unsubscribe', id: this.#id(), channels: [STATUS_CHANNEL], event_ids: goneEvents });
    if (!this.coverage.everCovered) return;
    const nowUs = this.ctx.clock.epochMicros();
    const scope = scopeOf(
      gone.size > 0 ? (goneEvents.length > 0 ? ALL_CHANNELS : BOOK_CHANNELS) : [STATUS_CHANNEL],
      gone,
      goneEvents,
    );
    const last = this.coverage.lastFrame;
    const origin: Origin = {
      connectionId: last?.origin.connectionId ?? this.name,
      frameNo: last?.origin.frameNo ?? 0,
      receivedAtUs: nowUs,
    };
    this.ctx.feed.write([
      gapRecord(
        { stream: 'market', reason: 'unsubscribed', detail, scope, startUs: nowUs, endUs: null, recovery: 'none' },
        origin,
      ),
    ]);
  }

  #id(): string {
    return `${this.name}-${++this.#nextId}`;
  }

  /** Sends subscriptions for tokens (book, quote, trade channels) and events (status); returns their ids. */
  #subscribe(
    purpose: Purpose,
    tokens: readonly string[],
    events: readonly string[],
    channels?: readonly string[],
    loss?: SubjectLoss,
  ): number {
    const session = this.#session;
    if (!session) return 0;
    let sent = 0;
    const bookChannels = channels ? channels.filter((c) => c !== STATUS_CHANNEL) : BOOK_CHANNELS;
    if (tokens.length > 0 && bookChannels.length > 0) {
      const id = this.#id();
      this.#pending.set(id, { purpose, tokens: bookChannels.includes('orderbook') ? [...tokens] : [], loss });
      session.send({ op: 'subscribe', id, channels: bookChannels, token_ids: tokens });
      sent += 1;
    }
    if (events.length > 0 && (!channels || channels.includes(STATUS_CHANNEL))) {
      const id = this.#id();
      this.#pending.set(id, { purpose, tokens: [], loss });
      session.send({ op: 'subscribe', id, channels: [STATUS_CHANNEL], event_ids: events });
      sent += 1;
    }
    return sent;
  }

  #onOpen(session: StreamSession): void {
    this.#session = session;
    this.coverage.connected();
    this.#pending.clear();
    this.#openAwaiting = this.#subscribe('open', [...this.tokens.keys()], [...this.events]);
  }

  #onLost(loss: CoverageLoss): void {
    this.#session = null;
    this.#pending.clear();
    this.#openAwaiting = 0;
    if (loss.reason === 'stopped') return;
    countLoss(this.ctx.counters, this.coverage.stream);
    this.coverage.lose(LOSS_REASONS[loss.reason], loss.detail, this.scope());
  }

  /** One frame of this connection (the stream delivers here; the benchmark feeds recorded frames). */
  receive(frame: Frame): void {
    const { feed } = this.ctx;
    const seen = admitFrame(frame, this.coverage, this.ctx.counters, feed, this.#parse);
    if (!seen) return;
    const { parsed, origin, stamp, previous, missed } = seen;
    if ((missed > 0 || parsed.type === 'sequence_reset') && this.#live)
      this.#lostFrames(parsed, missed, previous, stamp, origin);
    const { data } = parsed;
    switch (parsed.type) {
      case 'heartbeat':
      case 'pong':
      case 'unsubscribed':
      case 'sequence_reset':
        return;
      case 'subscribed':
        return this.#onAck(data, stamp, origin);
      case 'error':
        return this.#onError(parsed, frame, origin, previous ?? stamp);
      case 'orderbook':
        this.#dataArrived(stamp, origin);
        return feed.book({
          origin,
          venueTime: parsed.ts,
          data,
          raw: frame.raw,
          unknownEnvelope: parsed.unknownFields,
          scanned: parsed.scanned,
        });
      case 'trades':
        this.#dataArrived(stamp, origin);
        return feed.write(this.#trade(parsed, frame, origin));
      case 'best_quote':
        this.#dataArrived(stamp, origin);
        return feed.write([quoteRecord(this.#marketFrame(parsed, frame, origin), this.ctx.feed.books)]);
      case STATUS_CHANNEL:
        this.#dataArrived(stamp, origin);
        feed.write([statusRecord(this.#marketFrame(parsed, frame, origin))]);
        return this.ctx.owner.statusSeen(data, stamp);
      default:
        feed.write([
          qualityRecord(
            {
              problem: 'unknown_frame_type',
              detail: `frame type ${JSON.stringify(parsed.type)}`,
              stream: 'market',
              frameSeq: parsed.seq,
            },
            origin,
            parsed.ts,
            frame.raw,
          ),
        ]);
    }
  }

  /** Snapshot book frames as the venue lays them out take the fast path; every other frame, and any doubt, JSON.parse.
   */
  readonly #parse = (raw: string): ParsedFrame | FrameProblem =>
    this.ctx.feed.books.parseSnapshotFrame(raw) ?? parseFrame(raw);

  /** A public fill: once per natural key and content; the same key with other content is kept too, and reported. */
  #trade(parsed: ParsedFrame, frame: Frame, origin: Origin): BusRecord[] {
    const trade = tradeRecord(this.#marketFrame(parsed, frame, origin));
    const payload = trade.payload as Record<string, unknown>;
    const key = trade.kind === 'trade' ? tradeKey(payload) : null;
    if (key === null) return [trade];
    const seen = this.ctx.feed.trades.admit(key, tradeContent(payload));
    if (seen === 'duplicate') {
      this.ctx.counters.duplicates += 1;
      return [];
    }
    if (seen === 'new') return [trade];
    const detail = `trade ${String(payload.trade_id)}${typeof payload.fill_id === 'string' ? ` fill ${payload.fill_id}` : ''} seen before with other content; both kept`;
    const tokenId = typeof payload.token_id === 'string' ? payload.token_id : null;
    const conditionId = typeof payload.condition_id === 'string' ? payload.condition_id : null;
    return [
      qualityRecord(
        { problem: 'conflicting_trade', detail, stream: 'market', tokenId, conditionId, frameSeq: parsed.seq },
        origin,
        parsed.ts,
        frame.raw,
      ),
      trade,
    ];
  }

  #marketFrame(parsed: ParsedFrame, frame: Frame, origin: Origin): MarketFrame {
    return {
      origin,
      ts: parsed.ts,
      seq: parsed.seq,
      data: parsed.data,
      raw: frame.raw,
      conditionOf: (t) => this.tokens.get(t),
    };
  }

  /** A venue that never acknowledges: coverage resumes with the first data frame after subscribing. */
  #dataArrived(stamp: FrameTime, origin: Origin): void {
    if (this.#openAwaiting === 0 || this.#venueAcks === true) return;
    this.#venueAcks = false;
    this.#pending.clear();
    this.#openAwaiting = 0;
    this.#covered(stamp, origin);
  }

  #onAck(data: JsonObject, stamp: FrameTime, origin: Origin): void {
    this.#venueAcks = true;
    const pending = this.#pending.get(String(data.id));
    if (!pending) return;
    this.#pending.delete(String(data.id));
    if (pending.purpose === 'open') {
      this.#openAwaiting -= 1;
      if (this.#openAwaiting === 0) this.#covered(stamp, origin);
    } else if (pending.purpose === 'add') {
      if (pending.tokens.length > 0) {
        this.ctx.owner.reseed(pending.tokens, 'subscribe', origin);
        this.ctx.owner.added(pending.tokens, stamp, origin);
      }
    } else if (pending.loss) {
      this.#closeSubjectLoss(pending.loss, stamp, origin);
    }
  }

  /** Every subject of the (re)opened connection is acknowledged: close the loss, re-seed the books. */
  #covered(stamp: FrameTime, origin: Origin): void {
    const records: BusRecord[] = [];
    const gap = this.coverage.resumed(stamp, origin);
    if (gap) records.push(gap);
    for (const loss of this.#subjectLosses) {
      const subjectGap = this.coverage.gapUntil(
        'subscription_dropped',
        loss.detail,
        loss.scope,
        loss.since,
        stamp,
        origin,
      );
      if (subjectGap) records.push(subjectGap);
    }
    this.#subjectLosses = [];
    this.ctx.feed.write(records);
    this.#covers += 1;
    const tokens = [...this.tokens.keys()];
    // A new connection may number the venue's books afresh: the first frame after this is the base.
    this.ctx.feed.books.resetVenueSequences(tokens);
    this.ctx.owner.reseed(tokens, this.#covers === 1 ? 'connect' : 'reconnect', origin);
    this.ctx.owner.covered(this, stamp, origin);
  }

  #closeSubjectLoss(loss: SubjectLoss, stamp: FrameTime, origin: Origin): void {
    const index = this.#subjectLosses.indexOf(loss);
    if (index < 0) return;
    this.#subjectLosses.splice(index, 1);
    const gap = this.coverage.gapUntil('subscription_dropped', loss.detail, loss.scope, loss.since, stamp, origin);
    if (gap) this.ctx.feed.write([gap]);
    if (loss.reseed) this.ctx.owner.reseed(loss.scope.token_ids, 'resubscribe', origin);
  }

  /** Frame numbers jumped, or the venue reset its sequence: a gap over the whole connection, books re-seeded. */
  #lostFrames(parsed: ParsedFrame, missed: number, previous: FrameTime | null, stamp: FrameTime, origin: Origin): void {
    const reset = parsed.type === 'sequence_reset';
    const detail = reset
      ? `sequence_reset: ${JSON.stringify(parsed.data.reason ?? '')}`
      : `${missed} frame numbers skipped before ${parsed.seq}`;
    const gap = this.coverage.gapUntil(
      reset ? 'sequence_reset' : 'frames_missed',
      detail,
      this.scope(),
      previous,
      stamp,
      origin,
      missed > 0 ? missed : null,
    );
    if (gap) this.ctx.feed.write([gap]);
    const tokens = [...this.tokens.keys()];
    if (reset) this.ctx.feed.books.resetVenueSequences(tokens);
    this.ctx.owner.reseed(tokens, reset ? 'sequence_reset' : 'frames_missed', origin);
  }

  #onError(parsed: ParsedFrame, frame: Frame, origin: Origin, since: FrameTime): void {
    const { data } = parsed;
    const failure = (data.failure ?? {}) as JsonObject;
    const action = typeof data.action === 'string' ? data.action : 'unknown';
    const code = typeof failure.code === 'string' ? failure.code : 'unknown';
    const rejected = Array.isArray(data.rejected);
    this.ctx.feed.write([
      qualityRecord(
        {
          problem: rejected ? 'subscription_rejected' : 'venue_error',
          detail: `${code}, action ${action}`,
          stream: 'market',
          frameSeq: parsed.seq,
        },
        origin,
        parsed.ts,
        frame.raw,
      ),
    ]);
    this.ctx.counters.errorFrames += 1;
    if (action === 'keep') return;
    if (action === 'resubscribe')
      return this.#resubscribe(data.subject, since, `venue dropped the subscription (${code})`);
    // `reconnect`, and any action we do not know: a new connection re-seeds everything, the safe choice.
    this.#session?.reconnect(`venue error ${code}, action ${action}`);
  }

  #resubscribe(subject: unknown, since: FrameTime, detail: string): void {
    // Not covered yet: the loss already open (or the subscriptions awaiting acknowledgement) include the subject.
    if (!this.#live) return;
    const s = (subject ?? {}) as JsonObject;
    const channel = typeof s.channel === 'string' ? s.channel : null;
    const tokenId = typeof s.token_id === 'string' ? s.token_id : null;
    const eventId = typeof s.event_id === 'string' ? s.event_id : null;
    if (!channel || (!tokenId && !eventId)) {
      // The venue did not say which: take every subscription up again.
      this.coverage.lose('subscription_dropped', detail, this.scope(), since);
      this.#openAwaiting += this.#subscribe('open', [...this.tokens.keys()], [...this.events]);
      return;
    }
    const tokens = new Map<string, string>();
    if (tokenId) tokens.set(tokenId, this.tokens.get(tokenId) ?? '');
    const loss: SubjectLoss = {
      since,
      scope: scopeOf([channel], tokens, eventId ? [eventId] : []),
      detail,
      reseed: channel === 'orderbook',
    };
    this.#subjectLosses.push(loss);
    this.#subscribe('resubscribe', tokenId ? [tokenId] : [], eventId ? [eventId] : [], [channel], loss);
  }
}
