/**
 * Reconciliation time for a million fills: the pure core (replay and compare) and the whole run
 * from a chDB warehouse (read fills and the rest, replay, compare).
 *
 * One account trades 400 tokens of 200 markets: buys and sells (never beyond the holding) at prices
 * on the cent grid, half as maker, takers paying the venue's fee; every 5,000th fill a market
 * resolves and its positions are redeemed (a frame on the account stream). The venue's reports are
 * what the venue would say — a positions read and a summary at the end, a settled-PnL bucket every
 * 1,000 fills — so the run checks everything and finds nothing different.
 *
 * Printed: fills/s of the replay (average cost and FIFO), of the core with its comparisons, and of
 * the whole run from the warehouse, with the share of it spent reading.
 *
 * Run: npm run bench -- reconcile   (FILLS=200000 for a shorter run; about 2 min on two busy cores)
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { LedgerEvent, LedgerFill } from '../src/reconcile/ledger-events.ts';
import { reconcileAccountData, type ReconcileOptions } from '../src/reconcile/reconcile-account.ts';
import { END_OF_TIME_MS, reconcileAccount } from '../src/reconcile/reconcile.ts';
import { replay } from '../src/reconcile/replay.ts';
import { SIMULATOR_VENUE_RULES, notional, takerFee } from '../src/reconcile/venue-rules.ts';
import { readFills, type LedgerInputs } from '../src/reconcile/warehouse-inputs.ts';
import type { VenueReports } from '../src/reconcile/warehouse-reports.ts';
import type { InsertRow } from '../src/warehouse/insert/row-encoder.ts';
import { migrate } from '../src/warehouse/schema/migrations.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { temporaryDataDir } from '../test/warehouse-fixtures.ts';

const FILLS = Number(process.env.FILLS ?? 1_000_000);
const ACCOUNT = 'bench';
const START = Date.UTC(2025, 0, 6);
const DEPOSIT = 10_000_000_000_000n;
const OPTIONS: ReconcileOptions = {
  method: 'average',
  toleranceMicro: 0n,
  rules: SIMULATOR_VENUE_RULES,
  fromMs: 0,
  toMs: END_OF_TIME_MS,
};

interface Generated {
  events: LedgerEvent[];
  fills: LedgerFill[];
  redemptions: Array<Extract<LedgerEvent, { kind: 'redemption' }>>;
  /** Every 1,000th fill: what the account holds then, valued at 0.50. */
  marks: Array<{ atMs: number; valueMicro: bigint; open: number }>;
}

const MARK = 500_000n;

function generate(count: number): Generated {
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const tokens = Array.from({ length: 400 }, (_, i) => ({
    tokenId: `${9_000_000 + i}`.padEnd(77, '7'),
    conditionId: `0x${Math.floor(i / 2)
      .toString(16)
      .padStart(64, '0')}`,
    held: 0n,
  }));
  const events: LedgerEvent[] = [{ kind: 'deposit', atMs: START, id: 'deposit', amountMicro: DEPOSIT }];
  const fills: LedgerFill[] = [];
  const redemptions: Generated['redemptions'] = [];
  const marks: Generated['marks'] = [];
  for (let i = 0; i < count; i++) {
    const atMs = START + 1_000 + i * 50;
    const token = tokens[next(tokens.length)]!;
    if (i % 5_000 === 4_999) {
      for (const t of tokens.filter((x) => x.conditionId === token.conditionId)) {
        const redemption = {
          kind: 'redemption' as const,
          atMs,
          tokenId: t.tokenId,
          conditionId: t.conditionId,
          resolutionPriceMicro: t === token ? 1_000_000n : 0n,
        };
        if (t.held > 0n)
          redemptions.push({
            ...redemption,
            reported: { sharesMicro: t.held, payoutMicro: notional(redemption.resolutionPriceMicro, t.held) },
          });
        t.held = 0n;
      }
      events.push(...redemptions.filter((r) => r.atMs === atMs));
    }
    const price = BigInt(1 + next(99)) * 10_000n;
    const sell = token.held > 0n && next(100) < 45;
    const shares = sell ? BigInt(1 + next(Number(token.held / 10_000n))) * 10_000n : BigInt(1 + next(5_000)) * 10_000n;
    const role = next(2) === 0 ? 'MAKER' : 'TAKER';
    const fill: LedgerFill = {
      fillId: `fill-${i}`,
      orderId: `order-${Math.floor(i / 3)}`,
      tokenId: token.tokenId,
      conditionId: token.conditionId,
      side: sell ? 'SELL' : 'BUY',
      role,
      priceMicro: price,
      sharesMicro: shares,
      feeMicro: role === 'MAKER' ? 0n : takerFee(SIMULATOR_VENUE_RULES, price, shares),
      atMs,
    };
    token.held += sell ? -shares : shares;
    fills.push(fill);
    events.push({ kind: 'fill', atMs, fill });
    if (i % 1_000 === 999) {
      const open = tokens.filter((x) => x.held !== 0n);
      marks.push({ atMs, valueMicro: open.reduce((v, x) => v + notional(MARK, x.held), 0n), open: open.length });
    }
  }
  return { events, fills, redemptions, marks };
}

/** What the venue would report: positions and summary at the end, a bucket every 1,000 fills (marks at 0.50). */
function venueReports(g: Generated): VenueReports {
  const endMs = g.fills.at(-1)!.atMs + 1;
  const buckets: VenueReports['buckets'] = [];
  const marks = new Map(g.marks.map((m) => [m.atMs, m]));
  const ledger = replay(g.events, OPTIONS, [...marks.keys()], (atMs, l) => {
    const { valueMicro, open } = marks.get(atMs)!;
    const cash = l.account.cashMicro;
    buckets.push({
      bucketAtMs: atMs,
      markAtMs: atMs,
      collateralMicro: cash,
      inflowMicro: DEPOSIT,
      outflowMicro: 0n,
      lifetimePnlMicro: cash + valueMicro - DEPOSIT,
      positionsValueMicro: valueMicro,
      positionCount: BigInt(open),
    });
  });
  const open = ledger.tokens().filter((t) => t.sharesMicro !== 0n);
  const positions = open.map((t) => ({
    tokenId: t.tokenId,
    conditionId: t.conditionId,
    sharesMicro: t.sharesMicro,
    avgPriceMicro: (t.costBasisMicro * 1_000_000n) / t.sharesMicro,
    currentPriceMicro: MARK,
    openCostBasisMicro: t.costBasisMicro,
    profitLossMicro: notional(MARK, t.sharesMicro) - t.costBasisMicro,
  }));
  const value = open.reduce((s, t) => s + notional(MARK, t.sharesMicro), 0n);
  const basis = open.reduce((s, t) => s + t.costBasisMicro, 0n);
  const cash = ledger.account.cashMicro;
  return {
    positions: { asOfMs: endMs, source: 'bench', positions },
    summary: {
      exchange: 'SERVICE',
      asOfMs: endMs,
      cashBalanceMicro: cash,
      positionsValueMicro: value,
      portfolioValueMicro: cash + value,
      openCostBasisMicro: basis,
      openUnrealizedPnlMicro: value - basis,
    },
    buckets,
    rebates: {
      observedAtMs: endMs,
      lpIncentiveMicro: 0n,
      makerRebateMicro: ledger.account.makerRebatesMicro,
      vipRebateMicro: 0n,
      totalMicro: ledger.account.makerRebatesMicro,
    },
    orders: [],
  };
}

function seconds(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

function rate(count: number, s: number): string {
  return `${Math.round(count / s).toLocaleString('en')} fills/s`;
}

async function insertWarehouse(
  g: Generated,
  reports: VenueReports,
  insert: (table: string, rows: InsertRow[]) => Promise<unknown>,
): Promise<void> {
  let offset = 0;
  const provenance = (topic: string) => ({
    _topic: topic,
    _partition: 0,
    _offset: offset++,
    _received_at: BigInt(START) * 1000n,
  });
  for (let i = 0; i < g.fills.length; i += 100_000) {
    const rows = g.fills.slice(i, i + 100_000).map((f) => ({
      account: ACCOUNT,
      fill_id: f.fillId,
      order_id: f.orderId,
      token_id: f.tokenId,
      condition_id: f.conditionId,
      side: f.side,
      role: f.role,
      price_micro: f.priceMicro,
      shares_micro: f.sharesMicro,
      fee_micro: f.feeMicro,
      executed_at: f.atMs,
      source: 'rest:portfolio/trades',
      observed_at: f.atMs,
      ...provenance('tapehouse.sync.fills'),
    }));
    await insert('fill_observations', rows.reverse()); // a REST list is newest first
  }
  await insert('activity_observations', [
    {
      account: ACCOUNT,
      activity_id: 'deposit',
      type: 'DEPOSIT',
      status: 'CONFIRMED',
      created_at: START,
      observed_at: START,
      ...provenance('tapehouse.sync.activities'),
      _raw: JSON.stringify({ amount_micro: DEPOSIT.toString() }),
    },
  ]);
  await insert(
    'account_events',
    g.redemptions.map((r) => ({
      account: ACCOUNT,
      kind: 'position_redeemed',
      event_at: r.atMs,
      token_id: r.tokenId,
      condition_id: r.conditionId,
      ...provenance('tapehouse.account.events'),
      _raw: JSON.stringify({
        kind: 'position_redeemed',
        token_id: r.tokenId,
        condition_id: r.conditionId,
        shares_micro: r.reported!.sharesMicro.toString(),
        resolution_price_micro: r.resolutionPriceMicro.toString(),
        payout_micro: r.reported!.payoutMicro.toString(),
      }),
    })),
  );
  const snapshot = {
    account: ACCOUNT,
    as_of: reports.positions!.asOfMs,
    position_count: reports.positions!.positions.length,
    source: 'bench',
    ...provenance('tapehouse.sync.positions'),
  };
  await insert('position_snapshots', [snapshot]);
  await insert(
    'position_observations',
    reports.positions!.positions.map((p, i) => ({
      account: ACCOUNT,
      as_of: snapshot.as_of,
      token_id: p.tokenId,
      condition_id: p.conditionId,
      shares_micro: p.sharesMicro,
      avg_price_micro: p.avgPriceMicro,
      current_price_micro: p.currentPriceMicro,
      open_cost_basis_micro: p.openCostBasisMicro,
      profit_loss_micro: p.profitLossMicro,
      source: 'bench',
      _topic: snapshot._topic,
      _partition: 0,
      _offset: snapshot._offset,
      _index: i,
      _received_at: snapshot._received_at,
    })),
  );
  const s = reports.summary!;
  await insert('portfolio_summaries', [
    {
      account: ACCOUNT,
      exchange: s.exchange,
      as_of: s.asOfMs,
      cash_balance_micro: s.cashBalanceMicro,
      positions_value_micro: s.positionsValueMicro,
      portfolio_value_micro: s.portfolioValueMicro,
      open_cost_basis_micro: s.openCostBasisMicro,
      open_unrealized_pnl_micro: s.openUnrealizedPnlMicro,
      source: 'bench',
      ...provenance('tapehouse.sync.portfolio_summaries'),
    },
  ]);
  await insert(
    'pnl_settled',
    reports.buckets.map((b) => ({
      account: ACCOUNT,
      bucket_at: b.bucketAtMs,
      mark_captured_at: b.markAtMs,
      collateral_micro: b.collateralMicro,
      cumulative_inflow_micro: b.inflowMicro,
      cumulative_outflow_micro: b.outflowMicro,
      lifetime_pnl_micro: b.lifetimePnlMicro,
      positions_value_micro: b.positionsValueMicro,
      position_count: b.positionCount,
      observed_at: b.markAtMs,
      ...provenance('tapehouse.sync.pnl'),
    })),
  );
  const r = reports.rebates!;
  await insert('rebates', [
    {
      account: ACCOUNT,
      maker_rebate_micro: r.makerRebateMicro,
      total_micro: r.totalMicro,
      observed_at: r.observedAtMs,
      ...provenance('tapehouse.sync.rebates'),
    },
  ]);
}

async function main(): Promise<void> {
  process.stdout.write(
    `reconcile: ${FILLS.toLocaleString('en')} fills of one account, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}\n`,
  );
  const g = generate(FILLS);
  const reports = venueReports(g);

  let t = performance.now();
  replay(g.events, OPTIONS);
  const averageS = seconds(t);
  t = performance.now();
  replay(g.events, { ...OPTIONS, method: 'fifo' });
  const fifoS = seconds(t);
  const inputs: LedgerInputs = {
    events: g.events,
    fills: g.fills,
    resolutions: new Map(),
    accountStreamFrames: g.redemptions.length,
    gaps: [],
    counts: { deposits: 1, withdrawals: 0, splits: 0, merges: 0, redemptionFrames: g.redemptions.length, lpPayouts: 0 },
  };
  t = performance.now();
  const core = reconcileAccountData(ACCOUNT, inputs, reports, [], OPTIONS);
  const coreS = seconds(t);
  const coreNotOk = core.rows.filter((r) => r.status !== 'ok').length;
  process.stdout.write(`core   replay, average cost  ${averageS.toFixed(2)} s  ${rate(FILLS, averageS)}\n`);
  process.stdout.write(`core   replay, FIFO          ${fifoS.toFixed(2)} s  ${rate(FILLS, fifoS)}\n`);
  process.stdout.write(
    `core   reconcile (${core.rows.length} figures, ${reports.buckets.length} buckets, ${coreNotOk} not ok)  ${coreS.toFixed(2)} s  ${rate(FILLS, coreS)}\n`,
  );

  const { dataDir, remove } = temporaryDataDir();
  const warehouse = await openEmbeddedWarehouse(dataDir);
  try {
    await migrate(warehouse.client);
    t = performance.now();
    await insertWarehouse(g, reports, (table, rows) => warehouse.insertRows(table, rows));
    process.stdout.write(`(warehouse filled in ${seconds(t).toFixed(1)} s)\n`);
    t = performance.now();
    const read = await readFills(warehouse.client, ACCOUNT, END_OF_TIME_MS);
    const readS = seconds(t);
    t = performance.now();
    const whole = await reconcileAccount(warehouse.client, ACCOUNT, OPTIONS);
    const wholeS = seconds(t);
    const notOk = whole.rows.filter((r) => r.status !== 'ok');
    process.stdout.write(
      `chDB   read ${read.length.toLocaleString('en')} fills  ${readS.toFixed(2)} s  ${rate(read.length, readS)}\n`,
    );
    process.stdout.write(
      `chDB   whole reconciliation (${whole.rows.length} figures, ${notOk.length} not ok)  ${wholeS.toFixed(2)} s  ${rate(FILLS, wholeS)}; reading fills ${((readS / wholeS) * 100).toFixed(0)} % of it\n`,
    );
    if (notOk.length > 0 || coreNotOk > 0)
      throw new Error(`expected no differences, got ${notOk[0]?.field}: ${notOk[0]?.detail}`);
  } finally {
    await warehouse.close();
    remove();
  }
}

await main();
