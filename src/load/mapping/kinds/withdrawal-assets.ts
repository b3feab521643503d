import { arrayField, integer, objectField, payloadObject, text } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { MappedRow, Mapper } from '../types.ts';

/** The supported withdrawal assets as read (one record per read): one withdrawal_assets row per asset. */
export const withdrawalAssetsMapper: Mapper<'withdrawal_assets'> = {
  table: 'withdrawal_assets',
  map(record) {
    const p = record.payload;
    const observedAt = observedMs(record);
    const wallet = text(p, 'wallet_address');
    const note = text(p, 'note');
    return arrayField(p, 'supported_assets').map((entry, i): MappedRow => {
      const asset = payloadObject(entry, `supported_assets[${i}]`);
      const token = objectField(asset, 'token') ?? {};
      return {
        table: 'withdrawal_assets',
        row: {
          account: record.key,
          observed_at: observedAt,
          wallet_address: wallet,
          note,
          address_type: text(asset, 'address_type'),
          chain_id: text(asset, 'chain_id'),
          chain_name: text(asset, 'chain_name'),
          min_checkout_usd: text(asset, 'min_checkout_usd'),
          token_address: text(token, 'address'),
          token_symbol: text(token, 'symbol'),
          token_name: text(token, 'name'),
          token_decimals: integer(token, 'decimals') ?? null,
        },
      };
    });
  },
};
