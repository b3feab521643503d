import { TOPICS } from '../bus/topics.ts';
import type { BusRecord } from '../records/index.ts';
import { ConnectionBudgets } from '../streams/connection-budget.ts';
import { SseTransport } from '../streams/sse-transport.ts';
import { WebSocketTransport } from '../streams/websocket-transport.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { createLogger, type Logger } from '../util/log.ts';
import { CoverageMarks, MemoryCoverageStore } from './coverage/index.ts';
import { MarketCapture } from './market/index.ts';
import { PRICE_FEEDS, PriceCapture } from './prices/index.ts';
import { AccountCapture, PortfolioCapture } from './account/index.ts';
import { RecordPublisher } from './publisher.ts';
import { newCounters, RateMeter, type RecordSink, type CaptureCounters } from './frames/index.ts';
import {
  CAPTURE_DEFAULTS,
  STREAM_PATHS,
  type CaptureHandle,
  type CaptureOptions,
  type CaptureStats,
} from './capture-options.ts';

function socketUrl(baseUrl: string, path: string): string {
  const url = new URL(path, baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

type Settings = typeof CAPTURE_DEFAULTS & CaptureOptions;

/**
 * A capture: the streams (market, account, portfolio, the price feeds), the record sink they write to (counting
 * gaps and findings on the way to the publisher), and the coverage marks. Built by `start`, which
 * reads the previous run's marks and the catalogue before the streams open.
 */
export class Capture implements CaptureHandle, RecordSink {
  readonly market: MarketCapture | null = null;
  readonly #privates: Array<AccountCapture | PortfolioCapture | PriceCapture> = [];
  readonly #publisher: RecordPublisher;
  readonly #marks: CoverageMarks;
  readonly #counters: CaptureCounters = newCounters();
  readonly #meter = new RateMeter();
  readonly #clock: Clock;
  readonly #log: Logger;

  static async start(options: CaptureOptions): Promise<Capture> {
    const capture = new Capture({ ...CAPTURE_DEFAULTS, ...options });
    await capture.#begin(options.signal);
    return capture;
  }

  private constructor(o: Settings) {
    this.#clock = o.clock ?? systemClock;
    this.#log = o.log ?? createLogger('capture');
    const clock = this.#clock;
    const token = o.token ?? null;
    const budgets = o.budgets ?? new ConnectionBudgets(undefined, clock);
    this.#publisher = new RecordPublisher({
      bus: o.bus,
      topics: o.topics ?? TOPICS,
      clock,
      log: this.#log,
      onPressure: (slowDown) => this.#pressure(slowDown),
      highWater: o.maxQueuedRecords,
      lowWater: Math.floor(o.maxQueuedRecords / 5),
    });
    this.#marks = new CoverageMarks({
      store: o.coverageStore ?? new MemoryCoverageStore(),
      clock,
      everyMs: o.markEveryMs,
      keySuffix: o.shard && o.shard.count > 1 ? `:${o.shard.index}/${o.shard.count}` : '',
      handedOverThroughUs: () => this.#handedOverThroughUs(),
      log: this.#log,
    });
    const wanted = {
      market: true,
      account: token !== null,
      portfolio: token !== null,
      prices: true,
      oraclePro: true,
      ...o.streams,
    };
    const common = { clock, silenceMs: o.silenceMs, counters: this.#counters, sink: this, log: this.#log };
    if (wanted.market) {
      const market: MarketCapture = new MarketCapture({
        ...common,
        client: o.client,
        url: socketUrl(o.baseUrl, STREAM_PATHS.market),
        token,
        budget: budgets.for(STREAM_PATHS.market),
        mark: this.#marks.add('market', 'books_reseeded', () => market.coveredThroughUs()),
        tokensPerConnection: o.tokensPerConnection,
        shard: o.shard,
        catalogueRefreshMs: o.catalogueRefreshMs,
        anchorEveryMs: o.anchorEveryMs,
        dropGraceMs: o.dropGraceMs,
        reseedConcurrency: o.reseedConcurrency,
      });
      this.market = market;
    }
    // The private streams are one per account: a shard other than the first leaves them to it.
    const firstShard = !o.shard || o.shard.index === 0;
    const account = o.account ?? 'default';
    if (wanted.account && token && firstShard) {
      const transport = new WebSocketTransport({ url: socketUrl(o.baseUrl, STREAM_PATHS.account), token });
      const capture: AccountCapture = new AccountCapture({
        ...common,
        transport,
        budget: budgets.for(STREAM_PATHS.account),
        mark: this.#marks.add('account', 'rest_sync', () => capture.coveredThroughUs()),
        account,
      });
      this.#privates.push(capture);
    }
    if (wanted.portfolio && token && firstShard) {
      const transport = new SseTransport({ url: new URL(STREAM_PATHS.portfolio, o.baseUrl).toString(), token });
      const capture: PortfolioCapture = new PortfolioCapture({
        ...common,
        transport,
        budget: budgets.for(STREAM_PATHS.portfolio),
        mark: this.#marks.add('portfolio', 'next_full_sync', () => capture.coveredThroughUs()),
        account,
      });
      this.#privates.push(capture);
    }
    // The price feeds are the venue's, not an account's: one capture (the first shard) takes them.
    for (const feed of PRICE_FEEDS) {
      if (!firstShard || !(feed.stream === 'prices' ? wanted.prices : wanted.oraclePro)) continue;
      const { stream, path } = feed;
      const capture: PriceCapture = new PriceCapture({
        ...common,
        feed,
        baseUrl: o.baseUrl,
        symbols: o.priceSymbols,
        budget: budgets.for(path),
        mark: this.#marks.add(stream, 'none', () => capture.coveredThroughUs()),
        notOfferedRetryMs: o.notOfferedRetryMs,
      });
      this.#privates.push(capture);
    }
  }

  async #begin(signal: AbortSignal | undefined): Promise<void> {
    await this.#marks.load();
    // The catalogue read retries until the venue answers: a stop asked for meanwhile ends the wait.
    const stopWaiting = (): void => void this.market?.stop();
    signal?.addEventListener('abort', stopWaiting, { once: true });
    if (signal?.aborted) stopWaiting();
    await this.market?.start();
    signal?.removeEventListener('abort', stopWaiting);
    if (!signal?.aborted) for (const p of this.#privates) p.start();
    this.#marks.start();
  }

  /** Every record of every stream: counted, then handed to the publisher. */
  write(records: readonly BusRecord[]): void {
    for (const r of records) {
      if (r.kind === 'capture_gap') this.#counters.gaps += 1;
      else if (r.kind === 'data_quality') this.#counters.qualityRecords += 1;
    }
    this.#publisher.write(records);
  }

  /** Back-pressure from the publisher: every stream stops reading, or reads again. */
  #pressure(slowDown: boolean): void {
    for (const s of [...(this.market ? [this.market] : []), ...this.#privates]) {
      if (slowDown) s.pause();
      else s.resume();
    }
  }

  /** Book updates held for batching are not handed to the publisher yet: the marks wait for them too. */
  #handedOverThroughUs(): bigint {
    const held = this.market?.heldSinceUs() ?? null;
    const published = this.#publisher.durableThroughUs();
    return held !== null && held < published ? held : published;
  }

  async stop(): Promise<void> {
    const marks = this.#marks.stop();
    await Promise.all([this.market?.stop(), ...this.#privates.map((p) => p.stop())]);
    await marks;
    this.market?.flush();
    await this.#publisher.drain();
    await this.#marks.save();
    this.#publisher.stop();
  }

  drain(): Promise<void> {
    this.market?.flush();
    return this.#publisher.drain();
  }

  saveMarks(): Promise<void> {
    return this.#marks.save();
  }

  stats(): CaptureStats {
    const market = this.market;
    const counters = this.#counters;
    const publisher = this.#publisher;
    const connections = market?.connections ?? [];
    return {
      frames: counters.frames,
      framesPerSecond: this.#meter.sample(this.#clock.now(), counters.frames),
      records: publisher.published,
      recordsByKind: Object.fromEntries(publisher.byKind),
      queuedRecords: publisher.queued,
      reconnects: counters.losses,
      framesByStream: { ...counters.framesByStream },
      reconnectsByStream: { ...counters.lossesByStream },
      openGaps: (market?.openGaps ?? 0) + this.#privates.filter((p) => p.coverage.everCovered && !p.covered).length,
      unavailableStreams: this.#privates
        .filter((p) => p instanceof PriceCapture && p.unavailable)
        .map((p) => p.coverage.stream),
      unavailableSinceMs: Object.fromEntries(
        this.#privates.flatMap((p) =>
          p instanceof PriceCapture && p.unavailableSinceMs !== null ? [[p.coverage.stream, p.unavailableSinceMs]] : [],
        ),
      ),
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
  }
}
