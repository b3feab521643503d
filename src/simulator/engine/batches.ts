import { createHash } from 'node:crypto';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { VenueLedger } from './venue-ledger.ts';
import type { Failure } from '../orders.ts';
import type { VenueEvents } from '../events.ts';
import { Rejection, codeInfo, type ProblemCode } from '../problems.ts';
import type { Account } from '../accounts/account.ts';
import type { ActivityLog } from '../accounts/activity-log.ts';
import { buyShares, sellShares } from '../accounts/ledger.ts';

export interface BatchOp {
  /** WITHDRAW: a same-chain withdrawal of `sharesMicro` collateral (§1.5; its op fields are not shown: ours are
   * `amount_micro`, `chain_id`). */
  kind: 'SPLIT' | 'MERGE' | 'WITHDRAW';
  /** '' for a withdrawal. */
  conditionId: string;
  marketId: string;
  sharesMicro: bigint;
  chainId?: number;
}

/**
 * The withdrawal object of a batch (§2.4). Values seen in the interface: state QUEUED, source
 * QUEUED, destination WAITING, path SPOKE_POOL; its transitions are not shown. Ours: QUEUED until
 * the batch executes, then the source CONFIRMED (state IN_TRANSIT), and `delayMs` later the
 * destination DELIVERED (state COMPLETED); a failed batch's withdrawal is FAILED.
 */
export interface SimWithdrawal {
  state: string;
  updatedAtMs: number;
  chainId: number;
  sourceStatus: string;
  sourceTxHash: string | undefined;
  confirmedAtMs: number | undefined;
  destinationStatus: string;
  destinationTx: string | undefined;
  deliveredAtMs: number | undefined;
}

export type BatchStatus = 'PENDING' | 'EXECUTED' | 'FAILED' | 'SUPERSEDED';

export interface AccountBatch {
  hash: string;
  seq: number;
  accountId: string;
  status: BatchStatus;
  origin: 'API';
  ops: BatchOp[];
  createdAtMs: number;
  executedAtMs: number | undefined;
  deadlineUnixSeconds: number;
  txHash: string | undefined;
  supersededByHash: string | undefined;
  failure: Failure | undefined;
  withdrawal?: SimWithdrawal;
}

const HALF = 500_000n;

/** The batches of a saved venue and each account's batch sequence. */
export interface BatchesState {
  batches: AccountBatch[];
  seq: Array<[accountId: string, seq: number]>;
}

/**
 * Owner-signed account batches (§2.4): SPLIT turns collateral into one share of each outcome,
 * MERGE the reverse. Both count as trades at ½ per outcome, so cost basis and realised PnL follow
 * the ledger's ordinary rules. One batch in flight per account; it executes after `delayMs`.
 */
export class AccountBatches {
  readonly #byHash = new Map<string, AccountBatch>();
  readonly #seq = new Map<string, number>();

  constructor(
    private readonly catalogue: Catalogue,
    private readonly venue: VenueLedger,
    private readonly activities: ActivityLog,
    private readonly events: VenueEvents,
    private readonly delayMs: number,
  ) {}

  snapshot(): BatchesState {
    return { batches: [...this.#byHash.values()], seq: [...this.#seq] };
  }

  restore(state: BatchesState): void {
    for (const batch of state.batches) this.#byHash.set(batch.hash, batch);
    for (const [accountId, seq] of state.seq) this.#seq.set(accountId, seq);
  }

  get(hash: string): AccountBatch | undefined {
    return this.#byHash.get(hash);
  }

  submit(
    account: Account,
    ops: BatchOp[],
    deadlineUnixSeconds: number,
    signature: string,
    nowMs: number,
    seq?: number,
  ): AccountBatch {
    if ([...this.#byHash.values()].some((b) => b.accountId === account.id && b.status === 'PENDING')) {
      throw new Rejection('batch_in_flight', 'Wait for the pending batch, or supersede it.');
    }
    const batchSeq = seq ?? (this.#seq.get(account.id) ?? 0) + 1;
    this.#seq.set(account.id, Math.max(batchSeq, this.#seq.get(account.id) ?? 0));
    const hash = `0x${createHash('sha256')
      .update(
        `${account.id}|${batchSeq}|${JSON.stringify(ops, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}|${signature}`,
      )
      .digest('hex')}`;
    const batch: AccountBatch = {
      hash,
      seq: batchSeq,
      accountId: account.id,
      status: 'PENDING',
      origin: 'API',
      ops,
      createdAtMs: nowMs,
      executedAtMs: undefined,
      deadlineUnixSeconds,
      txHash: undefined,
      supersededByHash: undefined,
      failure: undefined,
    };
    const withdraw = ops.find((op) => op.kind === 'WITHDRAW');
    if (withdraw) {
      batch.withdrawal = {
        state: 'QUEUED',
        updatedAtMs: nowMs,
        chainId: withdraw.chainId ?? 0,
        sourceStatus: 'QUEUED',
        sourceTxHash: undefined,
        confirmedAtMs: undefined,
        destinationStatus: 'WAITING',
        destinationTx: undefined,
        deliveredAtMs: undefined,
      };
    }
    this.#byHash.set(hash, batch);
    return batch;
  }

  /** Replaces a PENDING batch by one re-signed at the same sequence. */
  supersede(
    account: Account,
    hash: string,
    ops: BatchOp[],
    deadlineUnixSeconds: number,
    signature: string,
    nowMs: number,
  ): AccountBatch {
    const old = this.#byHash.get(hash);
    if (!old || old.accountId !== account.id) throw new Rejection('batch_not_found', `No batch ${hash}.`);
    if (old.status !== 'PENDING')
      throw new Rejection('sequence_conflict', `Batch ${hash} is ${old.status}; re-read the batch sequence.`);
    old.status = 'SUPERSEDED';
    const replacement = this.submit(account, ops, deadlineUnixSeconds, signature, nowMs, old.seq);
    old.supersededByHash = replacement.hash;
    return replacement;
  }

  processDue(nowMs: number, accountOf: (id: string) => Account | undefined): void {
    for (const batch of this.#byHash.values()) {
      const w = batch.withdrawal;
      if (w && w.state === 'IN_TRANSIT' && (w.confirmedAtMs ?? nowMs) + this.delayMs <= nowMs) {
        Object.assign(w, {
          state: 'COMPLETED',
          updatedAtMs: nowMs,
          destinationStatus: 'DELIVERED',
          destinationTx: `0x${createHash('sha256').update(`delivery|${batch.hash}`).digest('hex')}`,
          deliveredAtMs: nowMs,
        });
      }
      if (batch.status !== 'PENDING' || batch.createdAtMs + this.delayMs > nowMs) continue;
      const account = accountOf(batch.accountId);
      if (!account) continue;
      const problem = this.#shortfall(account, batch.ops);
      if (problem) {
        const info = codeInfo(problem);
        batch.status = 'FAILED';
        batch.failure = { code: problem, title: info.title, recovery: { strategy: info.strategy } };
        if (batch.withdrawal)
          Object.assign(batch.withdrawal, { state: 'FAILED', sourceStatus: 'FAILED', updatedAtMs: nowMs });
        continue;
      }
      batch.txHash = `0x${createHash('sha256').update(`tx|${batch.hash}`).digest('hex')}`;
      for (const op of batch.ops) this.#execute(account, op, batch.hash, nowMs);
      batch.status = 'EXECUTED';
      batch.executedAtMs = nowMs;
      if (batch.withdrawal)
        Object.assign(batch.withdrawal, {
          state: 'IN_TRANSIT',
          updatedAtMs: nowMs,
          sourceStatus: 'CONFIRMED',
          sourceTxHash: batch.txHash,
          confirmedAtMs: nowMs,
        });
    }
  }

  #shortfall(account: Account, ops: BatchOp[]): ProblemCode | undefined {
    let collateral = 0n;
    for (const op of ops) {
      if (op.kind === 'WITHDRAW') {
        collateral += op.sharesMicro;
        continue;
      }
      const market = this.catalogue.marketByCondition(op.conditionId);
      if (!market) return 'market_not_found';
      // A closed or resolved market's shares are settled by redemption; a split there would outlive it.
      if (market.state === 'CLOSED' || market.state === 'RESOLVED') return 'market_closed';
      if (op.kind === 'SPLIT') collateral += op.sharesMicro;
      else if (market.outcomes.some((o) => account.availableShares(o.tokenId) < op.sharesMicro))
        return 'insufficient_shares';
    }
    return collateral > account.freeCollateralMicro() ? 'insufficient_balance' : undefined;
  }

  #execute(account: Account, op: BatchOp, batchHash: string, nowMs: number): void {
    if (op.kind === 'WITHDRAW') {
      account.collateralMicro -= op.sharesMicro;
      account.withdrawalsMicro += op.sharesMicro;
      this.activities.record(account, 'WITHDRAWAL', nowMs, { amountMicro: op.sharesMicro, batchHash });
      this.events.emit('account', {
        kind: 'balance',
        accountId: account.id,
        reason: 'WITHDRAWAL',
        tokenIds: [],
        atMs: nowMs,
      });
      return;
    }
    const market = this.catalogue.marketByCondition(op.conditionId);
    if (!market) return;
    for (const outcome of market.outcomes) {
      const key = { tokenId: outcome.tokenId, conditionId: market.conditionId, outcomeIndex: outcome.index };
      if (op.kind === 'SPLIT') buyShares(account, key, op.sharesMicro, HALF, 0n, nowMs);
      else sellShares(account, key, op.sharesMicro, HALF, 0n, nowMs);
    }
    this.venue.addEscrow(market.conditionId, op.kind === 'SPLIT' ? op.sharesMicro : -op.sharesMicro);
    this.activities.record(account, op.kind, nowMs, {
      conditionId: market.conditionId,
      amountMicro: op.sharesMicro,
      batchHash,
    });
    this.events.emit('account', {
      kind: 'balance',
      accountId: account.id,
      reason: op.kind,
      tokenIds: market.outcomes.map((o) => o.tokenId),
      atMs: nowMs,
    });
  }
}
