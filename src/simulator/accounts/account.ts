import type { SimFill, SimOrder } from '../engine/types.ts';

export type RateTier = 'authenticated' | 'higher';

/** Holdings of one outcome token. Cost basis is exact; the average price is derived for display. */
export interface Position {
  tokenId: string;
  conditionId: string;
  outcomeIndex: 0 | 1;
  sharesMicro: bigint;
  /** Shares held back by open SELL orders. */
  reservedSharesMicro: bigint;
  costBasisMicro: bigint;
  realisedPnlMicro: bigint;
  /** Last change, for ordering and "as of" reads. */
  updatedAtMs: number;
}

export type ActivityType = 'DEPOSIT' | 'ORDER' | 'SPLIT' | 'MERGE';

export interface Activity {
  id: string;
  /** Keyset of activity lists. */
  seq: number;
  type: ActivityType;
  createdAtMs: number;
  /** ORDER activities mirror their order; the others carry an amount. */
  orderId: string | undefined;
  conditionId: string | undefined;
  tokenId: string | undefined;
  amountMicro: bigint;
}

/** The ground truth of one user's money (README, "Accounting"). */
export class Account {
  collateralMicro = 0n;
  /** Collateral held back by open BUY orders (remaining notional + worst-case fee, or a market budget). */
  reservedCollateralMicro = 0n;
  depositsMicro = 0n;
  withdrawalsMicro = 0n;
  feesPaidMicro = 0n;
  makerRebatesMicro = 0n;
  lpIncentivesMicro = 0n;
  vipRebatesMicro = 0n;
  realisedPnlMicro = 0n;
  readonly positions = new Map<string, Position>();
  readonly orders: SimOrder[] = [];
  readonly fills: SimFill[] = [];
  readonly activities: Activity[] = [];
  tier: RateTier = 'authenticated';
  frozen = false;

  constructor(
    readonly id: string,
    readonly label: string,
    readonly walletAddress: string,
  ) {}

  freeCollateralMicro(): bigint {
    return this.collateralMicro - this.reservedCollateralMicro;
  }

  position(tokenId: string): Position | undefined {
    return this.positions.get(tokenId);
  }

  availableShares(tokenId: string): bigint {
    const p = this.positions.get(tokenId);
    return p ? p.sharesMicro - p.reservedSharesMicro : 0n;
  }
}
