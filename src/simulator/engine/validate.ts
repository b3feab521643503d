import type { Account } from '../accounts/account.ts';
import type { SimMarket } from '../catalogue/types.ts';
import { notionalFloor } from '../money.ts';
import { Rejection, validationFailed, type FieldError } from '../problems.ts';
import { worstCaseBuyFee, type FeeSchedule } from './fees.ts';
import type { OrderLimits, PlaceRequest } from './place-request.ts';

/** Field combinations that are well-formed JSON but not a valid order (422 validation_failed). */
function combinationErrors(req: PlaceRequest, lotMicro: bigint): FieldError[] {
  const errors: FieldError[] = [];
  const add = (field: string, code: string, message: string): void =>
    void errors.push({ path: [field], code, message });
  if (req.type === 'LIMIT') {
    if (req.priceMicro === undefined) add('price_micro', 'required', 'A LIMIT order needs price_micro.');
    if (req.sharesMicro === undefined) add('shares_micro', 'required', 'A LIMIT order needs shares_micro.');
    if (req.collateralAmountMicro !== undefined)
      add('collateral_amount_micro', 'not_allowed', 'Only a MARKET BUY carries a budget.');
  } else {
    if (req.priceMicro !== undefined) add('price_micro', 'not_allowed', 'A MARKET order has no price.');
    if (req.timeInForce === 'GTC' || req.timeInForce === 'GTD')
      add('time_in_force', 'invalid_for_market', 'A MARKET order is FOK or FAK.');
    if (req.side === 'BUY') {
      if (req.collateralAmountMicro === undefined)
        add('collateral_amount_micro', 'required', 'A MARKET BUY needs collateral_amount_micro.');
      if (req.sharesMicro !== undefined)
        add('shares_micro', 'not_allowed', 'A MARKET BUY is sized by collateral_amount_micro.');
    } else {
      if (req.sharesMicro === undefined) add('shares_micro', 'required', 'A MARKET SELL needs shares_micro.');
      if (req.collateralAmountMicro !== undefined)
        add('collateral_amount_micro', 'not_allowed', 'Only a MARKET BUY carries a budget.');
    }
  }
  if (req.postOnly && (req.type !== 'LIMIT' || (req.timeInForce !== 'GTC' && req.timeInForce !== 'GTD'))) {
    add('post_only', 'invalid_combination', 'post_only needs a LIMIT order with GTC or GTD.');
  }
  if (req.timeInForce === 'GTD' && req.expirationUnixSeconds === undefined)
    add('expiration_unix_seconds', 'required', 'A GTD order needs expiration_unix_seconds.');
  if (req.timeInForce !== 'GTD' && req.expirationUnixSeconds !== undefined)
    add('expiration_unix_seconds', 'not_allowed', 'Only GTD orders expire.');
  if (req.sharesMicro !== undefined && (req.sharesMicro <= 0n || req.sharesMicro % lotMicro !== 0n)) {
    add('shares_micro', 'not_on_lot', `shares_micro must be a positive multiple of ${lotMicro}.`);
  }
  if (req.collateralAmountMicro !== undefined && req.collateralAmountMicro <= 0n)
    add('collateral_amount_micro', 'not_positive', 'The budget must be positive.');
  return errors;
}

export interface Reservation {
  collateralMicro: bigint;
  sharesMicro: bigint;
}

/** What an accepted order holds back: BUY its notional plus worst-case fee (or its budget), SELL its shares. */
export function reservationFor(
  req: Pick<PlaceRequest, 'side' | 'type' | 'priceMicro' | 'collateralAmountMicro'>,
  remainingSharesMicro: bigint,
  fees: FeeSchedule,
): Reservation {
  if (req.side === 'SELL') return { collateralMicro: 0n, sharesMicro: remainingSharesMicro };
  if (req.type === 'MARKET') return { collateralMicro: req.collateralAmountMicro ?? 0n, sharesMicro: 0n };
  const price = req.priceMicro ?? 0n;
  return {
    collateralMicro: notionalFloor(price, remainingSharesMicro) + worstCaseBuyFee(fees, price, remainingSharesMicro),
    sharesMicro: 0n,
  };
}

/**
 * The synchronous checks of order placement, in the order a client would want to hear them.
 * Book-dependent checks (post-only, FOK) are the caller's, as they need the live book.
 */
export function validatePlacement(
  req: PlaceRequest,
  market: SimMarket,
  account: Account,
  acceptingOrders: boolean,
  limits: OrderLimits,
  fees: FeeSchedule,
  nowMs: number,
): Reservation {
  if (account.frozen) throw new Rejection('account_frozen', 'Trading is disabled for this account.');
  const lotMicro = 1_000_000n / BigInt(market.sizeScale);
  const errors = combinationErrors(req, lotMicro);
  if (
    req.priceMicro !== undefined &&
    req.priceMicro > 0n &&
    req.priceMicro < 1_000_000n &&
    req.priceMicro % market.tickMicro !== 0n
  ) {
    errors.push({
      path: ['price_micro'],
      code: 'not_on_tick',
      message: `price_micro must be a multiple of the tick ${market.tickMicro}.`,
    });
  }
  if (errors.length > 0) throw validationFailed(errors);
  if (req.priceMicro !== undefined && (req.priceMicro <= 0n || req.priceMicro >= 1_000_000n)) {
    throw new Rejection('order_price_out_of_range', 'price_micro must lie strictly between 0 and 1000000.');
  }
  if (!acceptingOrders)
    throw new Rejection(
      'market_closed',
      `Market ${market.conditionId} is ${market.haltedAtMs !== undefined ? 'halted' : market.state}.`,
    );
  checkBounds(req, market, limits);
  if (
    req.timeInForce === 'GTD' &&
    (req.expirationUnixSeconds ?? 0) * 1000 < nowMs + limits.minGtdHorizonSeconds * 1000
  ) {
    throw new Rejection(
      'order_expiration_too_soon',
      `Expiration must be at least ${limits.minGtdHorizonSeconds} s ahead.`,
    );
  }
  const reservation = reservationFor(req, req.sharesMicro ?? 0n, fees);
  if (reservation.collateralMicro > account.freeCollateralMicro()) {
    throw new Rejection(
      'insufficient_balance',
      `Needs ${reservation.collateralMicro}, free ${account.freeCollateralMicro()}.`,
    );
  }
  if (reservation.sharesMicro > account.availableShares(req.tokenId)) {
    throw new Rejection(
      'insufficient_shares',
      `Needs ${reservation.sharesMicro} shares, available ${account.availableShares(req.tokenId)}.`,
    );
  }
  return reservation;
}

function checkBounds(req: PlaceRequest, market: SimMarket, limits: OrderLimits): void {
  if (req.type === 'MARKET' && req.side === 'SELL') {
    const shares = req.sharesMicro ?? 0n;
    if (shares < market.minOrderSizeMicro)
      throw new Rejection('order_size_below_minimum', `Minimum ${market.minOrderSizeMicro} shares.`);
    if (shares > limits.maxMarketSellSharesMicro)
      throw new Rejection('order_size_above_maximum', `Maximum ${limits.maxMarketSellSharesMicro} shares.`);
    return;
  }
  if (req.type === 'LIMIT' && (req.sharesMicro ?? 0n) < market.minOrderSizeMicro) {
    throw new Rejection('order_size_below_minimum', `Minimum ${market.minOrderSizeMicro} shares.`);
  }
  const value =
    req.type === 'MARKET'
      ? (req.collateralAmountMicro ?? 0n)
      : notionalFloor(req.priceMicro ?? 0n, req.sharesMicro ?? 0n);
  if (value < limits.minNotionalMicro)
    throw new Rejection('order_value_below_minimum', `Order value ${value} below ${limits.minNotionalMicro}.`);
  if (value > limits.maxNotionalMicro)
    throw new Rejection('order_value_above_maximum', `Order value ${value} above ${limits.maxNotionalMicro}.`);
}
