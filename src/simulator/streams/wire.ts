import type { Account } from '../accounts/account.ts';
import type { SimMarket } from '../catalogue/types.ts';
import { isoTime } from '../clock.ts';
import type { AccountEvent, BookLevel, MarketStatusEvent, PublicTrade } from '../events.ts';
import { toJson } from '../wire/json.ts';
import { renderFill, renderOrder } from '../wire/render/order.ts';
import { counterpartOf, renderPosition } from '../wire/render/portfolio.ts';
import { codeInfo, type ProblemCode } from '../problems.ts';
import type { Venue } from '../venue.ts';
import type { BookUpdate, LevelChange } from './book-feed.ts';
import type { ErrorAction } from './protocol.ts';

/** The `data` of every frame, as JSON text. Book frames are built by hand: they are most of the traffic. */

function levelsJson(levels: BookLevel[]): string {
  let out = '[';
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i] as BookLevel;
    out += `${i ? ',' : ''}{"price_micro":"${l.priceMicro}","shares_micro":"${l.sharesMicro}"}`;
  }
  return `${out}]`;
}

function changesJson(changes: LevelChange[]): string {
  return `[${changes.map((c) => `{"side":"${c.side}","price_micro":"${c.priceMicro}","shares_micro":"${c.sharesMicro}"}`).join(',')}]`;
}

interface BookRef {
  tokenId: string;
  conditionId: string;
  marketId: string;
  sequence: number;
}

function bookHead(kind: string, ref: BookRef): string {
  return `{"kind":"${kind}","token_id":"${ref.tokenId}","condition_id":"${ref.conditionId}","market_id":"${ref.marketId}","sequence":${ref.sequence}`;
}

/** A replacement of the whole ladder; `initial` marks the one sent right after a subscription. */
export function snapshotData(ref: BookRef, bids: BookLevel[], asks: BookLevel[], initial = false): string {
  return `${bookHead('snapshot', ref)}${initial ? ',"initial":true' : ''},"bids":${levelsJson(bids)},"asks":${levelsJson(asks)}}`;
}

export function deltaData(update: BookUpdate): string {
  return `${bookHead('delta', update)},"changes":${changesJson(update.changes)}}`;
}

const priceOrNull = (p: bigint | undefined): string => (p === undefined ? 'null' : `"${p}"`);

export function bestQuoteData(ref: BookRef, bids: BookLevel[], asks: BookLevel[]): string {
  return `${bookHead('best_quote', ref)},"best_bid_micro":${priceOrNull(bids[0]?.priceMicro)},"best_ask_micro":${priceOrNull(asks[0]?.priceMicro)}}`;
}

export function tradeData(trade: PublicTrade, market: SimMarket | undefined): string {
  return toJson({
    kind: 'trade',
    trade_id: trade.tradeId,
    fill_id: trade.fillId,
    token_id: trade.tokenId,
    condition_id: trade.conditionId,
    market_id: market?.id,
    side: trade.side,
    price_micro: trade.priceMicro,
    shares_micro: trade.sharesMicro,
    executed_at: isoTime(trade.executedAtMs),
  });
}

export function statusData(e: MarketStatusEvent): string {
  return toJson(statusRecord(e));
}

/** A status event as frames and the ground-truth log carry it. */
export function statusRecord(e: MarketStatusEvent): Record<string, unknown> {
  return { kind: e.kind, event_id: e.eventId, market_id: e.marketId, condition_id: e.conditionId, ...e.detail };
}

/** Account frames (§6.3) for one venue account event, in the order they are sent. */
export function accountFrames(venue: Venue, account: Account, e: AccountEvent): Array<Record<string, unknown>> {
  switch (e.kind) {
    case 'order_accepted':
    case 'order_rejected':
      return [{ kind: e.kind, order: renderOrder(e.order) }];
    case 'order_cancelled':
      return [{ kind: e.kind, reason: e.reason, order: renderOrder(e.order) }];
    case 'fill':
      return [{ kind: 'fill', fill: renderFill(e.fill) }, positionFrame(venue, account, e.fill.tokenId)];
    case 'redemption':
      return [
        {
          kind: 'position_redeemed',
          condition_id: e.conditionId,
          token_id: e.tokenId,
          shares_micro: e.sharesMicro,
          resolution_price_micro: e.resolutionPriceMicro,
          payout_micro: e.payoutMicro,
          redeemed_at: isoTime(e.atMs),
        },
        positionFrame(venue, account, e.tokenId),
      ];
    case 'balance':
      return e.tokenIds.map((t) => positionFrame(venue, account, t));
  }
}

/** The position as the positions read shows it; a closed one is sent once with zero shares. */
function positionFrame(venue: Venue, account: Account, tokenId: string): Record<string, unknown> {
  const position = account.position(tokenId);
  if (!position) return { kind: 'position_updated', position: { token_id: tokenId, shares_micro: 0n } };
  return {
    kind: 'position_updated',
    position: renderPosition(venue, position, counterpartOf(venue, account, position)),
  };
}

/** An error frame's data: the failure object of §2.2 plus what the client should do. */
export function errorData(
  code: ProblemCode,
  detail: string,
  action: ErrorAction,
  extra: Record<string, unknown> = {},
): string {
  const info = codeInfo(code);
  return toJson({
    failure: { code, title: info.title, detail, recovery: { strategy: info.strategy } },
    action,
    ...extra,
  });
}
