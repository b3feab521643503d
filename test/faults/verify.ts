/**
 * The fault suite's judge, run as its own process once the pipeline has stopped (chDB allows one
 * process per data directory, and one directory per process): reads the warehouse the pipeline
 * filled and the simulator's ground truth, and prints the figures as one JSON line.
 *
 *   node --import tsx test/faults/verify.ts '<VerifyInput as JSON>'
 */
import { tradeKey } from '../../src/api/trade-key.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { partitionFor } from '../../src/bus/partitioner.ts';
import { replayBook, type ChangeRow, type SnapshotRow } from '../../src/capture/books/replay.ts';
import { readGroundTruth, type GtBook } from '../../src/simulator/ground-truth-reader.ts';
import { openQueryRunner, type QueryRunner } from '../../src/warehouse/query-access.ts';
import { rowsStoredTwice } from './stored-twice.ts';

export interface CausedGap {
  name: string;
  startMs: number;
  endMs: number;
  /** Streams whose gap would record it. */
  streams: string[];
}

export interface VerifyInput {
  dataDir: string;
  gtDir: string;
  /** The window checked: trades and books between these instants. */
  fromMs: number;
  toMs: number;
  /** Fills executed before this had time to be synced. */
  fillsToMs: number;
  topicPrefix: string;
  caused: CausedGap[];
  booksPerToken: number;
  /**
   * Kafka's log start per `topic|partition` at the end of the run. A bus gap (`bus_expired`) whose
   * missing offsets Kafka still holds is false: it covers nothing, and is counted.
   */
  busLogStarts?: Record<string, string>;
}

export interface Verdict {
  /**
   * Public fills (§6.2) by natural key (trade id, fill id). `fillsLost`: fills missing outside gaps
   * whose trade has another fill stored — a trade kept as its first fill only. `multiFillTrades`:
   * trades of the window that came as several fills.
   */
  trades: {
    expected: number;
    storedOnce: number;
    inGaps: number;
    missing: number;
    duplicated: number;
    fillsLost: number;
    multiFillTrades: number;
    missingExamples: string[];
  };
  fills: { expected: number; stored: number; missing: number; duplicated: number; missingExamples: string[] };
  duplicateRows: Record<string, number>;
  /** Up to three rows of each table with rows stored twice: their bus identity, copies, and the parts holding them. */
  duplicateExamples: string[];
  books: { compared: number; mismatched: number; examples: string[] };
  gaps: {
    recorded: Record<string, number>;
    caused: number;
    causedUnrecorded: number;
    unrecordedExamples: string[];
    falseBusGaps: number;
    falseExamples: string[];
  };
  deadLetters: { count: number; byReason: Record<string, number> };
  dataQuality: number;
  /**
   * The account's orders as `orders` holds them against `activities` (§3.1: a late fill after
   * CANCELLED must reach both): orders whose latest state both tables first showed before the calm,
   * and how many of them disagree (status, or shares matched against shares filled).
   */
  activities: { ordersJudged: number; disagreeing: number; lateFills: number; examples: string[] };
}

interface GapRow {
  stream: string;
  channel: string;
  subject_kind: string;
  subject: string;
  start_us: string;
  end_us: string;
  reason: string;
  detail: string;
}

async function rows<T>(runner: QueryRunner, sql: string): Promise<T[]> {
  const text = (await runner.run(sql, 'JSONEachRow')).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

export async function verify(input: VerifyInput): Promise<Verdict> {
  const runner = await openQueryRunner({ kind: 'chdb', dataDir: input.dataDir });
  const gt = readGroundTruth(input.gtDir);
  const catalogue = createTopicCatalogue(input.topicPrefix);
  const tokensOf = new Map<string, Set<string>>();
  for (const b of gt.books)
    (tokensOf.get(b.condition_id) ?? tokensOf.set(b.condition_id, new Set()).get(b.condition_id)!).add(b.token_id);
  for (const t of gt.trades)
    (tokensOf.get(t.condition_id) ?? tokensOf.set(t.condition_id, new Set()).get(t.condition_id)!).add(t.token_id);

  const gaps = (
    await rows<GapRow>(
      runner,
      `SELECT stream, channel, subject_kind, subject, toString(toUnixTimestamp64Micro(gap_start)) AS start_us, toString(toUnixTimestamp64Micro(gap_end)) AS end_us, reason, detail FROM capture_gaps`,
    )
  ).map((g) => ({ ...g, startUs: BigInt(g.start_us), endUs: BigInt(g.end_us) }));
  const falseGaps = gaps.filter((g) => isFalseBusGap(g, input.busLogStarts));
  const recorded: Record<string, number> = {};
  for (const g of gaps) recorded[`${g.stream}/${g.reason}`] = (recorded[`${g.stream}/${g.reason}`] ?? 0) + 1;

  // Gaps by what they cover: a long run records hundreds of thousands of rows (one per token).
  const gapIndex = new Map<string, Array<{ startUs: bigint; endUs: bigint }>>();
  for (const g of gaps) {
    if (falseGaps.includes(g)) continue; // covers nothing: what lies in it counts as missing
    const key =
      g.stream === 'bus'
        ? `bus|${g.channel}|${g.subject}`
        : `${g.stream}|${g.channel}|${g.subject_kind === '' ? '*' : g.subject}`;
    (gapIndex.get(key) ?? gapIndex.set(key, []).get(key)!).push({ startUs: g.startUs, endUs: g.endUs });
  }
  const within = (key: string, atUs: bigint) =>
    gapIndex.get(key)?.some((g) => g.startUs <= atUs && atUs <= g.endUs) ?? false;

  /** Inside a market-stream gap of the channel and of the token or its condition, or a bus gap of its topic-partition.
   */
  const inGap = (
    channel: string,
    kind: 'trade' | 'book_change',
    conditionId: string,
    tokenId: string,
    atUs: bigint,
  ): boolean => {
    const topic = catalogue.topicFor(kind);
    const partition = String(partitionFor(conditionId || tokenId, catalogue.spec(topic)!.partitions));
    if (within(`bus|${topic}|${partition}`, atUs)) return true;
    const subjects = ['*', conditionId, tokenId, ...(tokensOf.get(conditionId) ?? [])];
    return ['', channel].some((ch) => subjects.some((subject) => within(`market|${ch}|${subject}`, atUs)));
  };

  // Trades: every public fill of the window stored once (by trade and fill id), or inside a gap of its scope.
  const stored = new Map<string, number>();
  const tradesStored = new Set<string>();
  for (const r of await rows<{ trade_id: string; fill_id: string; n: string }>(
    runner,
    'SELECT trade_id, fill_id, count() AS n FROM trades GROUP BY trade_id, fill_id',
  )) {
    stored.set(tradeKey(r) ?? '', Number(r.n));
    tradesStored.add(r.trade_id);
  }
  const trades: Verdict['trades'] = {
    expected: 0,
    storedOnce: 0,
    inGaps: 0,
    missing: 0,
    duplicated: [...stored.values()].filter((n) => n > 1).length,
    fillsLost: 0,
    multiFillTrades: 0,
    missingExamples: [],
  };
  const fillsOfTrade = new Map<string, number>();
  for (const t of gt.trades) {
    if (t.atMs < input.fromMs || t.atMs > input.toMs) continue;
    trades.expected += 1;
    fillsOfTrade.set(t.trade_id, (fillsOfTrade.get(t.trade_id) ?? 0) + 1);
    const n = stored.get(tradeKey(t) ?? '') ?? 0;
    if (n >= 1) trades.storedOnce += n === 1 ? 1 : 0;
    else if (inGap('trades', 'trade', t.condition_id, t.token_id, BigInt(t.atMs) * 1000n)) trades.inGaps += 1;
    else {
      trades.missing += 1;
      if (tradesStored.has(t.trade_id)) trades.fillsLost += 1;
      if (trades.missingExamples.length < 5)
        trades.missingExamples.push(
          `${t.trade_id}${t.fill_id ? `/${t.fill_id}` : ''} at ${new Date(t.atMs).toISOString()} on ${t.condition_id}`,
        );
    }
  }
  trades.multiFillTrades = [...fillsOfTrade.values()].filter((n) => n > 1).length;

  // Fills of the demo account: the sync jobs page the account to completeness (no gap is allowed).
  const demo = gt.accounting.at(-1)?.accounts.find((a) => a.label === 'demo')?.account_id;
  const fillCounts = new Map<string, number>();
  for (const r of await rows<{ fill_id: string; n: string }>(
    runner,
    'SELECT fill_id, count() AS n FROM fills_latest GROUP BY fill_id',
  ))
    fillCounts.set(r.fill_id, Number(r.n));
  const wantFills = gt.fills.filter((f) => f.account_id === demo && f.atMs <= input.fillsToMs);
  const missingFills = wantFills.filter((f) => !fillCounts.has(f.fill_id));
  const fills: Verdict['fills'] = {
    expected: wantFills.length,
    stored: wantFills.length - missingFills.length,
    missing: missingFills.length,
    duplicated: [...fillCounts.values()].filter((n) => n > 1).length,
    missingExamples: missingFills.slice(0, 5).map((f) => `${f.fill_id} at ${new Date(f.atMs).toISOString()}`),
  };

  const { duplicateRows, duplicateExamples } = await rowsStoredTwice((sql) => rows(runner, sql));

  const books = await checkBooks(runner, gt.books, input, (b, atUs) =>
    inGap('orderbook', 'book_change', b.condition_id, b.token_id, atUs),
  );

  const unrecorded = input.caused.filter(
    (c) =>
      !gaps.some(
        (g) =>
          c.streams.includes(g.stream) &&
          g.startUs <= BigInt(c.endMs + 60_000) * 1000n &&
          g.endUs >= BigInt(c.startMs - 2_000) * 1000n,
      ),
  );
  const byReason: Record<string, number> = {};
  for (const r of await rows<{ error_code: string; n: string }>(
    runner,
    'SELECT error_code, count() AS n FROM dead_letters GROUP BY error_code',
  ))
    byReason[r.error_code] = Number(r.n);
  const [dq] = await rows<{ n: string }>(runner, 'SELECT toString(count()) AS n FROM data_quality');
  const activities = await ordersAgainstActivities(runner, input.fillsToMs);
  activities.lateFills = lateFillsOf(gt.fills, demo);
  return {
    trades,
    fills,
    duplicateRows,
    duplicateExamples,
    books,
    gaps: {
      recorded,
      caused: input.caused.length,
      causedUnrecorded: unrecorded.length,
      unrecordedExamples: unrecorded.slice(0, 5).map((c) => `${c.name} at ${new Date(c.startMs).toISOString()}`),
      falseBusGaps: falseGaps.length,
      falseExamples: falseGaps.slice(0, 5).map((g) => `false bus gap ${g.channel}[${g.subject}] ${g.detail}`),
    },
    deadLetters: { count: Object.values(byReason).reduce((a, b) => a + b, 0), byReason },
    dataQuality: Number(dq?.n ?? 0),
    activities,
  };
}

/** One table's history of an order: observation times with the (status, shares) seen. */
type States = Array<{ atMs: number; state: string }>;

/**
 * Each order's latest state in `orders` against its ORDER activity's in `activities` (both from
 * their observation histories). An order is judged when both tables first showed their latest state
 * before `beforeMs` (the calm: every job has read it again since); it disagrees when the two differ.
 */
async function ordersAgainstActivities(runner: QueryRunner, beforeMs: number): Promise<Verdict['activities']> {
  const history = async (sql: string): Promise<Map<string, States>> => {
    const out = new Map<string, States>();
    for (const r of await rows<{ id: string; at_ms: string; state: string }>(runner, sql)) {
      (out.get(r.id) ?? out.set(r.id, []).get(r.id)!).push({ atMs: Number(r.at_ms), state: r.state });
    }
    return out;
  };
  const orders = await history(
    "SELECT order_id AS id, toString(toUnixTimestamp64Milli(observed_at)) AS at_ms, concat(status, ' ', toString(size_matched_micro)) AS state FROM order_observations ORDER BY observed_at",
  );
  const activities = await history(
    "SELECT order_id AS id, toString(toUnixTimestamp64Milli(observed_at)) AS at_ms, concat(status, ' ', toString(filled_shares_micro)) AS state FROM activity_observations WHERE order_id != '' ORDER BY observed_at",
  );
  /** The latest state, and when it was first seen (its run of observations at the end). */
  const latest = (states: States | undefined): { state: string; sinceMs: number } | undefined => {
    const last = states?.at(-1);
    if (!states || !last) return undefined;
    let sinceMs = last.atMs;
    for (let i = states.length - 1; i >= 0 && states[i]!.state === last.state; i--) sinceMs = states[i]!.atMs;
    return { state: last.state, sinceMs };
  };
  const result: Verdict['activities'] = { ordersJudged: 0, disagreeing: 0, lateFills: 0, examples: [] };
  for (const id of new Set([...orders.keys(), ...activities.keys()])) {
    const o = latest(orders.get(id));
    const a = latest(activities.get(id));
    if (Math.max(o?.sinceMs ?? 0, a?.sinceMs ?? 0) >= beforeMs) continue;
    result.ordersJudged += 1;
    if (o?.state === a?.state) continue;
    result.disagreeing += 1;
    if (result.examples.length < 5)
      result.examples.push(`order ${id}: orders ${o?.state ?? 'absent'}, activities ${a?.state ?? 'absent'}`);
  }
  return result;
}

/** Fills of the account reported after their execution (late fills, §3.1): executed well before they were published. */
function lateFillsOf(fills: ReturnType<typeof readGroundTruth>['fills'], accountId: string | undefined): number {
  return fills.filter((f) => f.account_id === accountId && Date.parse(f.executed_at) < f.atMs - 100).length;
}

/** A `bus_expired` gap whose missing offsets Kafka still holds (its log start is not past them). */
function isFalseBusGap(gap: GapRow, logStarts: Record<string, string> | undefined): boolean {
  if (!logStarts || gap.stream !== 'bus' || gap.reason !== 'bus_expired') return false;
  const start = logStarts[`${gap.channel}|${gap.subject}`];
  const missing = (JSON.parse(gap.detail) as { last_missing_offset?: string }).last_missing_offset;
  return start !== undefined && missing !== undefined && BigInt(missing) >= BigInt(start);
}

/**
 * Books replayed from the warehouse equal the ground truth at instants outside gaps: the end of
 * the last millisecond of a ground-truth state, spread evenly over each token's states.
 */
async function checkBooks(
  runner: QueryRunner,
  states: readonly GtBook[],
  input: VerifyInput,
  gapAt: (b: GtBook, atUs: bigint) => boolean,
): Promise<Verdict['books']> {
  const snapshots = new Map<string, SnapshotRow[]>();
  for (const s of await rows<{
    token_id: string;
    seq: string;
    at_us: string;
    bp: string[];
    bs: string[];
    ap: string[];
    as: string[];
  }>(
    runner,
    `SELECT token_id, toString(sequence) AS seq, toString(toUnixTimestamp64Micro(snapshot_at)) AS at_us,
            arrayMap(x -> toString(x), bid_prices_micro) AS bp, arrayMap(x -> toString(x), bid_sizes_micro) AS bs,
            arrayMap(x -> toString(x), ask_prices_micro) AS ap, arrayMap(x -> toString(x), ask_sizes_micro) AS as
     FROM book_snapshots`,
  )) {
    const levels = (prices: string[], sizes: string[]) =>
      prices.map((p, i) => ({ priceMicro: Number(p), sizeMicro: sizes[i]! }));
    const list = snapshots.get(s.token_id) ?? snapshots.set(s.token_id, []).get(s.token_id)!;
    list.push({
      tokenId: s.token_id,
      atUs: BigInt(s.at_us),
      sequence: BigInt(s.seq),
      bids: levels(s.bp, s.bs),
      asks: levels(s.ap, s.as),
    });
  }
  const changes = new Map<string, ChangeRow[]>();
  for (const c of await rows<{
    token_id: string;
    side: string;
    price: string;
    size: string;
    seq: string;
    at_us: string;
  }>(
    runner,
    `SELECT token_id, side, toString(price_micro) AS price, toString(size_micro) AS size, toString(sequence) AS seq, toString(toUnixTimestamp64Micro(changed_at)) AS at_us FROM book_changes`,
  )) {
    const list = changes.get(c.token_id) ?? changes.set(c.token_id, []).get(c.token_id)!;
    list.push({
      tokenId: c.token_id,
      side: c.side.toLowerCase() === 'bid' ? 'bid' : 'ask',
      priceMicro: Number(c.price),
      sizeMicro: c.size,
      sequence: BigInt(c.seq),
      atUs: BigInt(c.at_us),
    });
  }
  // Sorted by sequence once: a sample replays only the changes after its base snapshot.
  for (const list of changes.values())
    list.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0));
  const byToken = new Map<string, GtBook[]>();
  for (const b of states) (byToken.get(b.token_id) ?? byToken.set(b.token_id, []).get(b.token_id)!).push(b);
  const result: Verdict['books'] = { compared: 0, mismatched: 0, examples: [] };
  const levels = (ls: GtBook['bids']) => ls.map((l) => [Number(l.price_micro), l.shares_micro.toString()]);
  for (const [tokenId, list] of byToken) {
    // A state holds until the next change; candidates are states inside the window, outside gaps.
    const candidates = list.filter((s, i) => {
      const next = list[i + 1];
      return (
        !(next && next.atMs === s.atMs) &&
        s.atMs >= input.fromMs &&
        s.atMs <= input.toMs &&
        !gapAt(s, BigInt(s.atMs) * 1000n + 999n)
      );
    });
    const stride = Math.max(1, Math.floor(candidates.length / input.booksPerToken));
    for (let i = 0; i < candidates.length; i += stride) {
      const state = candidates[i]!;
      const atUs = BigInt(state.atMs) * 1000n + 999n;
      const replayed = replayBook(
        snapshots.get(tokenId) ?? [],
        changesAround(changes.get(tokenId) ?? [], snapshots.get(tokenId) ?? [], atUs),
        atUs,
      );
      if (!replayed) continue;
      result.compared += 1;
      const { bids, asks } = replayed.ladder.levels();
      const got = JSON.stringify({
        bids: bids.map((l) => [l.priceMicro, l.sizeMicro]),
        asks: asks.map((l) => [l.priceMicro, l.sizeMicro]),
      });
      const want = JSON.stringify({ bids: levels(state.bids), asks: levels(state.asks) });
      if (got !== want) {
        result.mismatched += 1;
        if (result.examples.length < 3)
          result.examples.push(`${tokenId} at ${new Date(state.atMs).toISOString()}: got ${got}, want ${want}`);
      }
    }
  }
  return result;
}

/**
 * The changes a replay at `atUs` can use (sorted by sequence): after the newest snapshot at or
 * before the instant, up to a minute past it (sequence and time agree but for the odd straggler).
 */
function changesAround(sorted: readonly ChangeRow[], snapshots: readonly SnapshotRow[], atUs: bigint): ChangeRow[] {
  let base = -1n;
  for (const s of snapshots) if (s.atUs <= atUs && s.sequence > base) base = s.sequence;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.sequence <= base) lo = mid + 1;
    else hi = mid;
  }
  const out: ChangeRow[] = [];
  for (let i = lo; i < sorted.length && sorted[i]!.atUs <= atUs + 60_000_000n; i++) out.push(sorted[i]!);
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const input = JSON.parse(process.argv[2] ?? '{}') as VerifyInput;
  verify(input).then(
    (verdict) => {
      process.stdout.write(`VERDICT ${JSON.stringify(verdict)}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`verify failed: ${(err as Error).stack}\n`);
      process.exit(1);
    },
  );
}
