import type { SupportedAssetsResponse } from '../api/schemas/withdrawal-assets.ts';
import type { Wire } from './json.ts';
import { list, loose, scalar } from './schema.ts';

/** What a `withdrawal_assets` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type WithdrawalAssetsSource = SupportedAssetsResponse;

/**
 * `withdrawal_assets` — sync.withdrawal_assets; stored in `withdrawal_assets`, one row per asset. The whole answer.
 * Made by the `withdrawal-assets` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type WithdrawalAssetsPayload = Wire<WithdrawalAssetsSource>;

/** A `withdrawal_assets` payload at the bus boundary: the assets (each checked by the loader), the wallet and note. */
export const withdrawalAssetsSchema = loose({ wallet_address: scalar, note: scalar, supported_assets: list });
