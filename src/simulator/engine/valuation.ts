import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Exchange } from './exchange.ts';
import { notionalFloor } from '../money.ts';
import type { Account, Position } from '../accounts/account.ts';

export interface PositionValue {
  markMicro: bigint;
  valueMicro: bigint;
  unrealisedMicro: bigint;
}

/** Marks a position at its outcome's mark price (exact: shares are whole lots, marks multiples of 500 micro). */
export function valuePosition(catalogue: Catalogue, exchange: Exchange, position: Position): PositionValue {
  const ref = catalogue.token(position.tokenId);
  const markMicro = ref ? exchange.markPriceMicro(ref.market, ref.outcomeIndex) : 0n;
  const valueMicro = notionalFloor(markMicro, position.sharesMicro);
  return { markMicro, valueMicro, unrealisedMicro: valueMicro - position.costBasisMicro };
}

export interface AccountTotals {
  positionsValueMicro: bigint;
  openCostBasisMicro: bigint;
  unrealisedPnlMicro: bigint;
  openPositionCount: number;
}

export function accountTotals(catalogue: Catalogue, exchange: Exchange, account: Account): AccountTotals {
  const totals: AccountTotals = {
    positionsValueMicro: 0n,
    openCostBasisMicro: 0n,
    unrealisedPnlMicro: 0n,
    openPositionCount: 0,
  };
  for (const position of account.positions.values()) {
    if (position.sharesMicro === 0n) continue;
    const v = valuePosition(catalogue, exchange, position);
    totals.positionsValueMicro += v.valueMicro;
    totals.openCostBasisMicro += position.costBasisMicro;
    totals.unrealisedPnlMicro += v.unrealisedMicro;
    totals.openPositionCount++;
  }
  return totals;
}
