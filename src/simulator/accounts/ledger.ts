import { notionalFloor } from '../money.ts';
import type { Account, Position } from './account.ts';

/**
 * Every change of an account's money goes through here, so the accounting rules of the README
 * hold by construction:
 *   collateral = deposits − withdrawals − Σ buy notional + Σ sell notional − fees + rebates
 *   realised PnL of a sale = proceeds − the cost basis it removes
 *   cost basis removed = basis × sold / held (floor), or the whole basis when the position closes
 */

export interface TokenKey {
  tokenId: string;
  conditionId: string;
  outcomeIndex: 0 | 1;
}

function positionOf(account: Account, key: TokenKey, atMs: number): Position {
  let p = account.positions.get(key.tokenId);
  if (!p) {
    p = {
      ...key,
      sharesMicro: 0n,
      reservedSharesMicro: 0n,
      costBasisMicro: 0n,
      realisedPnlMicro: 0n,
      updatedAtMs: atMs,
    };
    account.positions.set(key.tokenId, p);
  }
  return p;
}

export function deposit(account: Account, amountMicro: bigint): void {
  account.collateralMicro += amountMicro;
  account.depositsMicro += amountMicro;
}

/** Buys shares at `priceMicro`; the fee is paid on top of the notional and is not part of the cost basis. */
export function buyShares(
  account: Account,
  key: TokenKey,
  sharesMicro: bigint,
  priceMicro: bigint,
  feeMicro: bigint,
  atMs: number,
): void {
  const notional = notionalFloor(priceMicro, sharesMicro);
  const p = positionOf(account, key, atMs);
  account.collateralMicro -= notional + feeMicro;
  account.feesPaidMicro += feeMicro;
  p.sharesMicro += sharesMicro;
  p.costBasisMicro += notional;
  p.updatedAtMs = atMs;
}

/** Sells shares at `priceMicro`; the fee comes out of the proceeds. */
export function sellShares(
  account: Account,
  key: TokenKey,
  sharesMicro: bigint,
  priceMicro: bigint,
  feeMicro: bigint,
  atMs: number,
): void {
  const p = positionOf(account, key, atMs);
  if (sharesMicro > p.sharesMicro)
    throw new Error(`account ${account.id} sells ${sharesMicro} of ${p.sharesMicro} shares`);
  const notional = notionalFloor(priceMicro, sharesMicro);
  const removedCost =
    sharesMicro === p.sharesMicro ? p.costBasisMicro : (p.costBasisMicro * sharesMicro) / p.sharesMicro;
  account.collateralMicro += notional - feeMicro;
  account.feesPaidMicro += feeMicro;
  p.sharesMicro -= sharesMicro;
  p.costBasisMicro -= removedCost;
  p.realisedPnlMicro += notional - removedCost;
  account.realisedPnlMicro += notional - removedCost;
  p.updatedAtMs = atMs;
}

export function creditMakerRebate(account: Account, amountMicro: bigint): void {
  account.collateralMicro += amountMicro;
  account.makerRebatesMicro += amountMicro;
}

export function creditLpIncentive(account: Account, amountMicro: bigint): void {
  account.collateralMicro += amountMicro;
  account.lpIncentivesMicro += amountMicro;
}

/** Adjusts the shares held back for open SELL orders by `deltaMicro`. */
export function reserveShares(account: Account, key: TokenKey, deltaMicro: bigint, atMs: number): void {
  positionOf(account, key, atMs).reservedSharesMicro += deltaMicro;
}

/**
 * Automatic redemption of a resolved position (§1.7): every share pays its outcome's resolution
 * price, the position closes, and what it paid beyond (or below) its cost basis is realised.
 * Returns the shares redeemed and the payout (exact: whole lots times a price on the cent grid).
 */
export function redeemShares(
  account: Account,
  tokenId: string,
  resolutionPriceMicro: bigint,
  atMs: number,
): { sharesMicro: bigint; payoutMicro: bigint } {
  const p = account.positions.get(tokenId);
  if (!p || p.sharesMicro === 0n) return { sharesMicro: 0n, payoutMicro: 0n };
  if (p.reservedSharesMicro !== 0n)
    throw new Error(`account ${account.id} redeems ${tokenId} while orders hold its shares`);
  const sharesMicro = p.sharesMicro;
  const payoutMicro = notionalFloor(resolutionPriceMicro, sharesMicro);
  account.collateralMicro += payoutMicro;
  p.realisedPnlMicro += payoutMicro - p.costBasisMicro;
  account.realisedPnlMicro += payoutMicro - p.costBasisMicro;
  p.sharesMicro = 0n;
  p.costBasisMicro = 0n;
  p.updatedAtMs = atMs;
  return { sharesMicro, payoutMicro };
}
