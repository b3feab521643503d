import { randomUUID } from 'node:crypto';
import { codeInfo } from '../../api/codes.ts';
import type { PricePayload, BusRecord } from '../../records/index.ts';
import { ReconnectingStream } from '../../streams/reconnecting-stream.ts';
import { SseTransport } from '../../streams/sse-transport.ts';
import type { AttemptFailure, CoverageLoss, Frame, StreamSession } from '../../streams/types.ts';
import {
  ConnectionCoverage,
  LOSS_REASONS,
  admitFrame,
  gapRecord,
  WHOLE_STREAM,
  type FrameTime,
  type AdmittedFrame,
} from '../coverage/index.ts';
import {
  isFrameProblem,
  parseFrame,
  qualityRecord,
  record,
  countLoss,
  type FrameProblem,
  type ParsedFrame,
  type Origin,
} from '../frames/index.ts';
import { priceMicro } from './price-micro.ts';
import type { PrivateStreamOptions } from '../account/index.ts';
import { StreamHolder } from '../../streams/stream-holder.ts';

/** The two price feeds of §4.2 ("Streams"): our stream name, the record kind, the path. */
export interface PriceFeed {
  stream: 'prices' | 'oracle_pro';
  kind: 'price' | 'oracle_pro_price';
  path: string;
}

export const PRICE_FEEDS: readonly PriceFeed[] = [
  { stream: 'prices', kind: 'price', path: '/api/v1/prices/stream' },
  { stream: 'oracle_pro', kind: 'oracle_pro_price', path: '/api/v1/prices/oracle-pro/stream' },
];

/** What the private streams' options share (budget, clock, silence, counters, sink, mark, log); the transport is built
 * here. */
export interface PriceCaptureOptions extends Omit<PrivateStreamOptions, 'transport' | 'account'> {
  feed: PriceFeed;
  /** The venue's base URL; the feed's path is taken on it. */
  baseUrl: string;
  /** Only these symbols (`?symbols=`); absent: what the feed sends by default. */
  symbols?: readonly string[];
  /** A feed this deployment does not offer is asked again this long after (the sync jobs' 30 min). */
  notOfferedRetryMs: number;
}

/**
 * Refusals that mean "this feed is not offered here (to us)", not "try again soon": §7.5's
 * not-offered codes (404 route_not_found, 410 endpoint_retired, 503 *_not_configured), 422
 * price_feed_not_found (a symbol with no source: "repeating does not help"), and credentials or
 * scope refused (the interface names no credentials for these streams; we send none).
 */
function notOffered(failure: AttemptFailure): boolean {
  if (failure.code === 'price_feed_not_found') return true;
  const kind = codeInfo(failure.code ?? undefined)?.kind;
  if (kind === 'not_offered' || kind === 'authentication' || kind === 'permission') return true;
  return failure.code === null && (failure.status === 404 || failure.status === 410);
}

/**
 * One price feed over SSE: a `price` (or `oracle_pro_price`) record per event, coverage proven by
 * the first event of each connection, every loss a gap of the whole stream with recovery `none`
 * (prices missed are gone: the interface has no price history). Event numbers are the SSE `id:`
 * lines (a jump is a `frames_missed` gap, a repeat is dropped). A deployment that does not offer
 * the feed gets `endpoint_not_offered` gaps from each check to the next (and to the stop), never a
 * crash nor a silent nothing.
 */
export class PriceCapture extends StreamHolder {
  readonly coverage: ConnectionCoverage;
  readonly #stream: ReconnectingStream;
  #session: StreamSession | null = null;
  #awaiting = false;
  /** Since when, and why, the feed is not offered (null: offered, or not asked yet). */
  #unavailable: { checkedAtUs: bigint; detail: string } | null = null;
  /** When the venue first refused the feed as not offered, while it still is (wall-clock ms). */
  #unavailableSinceMs: number | null = null;

  constructor(private readonly o: PriceCaptureOptions) {
    super();
    this.coverage = new ConnectionCoverage(o.feed.stream, 'none');
    const url = new URL(o.feed.path, o.baseUrl);
    if (o.symbols && o.symbols.length > 0) url.searchParams.set('symbols', o.symbols.join(','));
    this.#stream = new ReconnectingStream(
      // No token: a catalogue path (§4: only trading endpoints take one); it goes nowhere it is not needed.
      new SseTransport({ url: url.toString(), token: null }),
      {
        onOpen: (session) => {
          this.#session = session;
          this.#awaiting = true;
          this.coverage.connected();
          this.#offered();
        },
        onFrame: (frame) => this.#onFrame(frame),
        onCoverageLost: (loss) => this.#onLost(loss),
        onAttemptFailed: (failure) => this.#onAttemptFailed(failure),
      },
      { budget: o.budget, clock: o.clock, silenceMs: o.silenceMs, log: o.log },
    );
  }

  protected get stream(): ReconnectingStream {
    return this.#stream;
  }

  /** The deployment answered that it does not offer this feed (asked again later). */
  /** Since when (wall-clock ms) the feed is not offered: its first refusal, not the first look at it. */
  get unavailableSinceMs(): number | null {
    return this.#unavailable === null ? null : this.#unavailableSinceMs;
  }

  get unavailable(): boolean {
    return this.#unavailable !== null;
  }

  get covered(): boolean {
    return this.#session !== null && !this.#awaiting && this.coverage.everCovered && !this.coverage.lost;
  }

  coveredThroughUs(): bigint | null {
    return this.coverage.everCovered ? this.coverage.coveredThroughUs() : null;
  }

  /** Stops; a feed still not offered gets its last gap, up to now. */
  override async stop(): Promise<void> {
    if (this.#unavailable) this.#notOfferedGap(`${this.#unavailable.detail}; capture stopped`);
    await super.stop();
  }

  #onAttemptFailed(failure: AttemptFailure): number | undefined {
    this.o.counters.failedAttempts += 1;
    if (failure.status === 429) this.o.counters.refused429 += 1;
    this.coverage.refused();
    if (!notOffered(failure)) return undefined;
    const detail = `${failure.status ?? 'no answer'} ${failure.code ?? ''}`.trim() + ` on ${this.o.feed.path}`;
    const first = this.#unavailable === null;
    if (first) this.#unavailableSinceMs = Number(this.o.clock.epochMicros() / 1000n);
    this.#notOfferedGap(detail);
    if (first)
      this.o.log?.warn(
        { stream: this.o.feed.stream, code: failure.code, status: failure.status, retryInMs: this.o.notOfferedRetryMs },
        'price feed not offered by this venue; asking again later',
      );
    return this.o.notOfferedRetryMs;
  }

  /** The span from the previous check (or this one, the first time) to now: the feed was not offered. */
  #notOfferedGap(detail: string): void {
    const nowUs = this.o.clock.epochMicros();
    const startUs = this.#unavailable?.checkedAtUs ?? nowUs;
    this.#unavailable = { checkedAtUs: nowUs, detail };
    const origin: Origin = { connectionId: `refused-${randomUUID()}`, frameNo: 0, receivedAtUs: nowUs };
    this.o.sink.write([
      gapRecord(
        {
          stream: this.o.feed.stream,
          reason: 'endpoint_not_offered',
          detail,
          scope: WHOLE_STREAM,
          startUs,
          endUs: nowUs,
          recovery: 'none',
        },
        origin,
      ),
    ]);
  }

  /** Offered again (a connection opened): the span since the last refusal is not offered either. */
  #offered(): void {
    if (!this.#unavailable) return;
    this.#notOfferedGap(`${this.#unavailable.detail}; offered again`);
    this.#unavailable = null;
  }

  #onFrame(frame: Frame): void {
    const seen = admitFrame(frame, this.coverage, this.o.counters, this.o.sink, (raw) =>
      parsePriceEvent(raw, frame.eventId),
    );
    if (!seen) return;
    const out: BusRecord[] = [];
    if (seen.missed > 0 && !this.#awaiting)
      this.#gap(
        'frames_missed',
        `${seen.missed} event numbers skipped before ${seen.parsed.seq}`,
        seen.previous,
        seen,
        out,
        seen.missed,
      );
    this.#route(seen, frame, out);
    if (out.length > 0) this.o.sink.write(out);
  }

  #route(seen: AdmittedFrame, frame: Frame, out: BusRecord[]): void {
    const { parsed } = seen;
    if (parsed.type === 'heartbeat') return;
    if (parsed.type !== 'price')
      return void out.push(
        this.#quality('unknown_frame_type', `event type ${JSON.stringify(parsed.type)}`, seen, frame),
      );
    this.#proven(seen, out);
    const payload = pricePayload(parsed, frame.eventId);
    if (typeof payload === 'string') return void out.push(this.#quality('malformed_price', payload, seen, frame));
    out.push(record(this.o.feed.kind, {}, seen.origin, parsed.ts, payload, frame.raw));
  }

  /** The first event of a connection proves coverage again: the restart gap and the loss's gap, if any. */
  #proven(seen: AdmittedFrame, out: BusRecord[]): void {
    if (!this.#awaiting) return;
    this.#awaiting = false;
    const restart = this.o.mark.resumed(seen.stamp, seen.origin);
    if (restart) out.push(restart);
    const gap = this.coverage.resumed(seen.stamp, seen.origin);
    if (gap) out.push(gap);
  }

  #gap(
    reason: 'frames_missed',
    detail: string,
    since: FrameTime | null,
    seen: AdmittedFrame,
    out: BusRecord[],
    missed: number,
  ): void {
    const gap = this.coverage.gapUntil(reason, detail, WHOLE_STREAM, since, seen.stamp, seen.origin, missed);
    if (gap) out.push(gap);
  }

  #quality(
    problem: 'unknown_frame_type' | 'malformed_price',
    detail: string,
    seen: AdmittedFrame,
    frame: Frame,
  ): BusRecord {
    return qualityRecord(
      { problem, detail, stream: this.o.feed.stream, frameSeq: seen.parsed.seq },
      seen.origin,
      seen.parsed.ts,
      frame.raw,
    );
  }

  #onLost(loss: CoverageLoss): void {
    this.#session = null;
    if (loss.reason === 'stopped') return;
    countLoss(this.o.counters, this.o.feed.stream);
    this.coverage.lose(LOSS_REASONS[loss.reason], loss.detail, WHOLE_STREAM);
  }
}

/**
 * A price event: the envelope read as on the other streams, its number from the event itself
 * (`seq`) or else its SSE `id:`, its venue time from `ts` or else `observed_at`.
 */
export function parsePriceEvent(raw: string, eventId: string | undefined): ParsedFrame | FrameProblem {
  const parsed = parseFrame(raw);
  if (isFrameProblem(parsed)) return parsed;
  const seq = parsed.seq ?? (eventId !== undefined && /^\d{1,15}$/.test(eventId) ? Number(eventId) : null);
  const observed = parsed.data.observed_at;
  const ts = parsed.ts ?? (typeof observed === 'string' ? observed : null);
  return { ...parsed, seq, ts };
}

/** The record's payload, or what is wrong with the event. */
export function pricePayload(parsed: ParsedFrame, eventId: string | undefined): PricePayload | string {
  const data = parsed.data;
  const symbol = data.symbol;
  if (typeof symbol !== 'string' || symbol === '') return 'a price event needs a symbol (a non-empty string)';
  const price = priceMicro(data);
  if (typeof price === 'string') return price;
  const payload: PricePayload = { ...(data as PricePayload), symbol, price_micro: price.micro, price_text: price.text };
  // The event's own observed_at stays as sent; an event with only `ts` gets it under that name.
  if (parsed.ts !== null && data.observed_at === undefined) payload.observed_at = parsed.ts;
  if (eventId !== undefined) payload.event_id = eventId;
  return payload;
}
