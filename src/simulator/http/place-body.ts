import type { PlaceRequest } from '../engine/place-request.ts';
import type { OrderType, Side, TimeInForce } from '../orders.ts';
import { validationFailed, type FieldError } from '../problems.ts';

/** Type checks of an order placement body (§2.1 fields, plus the market-buy budget; README). */
export function parsePlaceBody(body: unknown, pathPrefix: Array<string | number> = []): PlaceRequest {
  const errors: FieldError[] = [];
  const at = (field: string): Array<string | number> => [...pathPrefix, field];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationFailed([{ path: pathPrefix, code: 'not_an_object', message: 'The order must be a JSON object.' }]);
  }
  const b = body as Record<string, unknown>;
  const enumOf = <T extends string>(field: string, values: readonly T[], required: boolean): T | undefined => {
    const v = b[field];
    if (v === undefined && !required) return undefined;
    if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
    errors.push({
      path: at(field),
      code: v === undefined ? 'required' : 'invalid_enum',
      message: `${field} must be one of ${values.join(', ')}.`,
    });
    return undefined;
  };
  const micro = (field: string): bigint | undefined => {
    const v = b[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string' && /^\d{1,24}$/.test(v)) return BigInt(v);
    errors.push({
      path: at(field),
      code: 'invalid_micro',
      message: `${field} must be a non-negative integer as a decimal string.`,
    });
    return undefined;
  };
  if (typeof b.token_id !== 'string' || b.token_id === '')
    errors.push({ path: at('token_id'), code: 'required', message: 'token_id is required.' });
  const side = enumOf<Side>('side', ['BUY', 'SELL'], true);
  const type = enumOf<OrderType>('type', ['LIMIT', 'MARKET'], true);
  const tif = enumOf<TimeInForce>('time_in_force', ['GTC', 'GTD', 'FOK', 'FAK'], false);
  const priceMicro = micro('price_micro');
  const sharesMicro = micro('shares_micro');
  const collateralAmountMicro = micro('collateral_amount_micro');
  if (b.post_only !== undefined && typeof b.post_only !== 'boolean')
    errors.push({ path: at('post_only'), code: 'invalid_boolean', message: 'post_only must be a boolean.' });
  const exp = b.expiration_unix_seconds;
  if (exp !== undefined && !(typeof exp === 'number' && Number.isSafeInteger(exp) && exp > 0)) {
    errors.push({
      path: at('expiration_unix_seconds'),
      code: 'invalid_integer',
      message: 'expiration_unix_seconds must be a positive integer.',
    });
  }
  if (errors.length > 0 || !side || !type) throw validationFailed(errors);
  return {
    tokenId: b.token_id as string,
    side,
    type,
    timeInForce: tif ?? (type === 'MARKET' ? 'FAK' : 'GTC'),
    postOnly: b.post_only === true,
    priceMicro,
    sharesMicro,
    collateralAmountMicro,
    expirationUnixSeconds: exp as number | undefined,
  };
}
