import type { LedgerFill } from './ledger-events.ts';
import type { TokenFigures } from './ledger.ts';

/** Words for people: amounts in units, the fills and redemptions behind a position. */

/** A micro-unit amount in units, exact: 2500000 → "2.50", 455000 → "0.455", -10 → "-0.00001". */
export function formatUnits(micro: bigint): string {
  const sign = micro < 0n ? '-' : '';
  const digits = (micro < 0n ? -micro : micro).toString().padStart(7, '0');
  const fraction = digits.slice(-6).replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${digits.slice(0, -6)}.${fraction}`;
}

export const formatShares = formatUnits;

export function isoTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : ms < 0 ? 'the start' : 'now';
}

export function describeFill(fill: LedgerFill): string {
  const fee = fill.feeMicro > 0n ? ` fee ${formatUnits(fill.feeMicro)}` : '';
  return `${fill.side} ${formatShares(fill.sharesMicro)} @ ${formatUnits(fill.priceMicro)}${fee} ${fill.role || 'TAKER'} ${isoTime(fill.atMs)} (fill ${fill.fillId}, order ${fill.orderId})`;
}

/** The fills (the last `limit` of them) and redemptions that make a token's position. */
export function explainPosition(token: TokenFigures | undefined, limit = 12): string {
  if (!token) return 'no fills of this token in the warehouse';
  const parts = [
    `${token.fills.length} fills: bought ${formatShares(token.boughtSharesMicro)} for ${formatUnits(token.boughtCostMicro)}, sold ${formatShares(token.soldSharesMicro)} for ${formatUnits(token.soldProceedsMicro)}`,
  ];
  if (token.splitSharesMicro > 0n) parts.push(`split ${formatShares(token.splitSharesMicro)}`);
  if (token.mergedSharesMicro > 0n) parts.push(`merged ${formatShares(token.mergedSharesMicro)}`);
  for (const r of token.redemptions)
    parts.push(
      `redeemed ${formatShares(r.sharesMicro)} at ${formatUnits(r.resolutionPriceMicro)} for ${formatUnits(r.payoutMicro)} ${isoTime(r.atMs)}`,
    );
  if (token.oversoldMicro > 0n) parts.push(`sold ${formatShares(token.oversoldMicro)} more than the fills had bought`);
  const shown = token.fills.slice(-limit);
  const skipped = token.fills.length - shown.length;
  return `${parts.join('; ')}. ${skipped > 0 ? `Last ${shown.length}: ` : ''}${shown.map(describeFill).join('; ')}`;
}
