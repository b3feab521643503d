import { createHash } from 'node:crypto';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Exchange } from './exchange.ts';
import type { Prng } from '../prng.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import { accountTotals } from './valuation.ts';

/** One settled-PnL bucket (§2.5): a mark of the account's custody at a block. */
export interface PnlBucket {
  bucketAtMs: number;
  collateralMicro: bigint;
  inflowMicro: bigint;
  outflowMicro: bigint;
  positionsValueMicro: bigint;
  lifetimePnlMicro: bigint;
  positionCount: number;
  markCapturedAtMs: number;
  markRunId: string;
  block: number;
  blockHash: string;
  blockTimeMs: number;
}

/** The marks of a saved venue. */
export interface PnlState {
  buckets: Array<[accountId: string, buckets: PnlBucket[]]>;
  nextRunMs: number;
}

export const CHAIN_ID = 137;
const BLOCK_MS = 2_000;
const GENESIS_BLOCK = 60_000_000;

/**
 * Periodic mark runs. Until the first run of an account, its PnL read answers 425 pnl_not_ready.
 * lifetime PnL = collateral + positions value − inflow + outflow (README, "Accounting").
 */
export class PnlMarks {
  readonly #buckets = new Map<string, PnlBucket[]>();
  #nextRunMs: number;

  constructor(
    private readonly accounts: AccountRegistry,
    private readonly catalogue: Catalogue,
    private readonly exchange: Exchange,
    private readonly ids: Prng,
    private readonly genesisMs: number,
    readonly intervalMs: number,
  ) {
    this.#nextRunMs = genesisMs + intervalMs;
  }

  snapshot(): PnlState {
    return { buckets: [...this.#buckets], nextRunMs: this.#nextRunMs };
  }

  /** A resumed venue's marks; a run missed while it was not running happens at the next tick. */
  restore(state: PnlState): void {
    for (const [accountId, buckets] of state.buckets) this.#buckets.set(accountId, buckets);
    this.#nextRunMs = state.nextRunMs;
  }

  latest(accountId: string): PnlBucket | undefined {
    return this.#buckets.get(accountId)?.at(-1);
  }

  history(accountId: string): PnlBucket[] {
    return this.#buckets.get(accountId) ?? [];
  }

  /** Seconds until the next run, for Retry-After on 425. */
  secondsUntilNextRun(nowMs: number): number {
    return Math.max(1, Math.ceil((this.#nextRunMs - nowMs) / 1000));
  }

  runIfDue(nowMs: number): void {
    if (nowMs < this.#nextRunMs) return;
    const bucketAtMs = Math.floor(nowMs / this.intervalMs) * this.intervalMs;
    this.#nextRunMs = bucketAtMs + this.intervalMs;
    const runId = this.ids.uuid();
    const block = GENESIS_BLOCK + Math.floor((nowMs - this.genesisMs) / BLOCK_MS);
    const blockHash = `0x${createHash('sha256').update(String(block)).digest('hex')}`;
    for (const account of this.accounts.all()) {
      const totals = accountTotals(this.catalogue, this.exchange, account);
      const bucket: PnlBucket = {
        bucketAtMs,
        collateralMicro: account.collateralMicro,
        inflowMicro: account.depositsMicro,
        outflowMicro: account.withdrawalsMicro,
        positionsValueMicro: totals.positionsValueMicro,
        lifetimePnlMicro:
          account.collateralMicro + totals.positionsValueMicro - account.depositsMicro + account.withdrawalsMicro,
        positionCount: totals.openPositionCount,
        markCapturedAtMs: nowMs,
        markRunId: runId,
        block,
        blockHash,
        blockTimeMs: this.genesisMs + (block - GENESIS_BLOCK) * BLOCK_MS,
      };
      const list = this.#buckets.get(account.id) ?? [];
      list.push(bucket);
      if (list.length > 500) list.shift();
      this.#buckets.set(account.id, list);
    }
  }
}
