import type { VenueClient } from '../api/client.ts';
import type { Bus } from '../bus/bus.ts';
import type { BusRecord } from '../bus/record.ts';
import { TOPICS, type TopicCatalogue } from '../bus/topics.ts';
import { ConnectionBudgets } from '../streams/connection-budget.ts';
import { SseTransport } from '../streams/sse-transport.ts';
import { WebSocketTransport } from '../streams/websocket-transport.ts';
import { createLogger, type Logger } from '../util/log.ts';
import type { Secret } from '../util/secret.ts';
import type { Shard } from './catalogue.ts';
import { MemoryCoverageStore, type CoverageStore } from './coverage-store.ts';
import { MarketCapture } from './market-capture.ts';
import { AccountCapture, PortfolioCapture } from './private-streams.ts';
import { RecordPublisher } from './publisher.ts';
import { newCounters, RateMeter, type CaptureCounters } from './stats.ts';
import { StreamMark } from './stream-mark.ts';
import { type Clock, systemClock } from '../util/clock.ts';

export const STREAM_PATHS = { market: '/trade/v1/market-stream', account: '/trade/v1/account-stream', portfolio: '/trade/v1/portfolio/stream' } as const;

export interface CaptureOptions {
  client: VenueClient;
  bus: Bus;
  /** The venue's base URL (http or https); the sockets use ws or wss on the same host. */
  baseUrl: string;
  /** Personal access token: REST re-seeds of books, and the account and portfolio streams. */
  token?: Secret | null;
  topics?: TopicCatalogue;
  /** Label of the account the token belongs to (key of its records). */
  account?: string;
  /** Which streams to capture; account and portfolio default to on when there is a token. */
  streams?: { market?: boolean; account?: boolean; portfolio?: boolean };
  tokensPerConnection?: number;
  /** No frame for this long means the view is untrusted (heartbeats come about every 10 s). */
  silenceMs?: number;
  /** Capture a share of the events (`--shard i/n`). */
  shard?: Shard;
  catalogueRefreshMs?: number;
  anchorEveryMs?: number;
  dropGraceMs?: number;
  reseedConcurrency?: number;
  /** Where the last covered instant of each stream is kept between runs (default: in memory only). */
  coverageStore?: CoverageStore;
  markEveryMs?: number;
  /** More records than this waiting for the bus pause the streams until a fifth of it is left. */
  maxQueuedRecords?: number;
  clock?: Clock;
  /** Attempt budgets per endpoint (§8.5), shared with any other stream of the process. */
  budgets?: ConnectionBudgets;
  log?: Logger;
  /**
   * Aborted: stop waiting for the venue's catalogue (a stop asked for during start-up). The
   * handle still comes back, with nothing subscribed; `stop()` it as usual.
   */
  signal?: AbortSignal;
}

export const CAPTURE_DEFAULTS = {
  tokensPerConnection: 200,
  silenceMs: 30_000,
  catalogueRefreshMs: 60_000,
  anchorEveryMs: 15 * 60_000,
  dropGraceMs: 2 * 60_000,
  reseedConcurrency: 4,
  markEveryMs: 2_000,
  maxQueuedRecords: 50_000,
};

export interface CaptureStats {
  frames: number;
  framesPerSecond: number;
  /** Records durably published, in all and per kind. */
  records: number;
  recordsByKind: Record<string, number>;
  /** Records handed to the bus and not yet durable. */
  queuedRecords: number;
  /** Connections lost (closed, silent, dropped), our own stops excepted. */
  reconnects: number;
  /** `frames` and `reconnects` per stream (market, account, portfolio). */
  framesByStream: Record<string, number>;
  reconnectsByStream: Record<string, number>;
  /** Scopes not covered right now. */
  openGaps: number;
  gapsRecorded: number;
  /** Refused stream connection attempts (429) and REST 429s seen by re-seeds. */
  refused429: number;
  rest429: number;
  duplicatesDropped: number;
  /** Book frames older (by the venue's book sequence) than the ladder already held: skipped, the ladder being newer. */
  staleBookFrames: number;
  dataQualityRecords: number;
  marketConnections: number;
  subscribedTokens: number;
  reseedsPending: number;
  reseeds: number;
  counters: CaptureCounters;
}

export interface CaptureHandle {
  /** Closes every stream, publishes what is queued, saves the coverage marks. */
  stop(): Promise<void>;
  stats(): CaptureStats;
  /** Resolves when every record produced so far is durable on the bus. */
  drain(): Promise<void>;
  readonly market: MarketCapture | null;
}

function socketUrl(baseUrl: string, path: string): string {
  const url = new URL(path, baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** Starts capturing the venue's streams into the bus. Resolves once the catalogue is read and the sockets are opening. */
export async function startCapture(options: CaptureOptions): Promise<CaptureHandle> {
  const o = { ...CAPTURE_DEFAULTS, ...options };
  const clock = o.clock ?? systemClock;
  const log = o.log ?? createLogger('capture');
  const token = o.token ?? null;
  const store = o.coverageStore ?? new MemoryCoverageStore();
  const budgets = o.budgets ?? new ConnectionBudgets(undefined, clock);
  const counters = newCounters();
  const streams: Array<{ pause(): void; resume(): void }> = [];
  const pressure = (slowDown: boolean): void => {
    for (const s of streams) if (slowDown) s.pause();
    else s.resume();
  };
  const publisher = new RecordPublisher(o.bus, o.topics ?? TOPICS, clock, log, undefined, pressure, o.maxQueuedRecords, Math.floor(o.maxQueuedRecords / 5));
  const publish = (records: BusRecord[]): void => {
    for (const r of records) {
      if (r.kind === 'capture_gap') counters.gaps += 1;
      else if (r.kind === 'data_quality') counters.qualityRecords += 1;
    }
    publisher.push(records);
  };
  const suffix = o.shard && o.shard.count > 1 ? `:${o.shard.index}/${o.shard.count}` : '';
  const wanted = { market: true, account: token !== null, portfolio: token !== null, ...o.streams };
  const mark = (stream: string, recovery: ConstructorParameters<typeof StreamMark>[2]): StreamMark => new StreamMark(store, stream, recovery, log, `${stream}${suffix}`);
  const common = { clock, silenceMs: o.silenceMs, counters, publish, log };

  const marks: Array<{ mark: StreamMark; through: () => bigint | null }> = [];
  let market: MarketCapture | null = null;
  const privates: Array<AccountCapture | PortfolioCapture> = [];
  if (wanted.market) {
    const m = mark('market', 'books_reseeded');
    market = new MarketCapture({
      ...common,
      client: o.client,
      url: socketUrl(o.baseUrl, STREAM_PATHS.market),
      token,
      budget: budgets.for(STREAM_PATHS.market),
      mark: m,
      tokensPerConnection: o.tokensPerConnection,
      shard: o.shard,
      catalogueRefreshMs: o.catalogueRefreshMs,
      anchorEveryMs: o.anchorEveryMs,
      dropGraceMs: o.dropGraceMs,
      reseedConcurrency: o.reseedConcurrency,
    });
    const captured = market;
    marks.push({ mark: m, through: () => captured.coveredThroughUs() });
  }
  // The private streams are one per account: a shard other than the first leaves them to it.
  const firstShard = !o.shard || o.shard.index === 0;
  const account = o.account ?? 'default';
  if (wanted.account && token && firstShard) {
    const m = mark('account', 'rest_sync');
    const transport = new WebSocketTransport({ url: socketUrl(o.baseUrl, STREAM_PATHS.account), token });
    const capture = new AccountCapture({ ...common, transport, budget: budgets.for(STREAM_PATHS.account), mark: m, account });
    privates.push(capture);
    marks.push({ mark: m, through: () => capture.coveredThroughUs() });
  }
  if (wanted.portfolio && token && firstShard) {
    const m = mark('portfolio', 'next_full_sync');
    const transport = new SseTransport({ url: new URL(STREAM_PATHS.portfolio, o.baseUrl).toString(), token });
    const capture = new PortfolioCapture({ ...common, transport, budget: budgets.for(STREAM_PATHS.portfolio), mark: m, account });
    privates.push(capture);
    marks.push({ mark: m, through: () => capture.coveredThroughUs() });
  }

  if (market) streams.push(market);
  streams.push(...privates);
  await Promise.all(marks.map((m) => m.mark.load()));
  // The catalogue read retries until the venue answers: a stop asked for meanwhile ends the wait.
  const stopWaiting = (): void => void market?.stop();
  o.signal?.addEventListener('abort', stopWaiting, { once: true });
  if (o.signal?.aborted) stopWaiting();
  await market?.start();
  o.signal?.removeEventListener('abort', stopWaiting);
  if (!o.signal?.aborted) for (const p of privates) p.start();

  const saveMarks = async (): Promise<void> => {
    // Book updates held for batching are not handed to the publisher yet: the mark waits for them too.
    const held = market?.heldSinceUs() ?? null;
    const published = publisher.durableThroughUs();
    const durable = held !== null && held < published ? held : published;
    await Promise.all(
      marks.map(({ mark: m, through }) => {
        const covered = through();
        return m.save(covered === null ? null : covered < durable ? covered : durable);
      }),
    );
  };
  const stopping = new AbortController();
  const markLoop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        await clock.sleep(o.markEveryMs, stopping.signal);
      } catch {
        return;
      }
      await saveMarks();
    }
  })();

  const meter = new RateMeter();
  return {
    market,
    async stop() {
      stopping.abort(new Error('capture stopping'));
      await Promise.all([market?.stop(), ...privates.map((p) => p.stop())]);
      await markLoop;
      market?.flush();
      await publisher.drain();
      await saveMarks();
      publisher.stop();
    },
    drain: () => {
      market?.flush();
      return publisher.drain();
    },
    stats() {
      const connections = market?.connections ?? [];
      return {
        frames: counters.frames,
        framesPerSecond: meter.sample(clock.now(), counters.frames),
        records: publisher.published,
        recordsByKind: Object.fromEntries(publisher.byKind),
        queuedRecords: publisher.queued,
        reconnects: counters.losses,
        framesByStream: { ...counters.framesByStream },
        reconnectsByStream: { ...counters.lossesByStream },
        openGaps: (market?.openGaps ?? 0) + privates.filter((p) => p.coverage.everCovered && !p.covered).length,
        gapsRecorded: counters.gaps,
        refused429: counters.refused429,
        rest429: market?.rest429 ?? 0,
        duplicatesDropped: counters.duplicates,
        staleBookFrames: market?.books.staleFrames ?? 0,
        dataQualityRecords: counters.qualityRecords,
        marketConnections: connections.filter((c) => c.open).length,
        subscribedTokens: market?.subscribedTokens ?? 0,
        reseedsPending: market?.reseedsPending ?? 0,
        reseeds: counters.reseeds,
        counters: structuredClone(counters),
      };
    },
  };
}
