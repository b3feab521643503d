import { accountTotals } from '../engine/valuation.ts';
import { isoTime } from '../clock.ts';
import type { BookLevel } from '../events.ts';
import { faultJson, type FaultRecord, type Faults } from '../faults/faults.ts';
import { toJson } from '../wire/json.ts';
import { renderFill } from '../wire/render/order.ts';
import type { BookFeed } from '../streams/book-feed.ts';
import { statusRecord } from '../streams/wire.ts';
import type { Venue } from '../venue.ts';
import { JsonlFiles } from './jsonl-files.ts';

export const GROUND_TRUTH_FILES = ['trades', 'books', 'status', 'fills', 'accounting', 'faults'] as const;
export type GroundTruthFile = (typeof GROUND_TRUTH_FILES)[number];

const levels = (ls: BookLevel[]): Array<Record<string, bigint>> =>
  ls.map((l) => ({ price_micro: l.priceMicro, shares_micro: l.sharesMicro }));

/**
 * The ground-truth log (README, "Ground truth"): what a pipeline must be checked against, written
 * as it happens with the venue's own times — every public trade, every book after each change,
 * every status event, every account fill, the accounting at intervals, and every injected fault.
 */
export class GroundTruthRecorder {
  readonly #files: JsonlFiles<GroundTruthFile>;
  #nextAccountingMs: number;

  constructor(
    private readonly venue: Venue,
    feed: BookFeed,
    faults: Faults,
    dir: string,
    private readonly accountingEveryMs: number,
  ) {
    this.#files = new JsonlFiles(dir, GROUND_TRUTH_FILES);
    this.#nextAccountingMs = venue.options.clock.now();
    feed.watch(() => true);
    feed.onUpdate((u) =>
      this.#line('books', u.atMs, {
        token_id: u.tokenId,
        condition_id: u.conditionId,
        sequence: u.sequence,
        bids: levels(u.bids),
        asks: levels(u.asks),
      }),
    );
    venue.events.on('trade', (t) =>
      this.#line('trades', t.atMs, {
        trade_id: t.tradeId,
        fill_id: t.fillId,
        token_id: t.tokenId,
        condition_id: t.conditionId,
        side: t.side,
        price_micro: t.priceMicro,
        shares_micro: t.sharesMicro,
        executed_at: isoTime(t.executedAtMs),
      }),
    );
    venue.events.on('market_status', (e) => this.#line('status', e.atMs, statusRecord(e)));
    venue.events.on('account', (e) => {
      if (e.kind === 'fill')
        this.#line('fills', e.atMs, {
          account_id: e.accountId,
          ...renderFill(e.fill),
          fill_kind: e.fill.kind,
          rebate_micro: e.fill.rebateMicro,
        });
    });
    faults.onEnded((f: FaultRecord) => this.#line('faults', f.endMs, faultJson(f)));
  }

  get dir(): string {
    return this.#files.dir;
  }

  tick(nowMs: number): void {
    if (nowMs >= this.#nextAccountingMs) {
      this.#accounting(nowMs);
      while (this.#nextAccountingMs <= nowMs) this.#nextAccountingMs += this.accountingEveryMs;
    }
    this.#files.flush();
  }

  flush(): void {
    this.#files.flush();
  }

  close(): void {
    this.#accounting(this.venue.options.clock.now());
    this.#files.close();
  }

  #line(file: GroundTruthFile, atMs: number, record: Record<string, unknown>): void {
    this.#files.append(file, toJson({ at: isoTime(atMs), ...record }));
  }

  /** Every account's books to the micro, and the venue's own side of the money. */
  #accounting(nowMs: number): void {
    const { venue } = this;
    const accounts = venue.accounts.all().map((a) => {
      const t = accountTotals(venue.catalogue, venue.exchange, a);
      return {
        account_id: a.id,
        label: a.label,
        collateral_micro: a.collateralMicro,
        reserved_collateral_micro: a.reservedCollateralMicro,
        deposits_micro: a.depositsMicro,
        withdrawals_micro: a.withdrawalsMicro,
        fees_paid_micro: a.feesPaidMicro,
        maker_rebates_micro: a.makerRebatesMicro,
        lp_incentives_micro: a.lpIncentivesMicro,
        vip_rebates_micro: a.vipRebatesMicro,
        realised_pnl_micro: a.realisedPnlMicro,
        positions_value_micro: t.positionsValueMicro,
        open_cost_basis_micro: t.openCostBasisMicro,
        unrealised_pnl_micro: t.unrealisedPnlMicro,
        positions: [...a.positions.values()]
          .filter((p) => p.sharesMicro > 0n)
          .map((p) => ({
            token_id: p.tokenId,
            condition_id: p.conditionId,
            shares_micro: p.sharesMicro,
            cost_basis_micro: p.costBasisMicro,
            realised_pnl_micro: p.realisedPnlMicro,
          })),
      };
    });
    const ledger = venue.exchange.venue;
    this.#line('accounting', nowMs, {
      accounts,
      venue: {
        fee_revenue_micro: ledger.feeRevenueMicro,
        rebates_paid_micro: ledger.rebatesPaidMicro,
        lp_incentives_paid_micro: ledger.lpIncentivesPaidMicro,
        escrow_micro: ledger.escrowMicro(),
      },
    });
  }
}
