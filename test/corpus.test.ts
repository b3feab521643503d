import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { Availability } from '../src/api/availability.ts';
import { VenueClient } from '../src/api/client.ts';
import { ExchangeUnavailableError, ResponseShapeError, TransportError, VenueError } from '../src/api/errors.ts';
import { CursorLoopError } from '../src/api/paging.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import type { Bus, Delivery } from '../src/bus/bus.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { decodeRecord, type ReceivedRecord } from '../src/bus/record.ts';
import { createTopicCatalogue, type TopicCatalogue } from '../src/bus/topics.ts';
import { TokenBooks } from '../src/capture/books/token-books.ts';
import { MemoryCoverageStore } from '../src/capture/coverage/store.ts';
import { isFrameProblem, parseFrame } from '../src/capture/frames/frame.ts';
import { AccountCapture, PortfolioCapture } from '../src/capture/account/private-streams.ts';
import { RecordPublisher } from '../src/capture/publisher.ts';
import { newCounters, type CaptureCounters } from '../src/capture/frames/counters.ts';
import { StreamMark } from '../src/capture/coverage/stream-mark.ts';
import { ConnectionBudget } from '../src/streams/connection-budget.ts';
import type { MessageSink, OpenConnection, Transport } from '../src/streams/transport.ts';
import { createLogger } from '../src/util/log.ts';
import { Secret } from '../src/util/secret.ts';
import {
  accountInputs,
  busInputs,
  marketInputs,
  portfolioInputs,
  restInputs,
  type BusInput,
  type CorpusInput,
  type Family,
  type RestInput,
  type StreamInput,
} from './corpus/inputs.ts';
import { busWithSubscribe } from './bus-contract.ts';
import { marketConnection } from './capture-helpers.ts';
import { loadAll } from './load-fixtures.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';
import { type Clock, ManualClock, systemClock } from '../src/util/clock.ts';

/**
 * The hostile-input corpus (test/corpus/) through the real code paths: market frames into a
 * market connection's frame path, account frames and portfolio events through the reconnecting
 * stream into the private-stream captures, everything capture publishes through the real
 * publisher onto an embedded bus and the loaders into chDB; REST bodies from a local HTTP server
 * through the venue client; bus records (as Kafka would deliver their bytes) through the loaders.
 * Each input must end as what its corpus line says — a stored record, a data-quality row, a dead
 * letter with a reason, a counted repeat, or a typed error — and never crash, hang or vanish.
 */

const log = createLogger('corpus.test', 'silent');
const PER_INPUT_MS = 60_000;

const market = marketInputs();
const account = accountInputs();
const portfolio = portfolioInputs();
const rest = restInputs();
const bus = busInputs();
const streamInputs: StreamInput[] = [...market, ...account, ...portfolio];

/** What each input came to, for the table printed at the end. */
const outcomes = new Map<CorpusInput, string>();

// ---- outcome checks ------------------------------------------------------------------------

/** An outcome matches its expectation when every part the expectation names is in it. */
function matches(expected: string, outcome: string): boolean {
  const [kind, ...rest] = expected.split(':');
  const [actualKind, ...details] = outcome.split(':');
  if (kind !== actualKind) return false;
  if (kind === 'typed_error') return rest.every((part, i) => details[i] === part);
  return rest.length === 0 || rest.every((part) => details.join(':').split('+').includes(part));
}

function mismatches(inputs: readonly CorpusInput[]): string[] {
  return inputs
    .filter((i) => !matches(i.expect, outcomes.get(i) ?? 'none'))
    .map((i) => `${i.family}/${i.name}: expected ${i.expect}, got ${outcomes.get(i) ?? 'none'}`);
}

// ---- capture: frames in, records onto the bus ------------------------------------------------

const CAPTURE_PREFIX = 'corpus';
/** Each input's frame is received at its own instant, so its rows are found again by `_received_at`. */
const BASE_US = BigInt(Date.UTC(2026, 2, 3, 9)) * 1000n;
const instantOf = (index: number): bigint => BASE_US + BigInt(index) * 1000n;

/** What capture did with a frame besides publishing records. */
interface FrameNote {
  emitted: number;
  note: 'duplicate' | 'stale' | null;
  crash?: string;
}
const notes = new Map<StreamInput, FrameNote>();

/** A wall clock set by the test; waits only end when aborted (no watchdog fires mid-input). */
class StillClock implements Clock {
  nowUs = BASE_US;
  now(): number {
    return Number(this.nowUs / 1000n);
  }
  epochMicros(): bigint {
    return this.nowUs;
  }
  sleep(_ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((_, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
}

/** One connection handed to whoever opens it; the test pushes the venue's messages through its sink. */
class HandTransport implements Transport {
  readonly name = '/corpus';
  sink: MessageSink | null = null;
  readonly #opened: Promise<void>;
  #open!: () => void;
  constructor() {
    this.#opened = new Promise((resolve) => (this.#open = resolve));
  }
  async open(sink: MessageSink): Promise<OpenConnection> {
    this.sink = sink;
    let end!: (value: { detail: string }) => void;
    const ended = new Promise<{ detail: string }>((resolve) => (end = resolve));
    this.#open();
    return {
      ended,
      send: () => undefined,
      close: (detail) => end({ detail }),
      pause: () => undefined,
      resume: () => undefined,
    };
  }
  /** Resolves once the stream opened and its open handler ran. */
  async opened(): Promise<void> {
    await this.#opened;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Feeds one input (after its set-up frames) to a fresh market connection. */
function feedMarket(
  input: StreamInput,
  index: number,
  publish: (records: readonly ReceivedRecord[]) => void,
): FrameNote {
  const counters = newCounters();
  const clock = new StillClock();
  const books = new TokenBooks({ sequenceBase: BigInt(index + 1) * 1_000_000n });
  let emitted = 0;
  const connection = marketConnection(
    (records) => {
      emitted += records.length;
      publish(records);
    },
    counters,
    clock,
    books,
  );
  const at = instantOf(index);
  input.before.forEach((raw, i) =>
    connection.receive({ connectionId: `market-${index}`, frameNo: i, receivedAtUs: at - 500n + BigInt(i), raw }),
  );
  emitted = 0;
  const duplicates = counters.duplicates;
  const stale = books.staleFrames;
  try {
    connection.receive({
      connectionId: `market-${index}`,
      frameNo: input.before.length,
      receivedAtUs: at,
      raw: input.raw,
    });
  } catch (err) {
    return { emitted, note: null, crash: String(err) };
  }
  const note = counters.duplicates > duplicates ? 'duplicate' : books.staleFrames > stale ? 'stale' : null;
  return { emitted, note };
}

/** A started account or portfolio capture on a connection the test hands messages through. */
async function privateCapture(
  family: 'account' | 'portfolio',
  clock: StillClock,
  counters: CaptureCounters,
  publish: (records: readonly ReceivedRecord[]) => void,
) {
  const transport = new HandTransport();
  const options = {
    transport,
    budget: new ConnectionBudget(1_000, clock),
    clock,
    silenceMs: 30_000,
    counters,
    sink: { write: publish },
    mark: new StreamMark(new MemoryCoverageStore(), family, 'none'),
    account: 'acct-1',
    log,
  };
  const capture = family === 'account' ? new AccountCapture(options) : new PortfolioCapture(options);
  capture.start();
  await transport.opened();
  return { capture, transport };
}

/** Feeds one input (after its set-up frames) through a reconnecting stream into a fresh account or portfolio capture.
 */
async function feedPrivate(
  input: StreamInput,
  index: number,
  publish: (records: readonly ReceivedRecord[]) => void,
): Promise<FrameNote> {
  const counters = newCounters();
  const clock = new StillClock();
  let emitted = 0;
  const { capture, transport } = await privateCapture(
    input.family === 'account' ? 'account' : 'portfolio',
    clock,
    counters,
    (records) => {
      emitted += records.length;
      publish(records);
    },
  );
  const at = instantOf(index);
  const sink = transport.sink!;
  input.before.forEach((raw, i) => {
    clock.nowUs = at - 500n + BigInt(i);
    sink.message(raw);
  });
  emitted = 0;
  const duplicates = counters.duplicates;
  clock.nowUs = at;
  let crash: string | undefined;
  try {
    sink.message(input.raw);
  } catch (err) {
    crash = String(err);
  }
  await capture.stop();
  return { emitted, note: counters.duplicates > duplicates ? 'duplicate' : null, crash };
}

const CONTROL_TYPES = new Set(['heartbeat', 'pong', 'subscribed', 'unsubscribed', 'sequence_reset']);

/** What a frame that reached no table came to: counted, a control frame, an unchanged book, or nothing (a silent drop).
 */
function unstoredOutcome(input: StreamInput, note: FrameNote): string {
  if (note.note) return `counted:${note.note}`;
  const parsed = parseFrame(input.raw);
  if (note.emitted === 0 && !isFrameProblem(parsed)) {
    if (CONTROL_TYPES.has(parsed.type)) return 'control';
    if (parsed.type === 'orderbook') return 'unchanged';
  }
  return note.emitted > 0 ? `lost:${note.emitted} records published, none stored` : 'silent_drop';
}

// ---- the warehouse ---------------------------------------------------------------------------

let w: TestWarehouse;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
  printTable();
});

/** Tables of loaded rows that have `column` (besides the bus provenance every loaded row has). */
async function tablesWith(column: string): Promise<string[]> {
  const found = await rows<{ table: string }>(
    w.warehouse.client,
    `SELECT table FROM system.columns WHERE database = 'tapehouse' GROUP BY table HAVING countIf(name = '${column}') > 0 AND countIf(name = '_topic') > 0 ORDER BY table`,
  );
  return found.map((r) => r.table);
}

// ---- REST ------------------------------------------------------------------------------------

let server: Server;
let serving: RestInput | null = null;
let baseUrl = '';

function serve(input: RestInput, res: import('node:http').ServerResponse): void {
  const body = Buffer.from(input.body, 'utf8');
  if (input.behaviour === 'stall-headers') return;
  if (input.behaviour === 'reset-mid-body' || input.behaviour === 'stall-body') {
    res.writeHead(input.status, { ...input.headers, 'content-length': String(body.length + 100) });
    res.write(body.subarray(0, Math.max(1, body.length >> 1)));
    if (input.behaviour === 'reset-mid-body') res.socket?.destroy();
    return;
  }
  res.writeHead(input.status, input.headers);
  res.end(input.status === 304 ? undefined : body);
}

/** A wait of more than an hour inside one read is a hang, whatever virtual time makes of it here. */
function longestWait(clock: ManualClock): string | null {
  const longest = Math.max(0, ...clock.sleeps);
  return longest > 3_600_000 ? `hang:asked to wait ${longest} ms` : null;
}

async function callRest(input: RestInput): Promise<string> {
  const clock = new ManualClock();
  const client = new VenueClient({
    baseUrl,
    token: new Secret('pat_corpus'),
    clock,
    random: () => 0.5,
    availability: new Availability(),
    limiter: new RateLimiter({ clock, ipLimits: new IpLimits() }),
    // Short waits and two sends, so the inputs that stall the wire end in seconds.
    timeouts: { connectMs: 2_000, headersMs: 1_000, bodyMs: 1_000 },
    retry: { maxAttempts: 2 },
    logger: log,
  });
  serving = input;
  let outcome: string;
  try {
    outcome = await read(client, input.endpoint);
  } catch (err) {
    outcome = typedError(err);
  }
  // The same client goes on reading: a good answer after the hostile one is parsed.
  serving = GOOD_ORDER;
  const after = await read(client, 'order').catch((err: unknown) => `broken_after:${String(err)}`);
  serving = null;
  await client.close();
  return longestWait(clock) ?? (after === 'accepted' ? outcome : after);
}

const GOOD_ORDER: RestInput = {
  family: 'rest',
  name: 'good-order',
  about: 'a well-formed order',
  expect: 'accepted',
  endpoint: 'order',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ internal_id: 'o-1', status: 'LIVE', price_micro: '540000' }),
};

async function read(client: VenueClient, endpoint: RestInput['endpoint']): Promise<string> {
  switch (endpoint) {
    case 'orderbook':
      await client.orders.orderbook('tok-1');
      break;
    case 'order':
      await client.orders.order('o-1');
      break;
    case 'orders': {
      let pages = 0;
      for await (const page of client.orders.orderPages()) {
        expect(page.raw).toBeDefined();
        if (++pages > 100) return 'hang:paging never ends';
      }
      break;
    }
    case 'pnl':
      await client.portfolio.pnl();
      break;
    case 'summary':
      await client.portfolio.summary();
      break;
  }
  return 'accepted';
}

/** The client's typed errors, with the interface code; anything else is a crash. */
function typedError(err: unknown): string {
  if (err instanceof VenueError) return `typed_error:${err.constructor.name}:${err.code ?? ''}`;
  if (
    err instanceof ResponseShapeError ||
    err instanceof TransportError ||
    err instanceof CursorLoopError ||
    err instanceof ExchangeUnavailableError
  )
    return `typed_error:${err.name}`;
  return `crash:${String(err)}`;
}

// ---- bus records as Kafka delivers bytes -----------------------------------------------------

/**
 * The embedded bus carries records, not bytes; Kafka hands the loaders bytes and the subscription
 * decodes them (kafka-subscription.ts). This bus publishes one placeholder per input and delivers,
 * in its place, what the real decoder makes of the input's bytes — exactly what a Kafka
 * subscription delivers for them.
 */
function bytesBus(inner: EmbeddedBus, wireAt: Map<bigint, string>): Bus {
  return busWithSubscribe(inner, (options) =>
    inner.subscribe({
      ...options,
      onBatch: (batch) =>
        options.onBatch({
          ...batch,
          messages: batch.messages.map((m): Delivery => {
            const wire = wireAt.get(m.offset);
            if (wire === undefined) return m;
            const decoded = decodeRecord(Buffer.from(wire, 'utf8'));
            return decoded.ok
              ? { offset: m.offset, ok: true, record: decoded.record }
              : { offset: m.offset, ok: false, reason: decoded.reason, bytes: Buffer.from(wire, 'utf8') };
          }),
        }),
    }),
  );
}

// ---- the table -------------------------------------------------------------------------------

function printTable(): void {
  const families: Family[] = ['market', 'account', 'portfolio', 'rest', 'bus'];
  const kinds = [
    'stored',
    'flagged',
    'rejected',
    'dead_letter',
    'counted',
    'control',
    'unchanged',
    'accepted',
    'typed_error',
  ];
  const counts = new Map<string, number>();
  for (const [input, outcome] of outcomes) {
    const kind = kinds.includes(outcome.split(':')[0]!) ? outcome.split(':')[0]! : 'FAILED';
    counts.set(`${input.family}|${kind}`, (counts.get(`${input.family}|${kind}`) ?? 0) + 1);
  }
  const columns = [...kinds, 'FAILED'].filter((k) => families.some((f) => counts.has(`${f}|${k}`)));
  const row = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(10) : c.padStart(Math.max(6, columns[i - 1]?.length ?? 5) + 1))).join('');
  const lines = [row(['family', ...columns, 'total'])];
  for (const family of families) {
    const cells = columns.map((k) => counts.get(`${family}|${k}`) ?? 0);
    lines.push(row([family, ...cells.map(String), String(cells.reduce((a, b) => a + b, 0))]));
  }
  const totals = columns.map((k) => families.reduce((n, f) => n + (counts.get(`${f}|${k}`) ?? 0), 0));
  lines.push(row(['all', ...totals.map(String), String(totals.reduce((a, b) => a + b, 0))]));
  console.log(`hostile-input corpus: outcome per family\n${lines.join('\n')}`);
}

// ---- the tests -------------------------------------------------------------------------------

describe('hostile-input corpus', () => {
  it('holds at least 200 inputs, each named, described and with the outcome it must have', () => {
    const all: CorpusInput[] = [...streamInputs, ...rest, ...bus];
    expect(all.length).toBeGreaterThanOrEqual(200);
    const names = all.map((i) => `${i.family}/${i.name}`);
    expect(new Set(names).size).toBe(names.length);
    for (const input of all) {
      expect(input.about.length).toBeGreaterThan(5);
      expect(input.expect).toMatch(
        /^(stored|flagged|rejected|dead_letter|counted|control|unchanged|accepted|typed_error)(:[\w:]+)?$/,
      );
    }
  });

  describe('stream frames, through capture, the bus and the loaders into chDB', () => {
    const catalogue: TopicCatalogue = createTopicCatalogue(CAPTURE_PREFIX);
    const captureBus = new EmbeddedBus({
      topics: catalogue.topics,
      capacity: { records: 1_000_000, bytes: 1024 * 1024 * 1024 },
    });
    const publisher = new RecordPublisher({ bus: captureBus, topics: catalogue, clock: new StillClock(), log });

    it.each(streamInputs.map((input, index) => ({ input, index, label: `${input.family}/${input.name}` })))(
      '$label: no crash, no hang',
      async ({ input, index }) => {
        const note =
          input.family === 'market'
            ? feedMarket(input, index, (r) => publisher.push(r))
            : await feedPrivate(input, index, (r) => publisher.push(r));
        notes.set(input, note);
        expect(note.crash).toBeUndefined();
      },
      PER_INPUT_MS,
    );

    it('every input ends as its corpus line says: stored, flagged, rejected with a reason, dead-lettered, counted or a control frame — none vanishes', async () => {
      await publisher.drain();
      await loadAll({
        bus: captureBus,
        warehouse: w.warehouse,
        group: 'corpus-capture',
        topics: catalogue.topics.map((t) => t.name),
        batch: { maxDelayMs: 20 },
        log,
      });
      const client = w.warehouse.client;
      const dataAt = new Set<string>();
      for (const table of await tablesWith('_received_at')) {
        if (table === 'data_quality') continue;
        const found = await rows<{ us: string }>(
          client,
          `SELECT DISTINCT toString(toUnixTimestamp64Micro(_received_at)) AS us FROM tapehouse.${table} WHERE _topic LIKE '${CAPTURE_PREFIX}.%'`,
        );
        for (const r of found) dataAt.add(r.us);
      }
      const problemsAt = new Map<string, string[]>();
      const quality = await rows<{ us: string; problem: string }>(
        client,
        `SELECT toString(toUnixTimestamp64Micro(_received_at)) AS us, problem FROM tapehouse.data_quality WHERE _topic LIKE '${CAPTURE_PREFIX}.%'`,
      );
      for (const q of quality) problemsAt.set(q.us, [...(problemsAt.get(q.us) ?? []), q.problem]);
      const lettersAt = new Map<string, string[]>();
      const letters = await rows<{ us: string; error_code: string; reason: string }>(
        client,
        `SELECT toString(toUnixTimestamp64Micro(received_at)) AS us, error_code, reason FROM tapehouse.dead_letters WHERE topic LIKE '${CAPTURE_PREFIX}.%'`,
      );
      for (const l of letters) {
        expect(l.reason.length).toBeGreaterThan(0);
        lettersAt.set(l.us, [...(lettersAt.get(l.us) ?? []), l.error_code]);
      }
      streamInputs.forEach((input, index) => {
        const us = instantOf(index).toString();
        const problems = [...new Set(problemsAt.get(us) ?? [])].sort().join('+');
        const dead = lettersAt.get(us);
        let outcome: string;
        if (dead) outcome = `dead_letter:${[...new Set(dead)].join('+')}`;
        else if (dataAt.has(us)) outcome = problems ? `flagged:${problems}` : 'stored';
        else if (problems) outcome = `rejected:${problems}`;
        else outcome = unstoredOutcome(input, notes.get(input) ?? { emitted: 0, note: null });
        outcomes.set(input, outcome);
      });
      expect(mismatches(streamInputs)).toEqual([]);
      await captureBus.close();
    }, 120_000);

    it('a market connection that took every hostile frame in a row still records the next good trade', () => {
      const counters = newCounters();
      const published: ReceivedRecord[] = [];
      const connection = marketConnection(
        (records) => published.push(...records),
        counters,
        new StillClock(),
        new TokenBooks({ sequenceBase: 0n }),
      );
      market.forEach((input, i) => {
        for (const raw of [...input.before, input.raw])
          connection.receive({ connectionId: 'row', frameNo: i, receivedAtUs: BASE_US + BigInt(i), raw });
      });
      published.length = 0;
      const good = JSON.stringify({
        type: 'trades',
        seq: 1_000_000,
        ts: '2026-03-02T09:00:00.000Z',
        data: {
          trade_id: 'after-all',
          token_id: 'tok-1',
          side: 'SELL',
          price_micro: '510000',
          shares_micro: '3000000',
        },
      });
      connection.receive({
        connectionId: 'row',
        frameNo: market.length,
        receivedAtUs: BASE_US + 10_000_000n,
        raw: good,
      });
      expect(published.map((r) => [r.kind, (r.payload as { trade_id?: string }).trade_id])).toEqual([
        ['trade', 'after-all'],
      ]);
    });
  });

  it(
    'a market frame larger than the socket takes (16 MiB) closes the connection: a capture gap says so, and capture reconnects and records again',
    async () => {
      const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
      await new Promise((resolve) => server.once('listening', resolve));
      let connections = 0;
      server.on('connection', (socket) => {
        const n = ++connections;
        let seq = 0;
        const send = (frame: object | string) =>
          socket.send(
            typeof frame === 'string' ? frame : JSON.stringify({ ...frame, seq: ++seq, ts: new Date().toISOString() }),
          );
        socket.on('message', (data: Buffer) => {
          const request = JSON.parse(data.toString()) as { op: string; id: string; channels: string[] };
          if (request.op !== 'subscribe') return;
          send({ type: 'subscribed', data: { id: request.id } });
          // Once both subscriptions (books, then status) are acknowledged, the connection covers its subjects.
          if (!request.channels.includes('market_status')) return;
          send({
            type: 'trades',
            data: {
              trade_id: `t-${n}`,
              token_id: 'tok-1',
              side: 'BUY',
              price_micro: '450000',
              shares_micro: '1000000',
            },
          });
          if (n === 1) send(`{"type":"trades","seq":${++seq},"data":{"x":"${'y'.repeat(17 * 1024 * 1024)}"}}`);
        });
      });
      const published: ReceivedRecord[] = [];
      const books = new TokenBooks({ sequenceBase: 0n });
      const connection = marketConnection(
        (records) => published.push(...records),
        newCounters(),
        systemClock,
        books,
        `ws://127.0.0.1:${(server.address() as AddressInfo).port}/trade/v1/market-stream`,
      );
      connection.start();
      while (!published.some((r) => r.kind === 'trade' && (r.payload as { trade_id?: string }).trade_id === 't-2'))
        await new Promise((resolve) => setTimeout(resolve, 20));
      await connection.stop();
      server.close();
      const gaps = published
        .filter((r) => r.kind === 'capture_gap')
        .map((r) => r.payload as { reason: string; detail: string });
      expect(gaps.map((g) => g.reason)).toEqual(['disconnected']);
      expect(gaps[0]!.detail).toContain('Max payload size exceeded');
      expect(
        published.filter((r) => r.kind === 'trade').map((r) => (r.payload as { trade_id: string }).trade_id),
      ).toEqual(['t-1', 't-2']);
    },
    PER_INPUT_MS,
  );

  it.each([
    {
      family: 'account' as const,
      inputs: account,
      good: {
        type: 'account_events',
        seq: 1_000_000,
        data: { kind: 'order_accepted', order: { internal_id: 'after-all', status: 'LIVE' } },
      },
    },
    {
      family: 'portfolio' as const,
      inputs: portfolio,
      good: {
        type: 'portfolio.sync',
        seq: '1000000',
        stream_id: 's-1',
        positions: { as_of: '2026-03-02T09:00:00.000Z', positions: [] },
      },
    },
  ])(
    'a $family capture that took every hostile frame in a row still records the next good one',
    async ({ family, inputs, good }) => {
      const published: ReceivedRecord[] = [];
      const { capture, transport } = await privateCapture(family, new StillClock(), newCounters(), (records) =>
        published.push(...records),
      );
      for (const input of inputs) for (const raw of [...input.before, input.raw]) transport.sink!.message(raw);
      published.length = 0;
      transport.sink!.message(JSON.stringify(good));
      await capture.stop();
      // Its frame number jumped past the hostile ones: a gap is recorded too, and the event itself.
      expect(published.map((r) => r.kind).filter((kind) => kind !== 'capture_gap')).toEqual([
        family === 'account' ? 'account_event' : 'portfolio_sync',
      ]);
    },
  );

  describe('REST bodies, from a local HTTP server through the venue client', () => {
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        if (serving) serve(serving, res);
        else res.writeHead(500).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it.each(rest.map((input) => ({ input, label: input.name })))(
      '$label: a parsed value or a typed error, never a crash or a hang',
      async ({ input }) => {
        const outcome = await callRest(input);
        outcomes.set(input, outcome);
        expect(outcome, input.about).toSatisfy((o: string) => matches(input.expect, o));
      },
      PER_INPUT_MS,
    );
  });

  describe('bus records, through the loaders into chDB', () => {
    it('every record is stored or becomes a dead letter with a reason', async () => {
      const catalogue = createTopicCatalogue('corpusbus');
      const topic = catalogue.topicFor('trade');
      const specs = catalogue.topics.map((t) => (t.name === topic ? { ...t, partitions: 1 } : t));
      const inner = new EmbeddedBus({ topics: specs });
      const wireAt = new Map<bigint, string>();
      const inputAt = new Map<string, BusInput>();
      for (const [offset, input] of bus.entries()) {
        wireAt.set(BigInt(offset), input.wire);
        inputAt.set(String(offset), input);
        const placeholder: ReceivedRecord = {
          kind: 'trade',
          key: 'k',
          venueTime: null,
          receivedAtUs: 1n,
          source: { type: 'stream', connection: 'corpus', frame: offset },
          payload: {},
          raw: null,
        };
        await inner.publish(topic, [placeholder]);
      }
      await loadAll({
        bus: bytesBus(inner, wireAt),
        warehouse: w.warehouse,
        group: 'corpus-bus',
        topics: [topic],
        batch: { maxDelayMs: 20 },
        log,
      });
      const client = w.warehouse.client;
      const stored = new Set<string>();
      for (const table of await tablesWith('_offset')) {
        const found = await rows<{ offset: string }>(
          client,
          `SELECT DISTINCT toString(_offset) AS offset FROM tapehouse.${table} WHERE _topic = '${topic}'`,
        );
        for (const r of found) stored.add(r.offset);
      }
      const letters = await rows<{ offset: string; error_code: string; reason: string }>(
        client,
        `SELECT toString(offset) AS offset, error_code, reason FROM tapehouse.dead_letters WHERE topic = '${topic}'`,
      );
      const letterAt = new Map(letters.map((l) => [l.offset, l]));
      for (const [offset, input] of inputAt) {
        const letter = letterAt.get(offset);
        if (letter) expect(letter.reason.length, input.name).toBeGreaterThan(0);
        outcomes.set(
          input,
          letter ? `dead_letter:${letter.error_code}` : stored.has(offset) ? 'stored' : 'silent_drop',
        );
      }
      expect(mismatches(bus)).toEqual([]);
      await inner.close();
    }, 120_000);
  });
});

describe('public fills on the trades channel (§2.3, §6.2)', () => {
  it('keeps every fill of a trade, drops a frame sent twice, and keeps and reports the same key with other content', () => {
    const published: ReceivedRecord[] = [];
    const counters = newCounters();
    const connection = marketConnection(
      (records) => published.push(...records),
      counters,
      new StillClock(),
      new TokenBooks({ sequenceBase: 1_000_000n }),
    );
    const fill = (seq: number, fillId: string, price: string) =>
      JSON.stringify({
        type: 'trades',
        seq,
        ts: '2025-01-06T12:00:00.100Z',
        data: {
          kind: 'trade',
          trade_id: 'T1',
          fill_id: fillId,
          token_id: 'tok-1',
          side: 'BUY',
          price_micro: price,
          shares_micro: '5000000',
          executed_at: '2025-01-06T12:00:00.100Z',
        },
      });
    const frames = [
      fill(1, 'F1', '510000'),
      fill(2, 'F2', '520000'),
      fill(3, 'F3', '530000'),
      fill(4, 'F2', '520000'),
      fill(5, 'F3', '540000'),
    ];
    frames.forEach((raw, i) =>
      connection.receive({
        connectionId: 'market-1',
        frameNo: i,
        receivedAtUs: 1_736_164_800_100_000n + BigInt(i),
        raw,
      }),
    );
    const trades = published.filter((r) => r.kind === 'trade').map((r) => r.payload as Record<string, unknown>);
    // Three fills of one trade, each kept; F2 again is a duplicate; F3 with another price is kept and reported.
    expect(trades.map((t) => `${t.fill_id}@${t.price_micro}`)).toEqual([
      'F1@510000',
      'F2@520000',
      'F3@530000',
      'F3@540000',
    ]);
    expect(counters.duplicates).toBe(1);
    const quality = published.filter((r) => r.kind === 'data_quality').map((r) => r.payload as Record<string, unknown>);
    expect(quality).toMatchObject([{ problem: 'conflicting_trade', token_id: 'tok-1', frame_seq: 5 }]);
    expect(String(quality[0]!.detail)).toContain('trade T1 fill F3');
  });
});
