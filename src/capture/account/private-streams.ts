import type { AccountEventPayload, Unread, Payload, PortfolioSyncPayload, BusRecord } from '../../records/index.ts';
import {
  MAX_NESTING,
  normaliseMicros,
  qualityRecord,
  record,
  countLoss,
  type RecordSink,
  type JsonObject,
  type QualityProblem,
  type CaptureCounters,
} from '../frames/index.ts';
import { StreamHolder } from '../../streams/stream-holder.ts';
import type { ConnectionBudget } from '../../streams/connection-budget.ts';
import { ReconnectingStream } from '../../streams/reconnecting-stream.ts';
import type { Transport } from '../../streams/transport.ts';
import type { CoverageLoss, Frame, StreamSession } from '../../streams/types.ts';
import type { Logger } from '../../util/log.ts';
import {
  attemptFailed,
  ConnectionCoverage,
  LOSS_REASONS,
  admitFrame,
  WHOLE_STREAM,
  type FrameTime,
  type AdmittedFrame,
  type GapReason,
  type GapRecovery,
  type StreamMark,
} from '../coverage/index.ts';
import { PositionChain } from './position-chain.ts';
import type { Clock } from '../../util/clock.ts';

export interface PrivateStreamOptions {
  transport: Transport;
  budget: ConnectionBudget;
  clock: Clock;
  silenceMs: number;
  counters: CaptureCounters;
  /** Where the records go (the publisher). */
  sink: RecordSink;
  mark: StreamMark;
  /** Label of the account the token belongs to: the key of its records. */
  account: string;
  log?: Logger;
}

/**
 * What the account socket and the portfolio SSE share: one connection kept alive, coverage that
 * resumes with the first proof (an acknowledgement, or the first sync), every loss recorded as a
 * gap of the whole stream, frame numbers checked for duplicates and jumps.
 */
abstract class PrivateStream extends StreamHolder {
  readonly coverage: ConnectionCoverage;
  readonly #stream: ReconnectingStream;
  protected session: StreamSession | null = null;
  protected awaiting = false;

  constructor(
    protected readonly o: PrivateStreamOptions,
    stream: string,
    recovery: GapRecovery,
  ) {
    super();
    this.coverage = new ConnectionCoverage(stream, recovery);
    this.#stream = new ReconnectingStream(
      o.transport,
      {
        onOpen: (session) => {
          this.session = session;
          this.awaiting = true;
          this.coverage.connected();
          this.opened(session);
        },
        onFrame: (frame) => this.#onFrame(frame),
        onCoverageLost: (loss) => this.#onLost(loss),
        onAttemptFailed: (failure) => attemptFailed(failure, o.counters, this.coverage),
      },
      { budget: o.budget, clock: o.clock, silenceMs: o.silenceMs, log: o.log },
    );
  }

  protected get stream(): ReconnectingStream {
    return this.#stream;
  }

  get covered(): boolean {
    return this.session !== null && !this.awaiting && this.coverage.everCovered && !this.coverage.lost;
  }

  coveredThroughUs(): bigint | null {
    return this.coverage.everCovered ? this.coverage.coveredThroughUs() : null;
  }

  protected abstract opened(session: StreamSession): void;
  protected abstract route(seen: AdmittedFrame, frame: Frame, out: BusRecord[]): void;

  /** Coverage proven (again) by this frame. */
  protected proven(seen: AdmittedFrame, out: BusRecord[]): void {
    if (!this.awaiting) return;
    this.awaiting = false;
    const restart = this.o.mark.resumed(seen.stamp, seen.origin);
    if (restart) out.push(restart);
    const gap = this.coverage.resumed(seen.stamp, seen.origin);
    if (gap) out.push(gap);
  }

  protected gapSince(
    reason: GapReason,
    detail: string,
    since: FrameTime | null,
    seen: AdmittedFrame,
    out: BusRecord[],
    missed: number | null = null,
  ): void {
    const gap = this.coverage.gapUntil(reason, detail, WHOLE_STREAM, since, seen.stamp, seen.origin, missed);
    if (gap) out.push(gap);
  }

  protected quality(problem: QualityProblem, detail: string, seen: AdmittedFrame, frame: Frame): BusRecord {
    return qualityRecord(
      { problem, detail, stream: this.coverage.stream, frameSeq: seen.parsed.seq },
      seen.origin,
      seen.parsed.ts,
      frame.raw,
    );
  }

  /** The frame's data as a payload (micros normalised), or a data-quality record when a micro value is not one. */
  protected payload(data: JsonObject, seen: AdmittedFrame, frame: Frame, out: BusRecord[]): AccountEventPayload | null {
    const problems: string[] = [];
    if (!normaliseMicros(data, problems)) {
      out.push(this.quality('too_deep', `data nested deeper than ${MAX_NESTING} levels`, seen, frame));
      return null;
    }
    if (problems.length === 0) return { ...(data as Unread), account: this.o.account };
    out.push(this.quality('bad_micro_value', problems.join('; '), seen, frame));
    return null;
  }

  protected keyed<K extends 'account_event' | 'portfolio_sync'>(
    kind: K,
    seen: AdmittedFrame,
    venueTime: string | null,
    payload: Payload<K>,
    raw: string | null,
  ): BusRecord<K> {
    return record(kind, { account: this.o.account }, seen.origin, venueTime, payload, raw);
  }

  #onFrame(frame: Frame): void {
    const seen = admitFrame(frame, this.coverage, this.o.counters, this.o.sink);
    if (!seen) return;
    const out: BusRecord[] = [];
    if (seen.missed > 0 && !this.awaiting)
      this.gapSince(
        'frames_missed',
        `${seen.missed} frame numbers skipped before ${seen.parsed.seq}`,
        seen.previous,
        seen,
        out,
        seen.missed,
      );
    this.route(seen, frame, out);
    if (out.length > 0) this.o.sink.write(out);
  }

  #onLost(loss: CoverageLoss): void {
    this.session = null;
    if (loss.reason === 'stopped') return;
    countLoss(this.o.counters, this.coverage.stream);
    this.coverage.lose(LOSS_REASONS[loss.reason], loss.detail, WHOLE_STREAM);
  }
}

const ACCOUNT_CHANNEL = 'account_events';

/**
 * The private account socket (§6.3): order, fill, position, redemption and collateral frames
 * become `account_event` records. What a gap loses here the sync jobs recover from REST (orders,
 * fills, positions), hence recovery `rest_sync`.
 */
export class AccountCapture extends PrivateStream {
  #nextId = 0;

  constructor(o: PrivateStreamOptions) {
    super(o, 'account', 'rest_sync');
  }

  protected opened(session: StreamSession): void {
    session.send({ op: 'subscribe', id: `account-${++this.#nextId}`, channels: [ACCOUNT_CHANNEL] });
  }

  protected route(seen: AdmittedFrame, frame: Frame, out: BusRecord[]): void {
    const { parsed } = seen;
    switch (parsed.type) {
      case 'heartbeat':
      case 'pong':
      case 'unsubscribed':
        return;
      case 'subscribed':
        return this.proven(seen, out);
      case 'sequence_reset':
        return this.gapSince(
          'sequence_reset',
          `sequence_reset: ${JSON.stringify(parsed.data.reason ?? '')}`,
          seen.previous,
          seen,
          out,
        );
      case 'error':
        return this.#onError(seen, frame, out);
      case ACCOUNT_CHANNEL: {
        if (typeof parsed.data.kind !== 'string')
          return void out.push(this.quality('malformed_account_event', 'an account event needs a kind', seen, frame));
        const payload = this.payload(parsed.data, seen, frame, out);
        if (payload !== null) out.push(this.keyed('account_event', seen, parsed.ts, payload, frame.raw));
        return;
      }
      default:
        out.push(this.quality('unknown_frame_type', `frame type ${JSON.stringify(parsed.type)}`, seen, frame));
    }
  }

  #onError(seen: AdmittedFrame, frame: Frame, out: BusRecord[]): void {
    const { data } = seen.parsed;
    const action = typeof data.action === 'string' ? data.action : 'unknown';
    const code =
      typeof (data.failure as JsonObject | undefined)?.code === 'string'
        ? String((data.failure as JsonObject).code)
        : 'unknown';
    out.push(this.quality('venue_error', `${code}, action ${action}`, seen, frame));
    this.o.counters.errorFrames += 1;
    if (action === 'keep') return;
    if (action === 'resubscribe' && this.session) {
      this.coverage.lose(
        'subscription_dropped',
        `venue dropped the subscription (${code})`,
        WHOLE_STREAM,
        seen.previous,
      );
      this.awaiting = true;
      this.session.send({ op: 'subscribe', id: `account-${++this.#nextId}`, channels: [ACCOUNT_CHANNEL] });
      return;
    }
    this.session?.reconnect(`venue error ${code}, action ${action}`);
  }
}

/**
 * The portfolio SSE (§6.4): every `portfolio.sync` is the full positions and summary, so a gap
 * loses only the states in between (recovery `next_full_sync`). Coverage resumes with the first
 * sync of a connection. Positions are published as changes between anchors (position-chain.ts).
 */
export class PortfolioCapture extends PrivateStream {
  readonly #chain = new PositionChain();

  constructor(o: PrivateStreamOptions) {
    super(o, 'portfolio', 'next_full_sync');
  }

  protected opened(): void {
    // Nothing to send: the stream starts with a sync, which anchors a new chain of positions.
    this.#chain.reset();
  }

  protected route(seen: AdmittedFrame, frame: Frame, out: BusRecord[]): void {
    const { parsed } = seen;
    if (parsed.type !== 'portfolio.sync')
      return void out.push(
        this.quality('unknown_frame_type', `event type ${JSON.stringify(parsed.type)}`, seen, frame),
      );
    this.proven(seen, out);
    const positions = parsed.data.positions as JsonObject | undefined;
    if (typeof positions !== 'object' || positions === null || Array.isArray(positions))
      return void out.push(
        this.quality(
          'malformed_portfolio_sync',
          'a portfolio sync needs positions (the positions response, an object)',
          seen,
          frame,
        ),
      );
    const payload = this.payload(parsed.data, seen, frame, out);
    const asOf = typeof positions.as_of === 'string' ? positions.as_of : null;
    // Events missed: the changes of the next one would be against a state we never saw.
    if (seen.missed > 0) this.#chain.reset();
    if (payload === null) return void this.#chain.reset();
    // `positions` is an object (checked above): the payload is a portfolio sync.
    const shaped = this.#chain.shape(payload as JsonObject, frame.raw, seen.origin.receivedAtUs);
    out.push(this.keyed('portfolio_sync', seen, asOf, shaped.payload as PortfolioSyncPayload, shaped.raw));
  }
}
