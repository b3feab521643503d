/**
 * The venue's side of the money: fees kept, rebates and incentives paid, and the collateral that
 * backs outstanding complete sets (a mint locks one unit per share pair, a merge releases it).
 * Σ account collateral + escrow + fee revenue − rebates − incentives = Σ deposits − withdrawals.
 */
export class VenueLedger {
  feeRevenueMicro = 0n;
  rebatesPaidMicro = 0n;
  lpIncentivesPaidMicro = 0n;
  readonly escrowByCondition = new Map<string, bigint>();

  addEscrow(conditionId: string, deltaMicro: bigint): void {
    this.escrowByCondition.set(conditionId, (this.escrowByCondition.get(conditionId) ?? 0n) + deltaMicro);
  }

  escrowMicro(): bigint {
    let total = 0n;
    for (const v of this.escrowByCondition.values()) total += v;
    return total;
  }
}
