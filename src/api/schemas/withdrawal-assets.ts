import { z } from 'zod';
import { chainId, integer, maybe, openEnum, text } from './common.ts';

/** One supported withdrawal chain and asset (§2.6). `min_checkout_usd` is a display string, not a `_micro`. */
export const SupportedAssetSchema = z.looseObject({
  address_type: maybe(openEnum(['EVM'])),
  chain_id: maybe(chainId),
  chain_name: maybe(text),
  chain_icon_url: maybe(text),
  min_checkout_usd: maybe(text),
  token: maybe(
    z.looseObject({
      address: maybe(text),
      decimals: maybe(integer),
      name: maybe(text),
      symbol: maybe(text),
    }),
  ),
});
export type SupportedAsset = z.infer<typeof SupportedAssetSchema>;

export const SupportedAssetsResponseSchema = z.looseObject({
  note: maybe(text),
  wallet_address: maybe(text),
  supported_assets: z.array(SupportedAssetSchema),
});
export type SupportedAssetsResponse = z.infer<typeof SupportedAssetsResponseSchema>;
