import type { SimFill, SimOrder } from '../orders.ts';

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

export type ActivityType = 'DEPOSIT' | 'ORDER' | 'SPLIT' | 'MERGE' | 'WITHDRAWAL';

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
  /** SPLIT, MERGE, WITHDRAWAL: the account batch that made it (rendered `batch_hash`; activity fields beyond ORDER's
   * are not shown). */
  batchHash?: string;
}

/** An account in a saved venue: its money and history; its orders by id (the exchange saves them). */
export interface AccountState {
  id: string;
  label: string;
  walletAddress: string;
  money: Record<(typeof MONEY_FIELDS)[number], bigint>;
  positions: Position[];
  orderIds: string[];
  fills: SimFill[];
  activities: Activity[];
  tier: RateTier;
  frozen: boolean;
}

const MONEY_FIELDS = [
  'collateralMicro',
  'reservedCollateralMicro',
  'depositsMicro',
  'withdrawalsMicro',
  'feesPaidMicro',
  'makerRebatesMicro',
  'lpIncentivesMicro',
  'vipRebatesMicro',
  'realisedPnlMicro',
] as const;

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

  snapshot(): AccountState {
    return {
      id: this.id,
      label: this.label,
      walletAddress: this.walletAddress,
      money: Object.fromEntries(MONEY_FIELDS.map((f) => [f, this[f]])) as AccountState['money'],
      positions: [...this.positions.values()],
      orderIds: this.orders.map((o) => o.id),
      fills: this.fills,
      activities: this.activities,
      tier: this.tier,
      frozen: this.frozen,
    };
  }

  /** The account of a saved venue; `orderById` gives the exchange's restored orders (one object for both). */
  static restore(state: AccountState, orderById: (id: string) => SimOrder | undefined): Account {
    const account = new Account(state.id, state.label, state.walletAddress);
    for (const f of MONEY_FIELDS) account[f] = state.money[f];
    for (const p of state.positions) account.positions.set(p.tokenId, p);
    for (const id of state.orderIds) {
      const order = orderById(id);
      if (order) account.orders.push(order);
    }
    for (const fill of state.fills) account.fills.push(fill);
    for (const activity of state.activities) account.activities.push(activity);
    account.tier = state.tier;
    account.frozen = state.frozen;
    return account;
  }
}
