import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VenueClient } from '../src/api/client.ts';
import type { ComparisonRow } from '../src/reconcile/comparison.ts';
import { END_OF_TIME_MS, reconcile, type Reconciliation } from '../src/reconcile/reconcile.ts';
import type { AccountReconciliation } from '../src/reconcile/reconcile-account.ts';
import { renderCsv, renderJson } from '../src/reconcile/render.ts';
import { storeReconciliation } from '../src/reconcile/store.ts';
import { reconciliationRoute } from '../src/reconcile/store-through-job.ts';
import { serveEmbeddedEndpoint } from '../src/warehouse/endpoint/index.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { SIMULATOR_VENUE_RULES } from '../src/reconcile/venue-rules.ts';
import type { Account } from '../src/simulator/accounts/account.ts';
import { readGroundTruth, type GroundTruth } from '../src/simulator/ground-truth-reader.ts';
import { ManualClock, startSimulator, type SimulatorHandle } from '../src/simulator/index.ts';
import { misreports } from '../src/simulator/misreport.ts';
import {
  accountClient,
  captureStreams,
  readAccount,
  readOutcomes,
  readPnl,
  WarehouseRows,
} from './reconcile-fixtures.ts';
import { migratedWarehouse, rows as selectRows, tapehouse, type TestWarehouse } from './warehouse-fixtures.ts';

// Two minutes before a UTC midnight, so an LP-incentive epoch closes and pays out during the run.
const START = Date.UTC(2025, 0, 6, 23, 58, 0);
const RUN_MS = 4 * 60_000;
const PNL_MS = 20_000;
/** The account read a second time, under another label, from a venue told to misreport. */
const MISREPORTED = 'maker-1';
const MISREPORTED_LABEL = 'maker-1 misreported';
const BUCKET_MISREPORTED_AT = START + 3 * PNL_MS;
const AVG_PRICE_OFFSET = 1_000n;
const LIFETIME_OFFSET = -2_500_000n;

let sim: SimulatorHandle;
let gtDir: string;
let truth: GroundTruth;
let store: TestWarehouse;
let run: Reconciliation;
const clients: VenueClient[] = [];
const chosen = { avgPriceToken: '', missingFillId: '', missingOrderId: '', missingFillToken: '' };

/** Sets the venue's misreports for the length of one read of the misreported account. */
async function misreporting<T>(read: () => Promise<T>): Promise<T> {
  const set = misreports(sim.venue);
  set.pnlBucket = { bucketAtMs: BUCKET_MISREPORTED_AT, field: 'lifetime_pnl_micro', offsetMicro: LIFETIME_OFFSET };
  if (chosen.avgPriceToken) set.avgPrice = { tokenId: chosen.avgPriceToken, offsetMicro: AVG_PRICE_OFFSET };
  if (chosen.missingFillId) set.missingFillId = chosen.missingFillId;
  try {
    return await read();
  } finally {
    delete set.pnlBucket;
    delete set.avgPrice;
    delete set.missingFillId;
  }
}

/** A split and, later, a merge of part of it, through the venue's account-batch endpoint. */
async function submitBatch(
  token: string,
  kind: 'SPLIT' | 'MERGE',
  conditionId: string,
  marketId: string,
  sharesMicro: bigint,
): Promise<void> {
  const res = await fetch(`${sim.url}/trade/v1/batches`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      deadline_unix_seconds: Math.floor(sim.venue.options.clock.now() / 1000) + 600,
      ops: [{ kind, condition_id: conditionId, market_id: marketId, shares_micro: Number(sharesMicro) }],
      signature: '0xtest',
    }),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  gtDir = mkdtempSync(join(tmpdir(), 'tapehouse-reconcile-gt-'));
  sim = await startSimulator({
    seed: 5,
    rate: 30,
    clock: new ManualClock(START),
    deployment: { limits: { account: false, ipBurst: false, edge: false } },
    lifecycle: {
      haltEveryMs: 30_000,
      haltDurationMs: 5_000,
      endEventEveryMs: 10_000,
      proposeAfterMs: 3_000,
      challengeMs: 3_000,
      disputeRate: 0.2,
      splitRate: 0.5,
      redeemDelayMs: 1_000,
    },
    venue: { catalogue: { recurringCadenceSeconds: 30 }, pnlIntervalMs: PNL_MS },
    groundTruth: { dir: gtDir },
  });
  const accounts = sim.venue.accounts.all();
  const tokenOf = new Map<string, string>([
    [sim.venue.demo.account.id, sim.demoToken],
    ...sim.traders.map((c): [string, string] => [c.account.id, c.token.secret]),
  ]);
  const clientOf = new Map(accounts.map((a) => [a.id, accountClient(sim, tokenOf.get(a.id)!)]));
  clients.push(...clientOf.values());
  const rows = new WarehouseRows();
  const misreported = accounts.find((a) => a.label === MISREPORTED) as Account;
  captureStreams(sim, rows, accounts, (a) => (a === misreported ? [a.label, MISREPORTED_LABEL] : [a.label]));

  // A market of a recurring series' next cycle would close under us; a long-lived one takes the split.
  const market = sim.venue.catalogue.markets.find(
    (m) => sim.venue.catalogue.isAcceptingOrders(m) && sim.venue.catalogue.eventOf(m).eventType === 'GAME',
  )!;
  for (let t = PNL_MS; t <= RUN_MS; t += PNL_MS) {
    while (sim.venue.options.clock.now() < START + t) sim.advance(250);
    if (t === 40_000)
      await submitBatch(tokenOf.get(misreported.id)!, 'SPLIT', market.conditionId, market.id, 10_000_000n);
    if (t === 80_000)
      await submitBatch(tokenOf.get(misreported.id)!, 'MERGE', market.conditionId, market.id, 4_000_000n);
    for (const a of accounts) await readPnl(rows, clientOf.get(a.id)!, a.label);
    await misreporting(() => readPnl(rows, clientOf.get(misreported.id)!, MISREPORTED_LABEL));
  }
  const now = sim.venue.options.clock.now();
  for (const a of accounts) await readAccount(rows, clientOf.get(a.id)!, a.label, now);
  await readOutcomes(rows, clientOf.get(misreported.id)!, sim.venue.catalogue.eventOf(market).slug, now);

  // What the venue will get wrong for the misreported copy: its last fill goes missing, and the
  // average price of an open position of another token is shifted.
  const lastFill = misreported.fills.at(-1)!;
  Object.assign(chosen, {
    missingFillId: lastFill.fillId,
    missingOrderId: lastFill.orderId,
    missingFillToken: lastFill.tokenId,
  });
  chosen.avgPriceToken = [...misreported.positions.values()].find(
    (p) => p.sharesMicro > 0n && p.tokenId !== lastFill.tokenId,
  )!.tokenId;
  await misreporting(() => readAccount(rows, clientOf.get(misreported.id)!, MISREPORTED_LABEL, now));

  await sim.close();
  truth = readGroundTruth(gtDir);
  store = await migratedWarehouse();
  await rows.insertInto(store.warehouse);
  run = await reconcile(store.warehouse.client, {
    method: 'average',
    toleranceMicro: 0n,
    rules: SIMULATOR_VENUE_RULES,
    fromMs: 0,
    toMs: END_OF_TIME_MS,
  });
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await sim?.close();
  await store?.cleanup();
  rmSync(gtDir, { recursive: true, force: true });
});

const accountRun = (label: string): AccountReconciliation => run.accounts.find((a) => a.account === label)!;
const honest = (): AccountReconciliation[] => run.accounts.filter((a) => a.account !== MISREPORTED_LABEL);
const notOk = (rows: readonly ComparisonRow[]): ComparisonRow[] => rows.filter((r) => r.status !== 'ok');

describe('reconciling a seeded simulator run from the warehouse alone', () => {
  it('covers trades, winner and split resolutions with redemptions, a split and a merge, maker rebates and LP incentives', async () => {
    expect(
      honest()
        .map((a) => a.account)
        .sort(),
    ).toEqual(
      sim.venue.accounts
        .all()
        .map((a) => a.label)
        .sort(),
    );
    const kinds = await selectRows<{ kind: string; n: string }>(
      store.warehouse.client,
      'SELECT kind, count() AS n FROM tapehouse.market_status GROUP BY kind',
    );
    expect(kinds.map((k) => k.kind)).toEqual(
      expect.arrayContaining(['market_resolved', 'payouts_resolved', 'market_resolution_completed']),
    );
    const maker = accountRun(MISREPORTED);
    expect(maker.coverage.fills).toBeGreaterThan(500);
    expect(maker.coverage).toMatchObject({ splits: 1, merges: 1 });
    expect(maker.coverage.lpPayouts).toBeGreaterThan(0);
    expect(maker.ledger.account.makerRebatesMicro).toBeGreaterThan(0n);
    const redemptions = honest().reduce((n, a) => n + a.coverage.redemptionFrames, 0);
    expect(redemptions).toBeGreaterThan(100);
    const splitRedeemed = honest()
      .flatMap((a) => a.ledger.tokens.flatMap((t) => t.redemptions))
      .filter((r) => r.resolutionPriceMicro !== 0n && r.resolutionPriceMicro !== 1_000_000n);
    expect(splitRedeemed.length).toBeGreaterThan(0);
  });

  it('finds no difference and nothing unproven in any honest account, over every kind of figure', () => {
    for (const account of honest()) {
      expect({ account: account.account, notOk: notOk(account.rows) }).toEqual({ account: account.account, notOk: [] });
      expect(account.coverage.gaps).toEqual([]);
      const scopes = new Set(account.rows.map((r) => r.scope));
      expect([...scopes].sort()).toEqual([
        'fees',
        'orders',
        'pnl_settled',
        'position',
        'rebates',
        'redemption',
        'summary',
      ]);
      expect(account.compared.buckets).toBe(RUN_MS / PNL_MS);
    }
  });

  it("reproduces the ground truth's accounting of every account to the micro", () => {
    const final = truth.accounting.at(-1)!;
    for (const gt of final.accounts) {
      const ours = accountRun(gt.label).ledger;
      expect({
        label: gt.label,
        cash: ours.account.cashMicro,
        deposits: ours.account.depositsMicro,
        fees: ours.account.feesPaidMicro,
        rebates: ours.account.makerRebatesMicro,
        lp: ours.account.lpIncentivesMicro,
        realised: ours.account.realisedPnlMicro,
      }).toEqual({
        label: gt.label,
        cash: gt.collateral_micro,
        deposits: gt.deposits_micro,
        fees: gt.fees_paid_micro,
        rebates: gt.maker_rebates_micro,
        lp: gt.lp_incentives_micro,
        realised: gt.realised_pnl_micro,
      });
      const open = ours.tokens
        .filter((t) => t.sharesMicro !== 0n)
        .map((t) => ({
          token_id: t.tokenId,
          shares_micro: t.sharesMicro,
          cost_basis_micro: t.costBasisMicro,
          realised_pnl_micro: t.realisedPnlMicro,
        }));
      const expected = gt.positions.map(({ condition_id: _c, ...p }) => p);
      expect(open.sort((a, b) => a.token_id.localeCompare(b.token_id))).toEqual(
        expected.sort((a, b) => a.token_id.localeCompare(b.token_id)),
      );
      // Every maker rebate the ground truth logged per fill, rebuilt by the venue's rule.
      const logged = truth.fills.filter((f) => f.account_id === gt.account_id).reduce((s, f) => s + f.rebate_micro, 0n);
      expect(ours.account.makerRebatesMicro).toBe(logged);
    }
  });

  it('names exactly what a misreporting venue got wrong: one average price, one PnL bucket, one missing fill', () => {
    const rows = accountRun(MISREPORTED_LABEL).rows;
    const different = rows
      .filter((r) => r.status === 'different')
      .map((r) => ({
        scope: r.scope,
        field: r.field,
        tokenId: r.tokenId,
        difference: r.differenceMicro,
        reportedAtMs: r.reportedAtMs,
      }));
    const missingShares = sim.venue.accounts
      .all()
      .find((a) => a.label === MISREPORTED)!
      .fills.at(-1)!.sharesMicro;
    expect(different.map(({ reportedAtMs: _r, ...r }) => r).sort((a, b) => a.scope.localeCompare(b.scope))).toEqual([
      { scope: 'orders', field: 'size_matched_micro', tokenId: chosen.missingFillToken, difference: -missingShares },
      { scope: 'pnl_settled', field: 'lifetime_pnl_micro', tokenId: '', difference: -LIFETIME_OFFSET },
      { scope: 'position', field: 'avg_price_micro', tokenId: chosen.avgPriceToken, difference: -AVG_PRICE_OFFSET },
    ]);
    expect(different.find((r) => r.scope === 'pnl_settled')?.reportedAtMs).toBe(BUCKET_MISREPORTED_AT);
    const order = rows.find((r) => r.scope === 'orders' && r.status === 'different')!;
    expect(order.detail).toContain(`order ${chosen.missingOrderId}`);
    // What the missing fill touches cannot be vouched for: said as unproven, naming the order, never ok or different.
    const unproven = rows.filter((r) => r.status === 'unproven');
    expect(unproven.length).toBeGreaterThan(0);
    for (const r of unproven) {
      expect(r.detail).toContain(chosen.missingOrderId);
      if (r.tokenId !== '') expect(r.tokenId).toBe(chosen.missingFillToken);
    }
    const honestTwin = accountRun(MISREPORTED).rows;
    expect(rows.length).toBe(honestTwin.length);
  });

  it('with FIFO, rebuilds the same shares and cash, differing from the venue only where the method decides cost', async () => {
    const fifo = await reconcile(store.warehouse.client, {
      accounts: [MISREPORTED],
      method: 'fifo',
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: 0,
      toMs: END_OF_TIME_MS,
    });
    const rows = fifo.accounts[0]!.rows;
    const fields = new Set(notOk(rows).map((r) => r.field));
    expect(fields.size).toBeGreaterThan(0);
    expect(
      [...fields].every((f) =>
        ['avg_price_micro', 'open_cost_basis_micro', 'profit_loss_micro', 'open_unrealized_pnl_micro'].includes(f),
      ),
    ).toBe(true);
    const average = accountRun(MISREPORTED).ledger.tokens;
    for (const t of fifo.accounts[0]!.ledger.tokens) {
      const a = average.find((x) => x.tokenId === t.tokenId)!;
      // Realised PnL minus open basis is what the cash says, whichever lots were sold.
      expect(t.realisedPnlMicro - t.costBasisMicro).toBe(a.realisedPnlMicro - a.costBasisMicro);
      expect(t.sharesMicro).toBe(a.sharesMicro);
    }
  });

  it('checks only what the venue reported within a window, the ledger still replaying every fill before it', async () => {
    const late = await reconcile(store.warehouse.client, {
      accounts: [MISREPORTED_LABEL],
      method: 'average',
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: BUCKET_MISREPORTED_AT + 1,
      toMs: END_OF_TIME_MS,
    });
    const rows = late.accounts[0]!.rows;
    expect(
      rows
        .filter((r) => r.status === 'different')
        .map((r) => r.field)
        .sort(),
    ).toEqual(['avg_price_micro', 'size_matched_micro']);
    expect(rows.every((r) => r.reportedAtMs > BUCKET_MISREPORTED_AT)).toBe(true);
    expect(late.accounts[0]!.ledger.account.cashMicro).toBe(accountRun(MISREPORTED_LABEL).ledger.account.cashMicro);
  });

  it("stores one row per figure in reconciliations, where the account dashboard finds the latest run's differences", async () => {
    const stored = await storeReconciliation(store.warehouse, run);
    expect(stored).toBe(run.accounts.reduce((n, a) => n + a.rows.length, 0));
    await storeReconciliation(store.warehouse, run); // a retried store lands once
    const [counts] = await selectRows<{ rows: string; different: string }>(
      store.warehouse.client,
      `SELECT count() AS rows, countIf(status = 'different') AS different FROM tapehouse.reconciliations WHERE run_id = '${run.runId}'`,
    );
    expect(counts).toEqual({ rows: String(stored), different: '3' });
    const latest = await selectRows<{ account: string; status: string; field: string }>(
      store.warehouse.client,
      `SELECT account, status, field FROM (
         SELECT * FROM tapehouse.reconciliations WHERE (account, run_id) IN (SELECT account, argMax(run_id, reconciled_at) FROM tapehouse.reconciliations GROUP BY account))
       WHERE status = 'different' ORDER BY field`,
    );
    expect(latest).toEqual([
      { account: MISREPORTED_LABEL, status: 'different', field: 'avg_price_micro' },
      { account: MISREPORTED_LABEL, status: 'different', field: 'lifetime_pnl_micro' },
      { account: MISREPORTED_LABEL, status: 'different', field: 'size_matched_micro' },
    ]);
  });

  it('renders every figure as CSV in micro-units and the whole run as JSON without losing a micro', () => {
    const mis = { ...run, accounts: [accountRun(MISREPORTED_LABEL)] };
    const lines = renderCsv(mis).trim().split('\n');
    expect(lines[0]).toBe(
      'run_id,account,scope,token_id,condition_id,field,ours_micro,theirs_micro,difference_micro,status,reported_at,detail',
    );
    expect(lines.length - 1).toBe(accountRun(MISREPORTED_LABEL).rows.length);
    expect(lines.filter((l) => l.includes(',different,'))).toHaveLength(3);
    const json = JSON.parse(renderJson(mis)) as {
      accounts: Array<{ counts: Record<string, number>; ledger: { account: { cashMicro: string } } }>;
    };
    expect(json.accounts[0]!.counts.different).toBe(3);
    expect(BigInt(json.accounts[0]!.ledger.account.cashMicro)).toBe(
      accountRun(MISREPORTED_LABEL).ledger.account.cashMicro,
    );
  });

  it('calls unproven, never ok, what a recorded gap in the fills could hide, from the gap on; an on-purpose end of coverage is no gap', async () => {
    const gapAt = START + 150_000;
    const gap = {
      subject_kind: 'account',
      subject: 'taker-1',
      _topic: 'tapehouse.capture.gaps',
      _partition: 0,
      _received_at: BigInt(gapAt) * 1000n,
    };
    await store.warehouse.insertRows('capture_gaps', [
      {
        ...gap,
        stream: 'sync',
        channel: 'portfolio_trades',
        gap_start: gapAt,
        gap_end: gapAt + 5_000,
        reason: 'endpoint_not_offered',
        recovery: 'none',
        _offset: 1,
      },
      {
        ...gap,
        stream: 'account',
        gap_start: START + 60_000,
        gap_end: START + 60_000,
        reason: 'unsubscribed',
        _offset: 2,
      },
    ]);
    const gapped = await reconcile(store.warehouse.client, {
      accounts: ['taker-1'],
      method: 'average',
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: 0,
      toMs: END_OF_TIME_MS,
    });
    const rows = gapped.accounts[0]!.rows;
    expect(rows.filter((r) => r.status === 'different')).toEqual([]);
    expect(
      rows.filter((r) => r.reportedAtMs < gapAt && r.scope === 'pnl_settled').every((r) => r.status === 'ok'),
    ).toBe(true);
    const after = rows.filter(
      (r) => r.reportedAtMs >= gapAt && ['position', 'summary', 'pnl_settled'].includes(r.scope),
    );
    expect(after.length).toBeGreaterThan(0);
    for (const r of after)
      expect(r).toMatchObject({ status: 'unproven', detail: expect.stringContaining('sync/portfolio_trades gap') });
    expect(rows.find((r) => r.field === 'lp_incentive_micro')?.status).toBe('ok');
  });

  it('names the settled-PnL figures of buckets the venue served while the PnL job was down: unproven because of that gap, never ok or different', async () => {
    const account = 'taker-2';
    const down = [START + 5 * PNL_MS, START + 6 * PNL_MS];
    // As if the PnL job had been down for those two buckets: they were never stored, and the job
    // recorded the gap when the next bucket came (src/sync/jobs/pnl.ts).
    for (const table of ['pnl_settled', 'pnl_settled_latest_store']) {
      await store.warehouse.client.command({
        query: `ALTER TABLE tapehouse.${table} DELETE WHERE account = '${account}' AND toUnixTimestamp64Milli(bucket_at) IN (${down.join(', ')}) SETTINGS mutations_sync = 2`,
      });
    }
    const detail = `settled PnL: 2 bucket(s) at the learnt cadence of ${PNL_MS / 1000} s between bucket … and bucket … were served by the venue while not observed`;
    await store.warehouse.insertRows('capture_gaps', [
      {
        stream: 'sync',
        channel: 'pnl',
        subject_kind: 'account',
        subject: account,
        gap_start: down[0]! - PNL_MS,
        gap_end: down[1]! + PNL_MS,
        reason: 'buckets_not_observed',
        recovery: 'none',
        detail,
        _topic: 'tapehouse.capture.gaps',
        _partition: 0,
        _offset: 3,
        _received_at: BigInt(down[1]! + PNL_MS) * 1000n,
      },
    ]);
    const again = await reconcile(store.warehouse.client, {
      accounts: [account],
      method: 'average',
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: 0,
      toMs: END_OF_TIME_MS,
    });
    const result = again.accounts[0]!;
    expect(result.compared).toMatchObject({ buckets: RUN_MS / PNL_MS - 2, unobservedBucketGaps: 1 });
    const unproven = result.rows.filter((r) => r.status !== 'ok');
    expect(unproven.map((r) => [r.scope, r.field, r.status, r.reportedAtMs])).toEqual(
      [
        'collateral_micro',
        'cumulative_inflow_micro',
        'cumulative_outflow_micro',
        'lifetime_pnl_micro',
        'position_count',
      ].map((field) => ['pnl_settled', field, 'unproven', down[1]! + PNL_MS]),
    );
    for (const r of unproven)
      expect(r.detail).toContain(
        `no bucket observed between ${new Date(down[0]! - PNL_MS).toISOString()} and ${new Date(down[1]! + PNL_MS).toISOString()} — capture gap sync/pnl`,
      );
    // Outside the window the gap spans, it is not named.
    const later = await reconcile(store.warehouse.client, {
      accounts: [account],
      method: 'average',
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: down[1]! + 2 * PNL_MS,
      toMs: END_OF_TIME_MS,
    });
    expect(notOk(later.accounts[0]!.rows)).toEqual([]);
  });

  it("without venue rules assumes no fee schedule: fees are the fills' own, the fee and maker-rebate checks and the cash after the first maker fill unproven, saying why", async () => {
    const bare = await reconcile(store.warehouse.client, {
      accounts: [MISREPORTED],
      method: 'average',
      toleranceMicro: 0n,
      rules: undefined,
      fromMs: 0,
      toMs: END_OF_TIME_MS,
    });
    const result = bare.accounts[0]!;
    const withRules = accountRun(MISREPORTED);
    expect(result.rows.filter((r) => r.status === 'different')).toEqual([]);
    expect(result.ledger.account.makerRebatesMicro).toBe(0n);
    expect(result.ledger.account.feesPaidMicro).toBe(withRules.ledger.account.feesPaidMicro);
    expect(result.ledger.account.cashMicro).toBe(
      withRules.ledger.account.cashMicro - withRules.ledger.account.makerRebatesMicro,
    );
    const fees = result.rows.filter((r) => r.scope === 'fees');
    expect(fees.length).toBeGreaterThan(0);
    for (const r of fees)
      expect(r).toMatchObject({
        status: 'unproven',
        differenceMicro: 0n,
        detail: expect.stringContaining('not checked: no fee schedule (--venue-rules)'),
      });
    const firstMaker = result.coverage.gaps.find((g) => g.input === 'venue_rules')!.fromMs;
    const cash = result.rows.filter(
      (r) =>
        ['cash_balance_micro', 'collateral_micro', 'maker_rebate_micro'].includes(r.field) &&
        r.reportedAtMs >= firstMaker,
    );
    expect(cash.length).toBeGreaterThan(2);
    for (const r of cash)
      expect(r).toMatchObject({
        status: 'unproven',
        detail: expect.stringContaining('no venue rules (--venue-rules)'),
      });
    // What rebates do not touch is still proven: positions, LP incentives.
    const untouched = result.rows.filter((x) => x.scope === 'position' || x.field === 'lp_incentive_micro');
    expect(untouched.length).toBeGreaterThan(1);
    for (const r of untouched) expect(r.status).toBe('ok');
    expect(result.coverage.venueRules).toBeUndefined();
    expect(withRules.coverage.venueRules).toMatch(/^simulator: taker fee 100 bps/);
  });

  it('never says ok over a fill id that names two different fills (a venue that reused its ids): from that fill on, unproven', async () => {
    const account = honest()
      .map((a) => a.account)
      .find((label) => label !== 'taker-1' && accountRun(label).coverage.fills > 20)!;
    const [fill] = await selectRows<Record<string, unknown>>(
      store.warehouse.client,
      `SELECT * EXCEPT (notional_micro) FROM tapehouse.fill_observations WHERE account = '${account}' ORDER BY executed_at LIMIT 1 OFFSET 10`,
    );
    const at = Date.parse(`${String(fill!.executed_at).replace(' ', 'T')}Z`);
    // Another fill under the same id: another price, a second later, observed later (so the fills view, one per id,
    // shows it).
    await store.warehouse.insertRows('fill_observations', [
      {
        ...fill,
        price_micro: BigInt(String(fill!.price_micro)) + 10_000n,
        executed_at: new Date(at + 1_000),
        observed_at: new Date(at + 60_000),
        _topic: 'tapehouse.sync.fills',
        _partition: 0,
        _offset: 999_999,
        _received_at: BigInt(at + 60_000) * 1000n,
      },
    ]);
    const again = await reconcile(store.warehouse.client, {
      accounts: [account],
      method: 'average',
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: 0,
      toMs: END_OF_TIME_MS,
    });
    const rows = again.accounts[0]!.rows;
    const after = rows.filter(
      (r) =>
        r.reportedAtMs >= at &&
        ['position', 'summary', 'pnl_settled'].includes(r.scope) &&
        (r.scope !== 'position' || r.tokenId === fill!.token_id),
    );
    expect(after.length).toBeGreaterThan(0);
    for (const r of after)
      expect(r).toMatchObject({
        status: 'unproven',
        detail: expect.stringContaining(
          `fill ${String(fill!.fill_id)} of account ${account} names 2 different fills (price_micro, executed_at differ)`,
        ),
      });
    expect(rows.filter((r) => r.status === 'different')).toEqual([]);
    expect(again.accounts[0]!.coverage.gaps.map((g) => g.reason)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^fill .* names 2 different fills/)]),
    );
  });

  it('by default ends the window at the last instant every input covers: an order matched after the last account frame of a stopped run is not called different', async () => {
    const opts = { method: 'average' as const, toleranceMicro: 0n, rules: SIMULATOR_VENUE_RULES, fromMs: 0 };
    let account = '';
    for (const label of honest()
      .map((a) => a.account)
      .filter((l) => !['taker-1', 'taker-2', MISREPORTED].includes(l))) {
      const fresh = await reconcile(store.warehouse.client, { ...opts, accounts: [label], toMs: END_OF_TIME_MS });
      if (notOk(fresh.accounts[0]!.rows).length === 0) account = label;
    }
    expect(account).not.toBe('');
    const [last] = await selectRows<{ at: string }>(
      store.warehouse.client,
      `SELECT toUnixTimestamp64Milli(max(event_at)) AS at FROM tapehouse.account_events WHERE account = '${account}'`,
    );
    const lastFrameMs = Number(last!.at);
    const tokenId = accountRun(account).ledger.tokens[0]!.tokenId;
    // The run stopped after its last account frame; an orders read a little later saw an order matched since.
    await store.warehouse.insertRows('order_observations', [
      {
        account,
        order_id: 'late-order',
        status: 'MATCHED',
        token_id: tokenId,
        side: 'BUY',
        size_matched_micro: 1_000_000n,
        created_at: new Date(lastFrameMs + 5_000),
        source: 'rest:orders',
        observed_at: new Date(lastFrameMs + 30_000),
        _topic: 'tapehouse.sync.orders',
        _partition: 0,
        _offset: 1,
        _received_at: BigInt(lastFrameMs + 30_000) * 1000n,
      },
    ]);
    const everything = await reconcile(store.warehouse.client, { ...opts, accounts: [account], toMs: END_OF_TIME_MS });
    expect(
      everything.accounts[0]!.rows.filter((r) => r.status === 'different').map((r) => [r.scope, r.tokenId]),
    ).toEqual([['orders', tokenId]]);
    const byDefault = await reconcile(store.warehouse.client, { ...opts, accounts: [account] });
    const result = byDefault.accounts[0]!;
    expect(result.window?.toMs).toBeLessThanOrEqual(lastFrameMs);
    expect(result.window?.end).toContain('the last instant every input covers (account stream until');
    expect(notOk(result.rows)).toEqual([]);
    // The reads taken after it (this fixture reads the portfolio once, at the end) wait for a --to.
    expect(result.compared.buckets).toBeGreaterThan(0);
    expect(result.rows.every((r) => r.reportedAtMs <= lastFrameMs)).toBe(true);
  });

  it('compares the summary with the positions read of its own instant, not the newest summary and positions reads seconds apart', async () => {
    const opts = {
      method: 'average' as const,
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: 0,
      toMs: END_OF_TIME_MS,
    };
    let account = '';
    for (const label of honest()
      .map((a) => a.account)
      .filter((l) => !['taker-1', 'taker-2', MISREPORTED].includes(l))) {
      const fresh = await reconcile(store.warehouse.client, { ...opts, accounts: [label] });
      if (notOk(fresh.accounts[0]!.rows).length === 0 && fresh.accounts[0]!.compared.summaryAsOfMs !== undefined)
        account = label;
    }
    expect(account).not.toBe('');
    const pairAt = accountRun(account).compared.summaryAsOfMs!;
    expect(accountRun(account).compared.positionsAsOfMs).toBe(pairAt);
    // Another positions read 3 s later and another summary 2 s after that: no pair among the newest.
    const shifted = (table: string, ms: number) =>
      `INSERT INTO tapehouse.${table} SELECT * REPLACE (as_of + toIntervalMillisecond(${ms}) AS as_of, _offset + 1000000 AS _offset) FROM tapehouse.${table} WHERE account = '${account}' AND toUnixTimestamp64Milli(as_of) = ${pairAt + ms}`; // WHERE sees the replaced as_of
    for (const table of ['position_snapshots', 'position_observations'])
      await store.warehouse.client.command({ query: shifted(table, 3_000) });
    await store.warehouse.client.command({ query: shifted('portfolio_summaries', 5_000) });
    const again = (await reconcile(store.warehouse.client, { ...opts, accounts: [account] })).accounts[0]!;
    expect(again.compared).toMatchObject({ positionsAsOfMs: pairAt + 3_000, summaryAsOfMs: pairAt });
    expect(notOk(again.rows)).toEqual([]);
    expect(
      again.rows
        .filter((r) => r.scope === 'summary')
        .map((r) => r.field)
        .sort(),
    ).toEqual([
      'cash_balance_micro',
      'open_cost_basis_micro',
      'open_unrealized_pnl_micro',
      'portfolio_value_micro',
      'positions_value_micro',
    ]);
  });

  it('runs as `tapehouse reconcile` on the data directory: prints what differs as of a time, at 80 columns, and stores the run', async () => {
    const asOf = await reconcile(store.warehouse.client, {
      accounts: [MISREPORTED_LABEL],
      method: 'average',
      toleranceMicro: 0n,
      rules: SIMULATOR_VENUE_RULES,
      fromMs: 0,
      toMs: BUCKET_MISREPORTED_AT,
    });
    await store.warehouse.close();
    const cli = await tapehouse([
      'reconcile',
      '--data-dir',
      store.dataDir,
      '--account',
      MISREPORTED_LABEL,
      '--to',
      new Date(BUCKET_MISREPORTED_AT).toISOString(),
      '--venue-rules',
      'simulator',
      '--details',
    ]);
    expect(cli.code).toBe(0);
    const lines = cli.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    expect(lines[0]).toMatch(/^reconciliation \S+ at /);
    expect(cli.stdout).toContain(`account ${MISREPORTED_LABEL}: ${asOf.accounts[0]!.rows.length} figures —`);
    expect(cli.stdout).toMatch(/1 different, 0 unproven/);
    expect(cli.stdout).toMatch(/^ {2}scope +ok +different +unproven$/m);
    expect(cli.stdout).toMatch(/^ {2}pnl_settled +\d+ +1 +0$/m);
    expect(cli.stdout.replace(/\n */g, ' ')).toContain(
      'venue rules simulator: taker fee 100 bps of min(p, 1 − p) × shares, maker rebate 25 % of it, rounded floor',
    );
    // The one difference, in units under a name without _micro: the bucket's lifetime PnL was reported 2.50 off.
    const block = lines.findIndex((line) => line.startsWith('different pnl_settled'));
    expect(lines[block]).toBe('different pnl_settled lifetime_pnl');
    expect(`${lines[block + 1]} ${lines[block + 2]}`).toMatch(
      /^ {2}ours -?\d+\.\d+, theirs -?\d+\.\d+, difference 2\.50 \(units\); +reported /,
    );
    // A name ending in _micro is never followed by an amount in units (venue columns may be named, as sources).
    expect(lines.filter((line) => /_micro\b[^;]*?\d+\.\d/.test(line))).toEqual([]);
    expect(lines.filter((line) => /^(ok|different|unproven) .*_micro/.test(line))).toEqual([]);
    expect(cli.stderr).toContain(`stored ${asOf.accounts[0]!.rows.length} rows of run`);
  });

  it('without --venue-rules says first what it cannot prove and how; while a job owns the data directory, stores the run through it', async () => {
    const owner = await openEmbeddedWarehouse(store.dataDir);
    const endpoint = await serveEmbeddedEndpoint(owner, { routes: reconciliationRoute(owner) });
    try {
      const cli = await tapehouse(['reconcile', '--data-dir', store.dataDir, '--account', MISREPORTED_LABEL]);
      expect(cli.code).toBe(0);
      const lines = cli.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe('fees and maker rebates unproven: add --venue-rules simulator (built-in venue)');
      expect(lines.filter((line) => line.length > 80)).toEqual([]);
      expect(cli.stdout).toContain('--details: every figure that is not ok and why; --format json: the whole run');
      const stored = /stored (\d+) rows of run (\S+) in tapehouse.reconciliations through the running job/.exec(
        cli.stderr,
      );
      expect(stored, cli.stderr).not.toBeNull();
      const [row] = await selectRows<{ n: string }>(
        owner.client,
        `SELECT count() AS n FROM tapehouse.reconciliations WHERE run_id = '${stored![2]}'`,
      );
      expect(Number(row!.n)).toBe(Number(stored![1]));
      expect(Number(stored![1])).toBeGreaterThan(0);
    } finally {
      await endpoint.close();
      await owner.close();
    }
  });
});
