import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Account } from '../accounts/account.ts';
import { toJson } from '../wire/json.ts';
import { counterpartOf, openPositions, renderPosition, renderSummary } from '../wire/render/portfolio.ts';
import type { Venue } from '../venue.ts';
import { openConnection, type StreamSettings } from './connection.ts';
import { SseConnection } from './sse-connection.ts';

interface PortfolioConnection {
  conn: SseConnection;
  account: Account;
  streamId: string;
  dirty: boolean;
  nextSyncMs: number;
}

/**
 * The portfolio stream (§6.4): `portfolio.sync` events with the full positions and summary — on
 * connect, after any change of the account (coalesced to one per housekeeping tick), and at
 * least every `syncEveryMs` (marks move values without the account doing anything).
 */
export class PortfolioStream {
  readonly #connections = new Set<PortfolioConnection>();

  constructor(
    private readonly venue: Venue,
    private readonly settings: StreamSettings,
    private readonly syncEveryMs: number,
    /** True while positions reads report the exchange unavailable (a fault). */
    private readonly positionsUnavailable: () => boolean,
  ) {
    venue.events.on('account', (e) => {
      for (const c of this.#connections) if (c.account.id === e.accountId) c.dirty = true;
    });
  }

  get connections(): SseConnection[] {
    return [...this.#connections].map((c) => c.conn);
  }

  accept(res: ServerResponse, ip: string, account: Account): SseConnection {
    const now = this.settings.clock.now();
    const streamId = randomUUID();
    const entry: PortfolioConnection = {
      conn: new SseConnection(
        res,
        openConnection(this.settings, 'portfolio', ip, () => ({ account_id: account.id, stream_id: streamId })),
      ),
      account,
      streamId,
      dirty: false,
      nextSyncMs: now,
    };
    this.#connections.add(entry);
    res.on('close', () => this.#connections.delete(entry));
    this.#sync(entry, now);
    return entry.conn;
  }

  tick(nowMs: number): void {
    for (const entry of this.#connections) {
      if (entry.dirty || nowMs >= entry.nextSyncMs) this.#sync(entry, nowMs);
      entry.conn.tick(nowMs);
    }
  }

  #sync(entry: PortfolioConnection, nowMs: number): void {
    entry.dirty = false;
    entry.nextSyncMs = nowMs + this.syncEveryMs;
    const { account } = entry;
    const asOf = new Date(nowMs).toISOString();
    const positions = this.positionsUnavailable()
      ? { as_of: asOf, positions: [], unavailable_exchanges: ['SERVICE'] }
      : {
          as_of: asOf,
          positions: openPositions(account).map((p) =>
            renderPosition(this.venue, p, counterpartOf(this.venue, account, p)),
          ),
          unavailable_exchanges: [],
        };
    const summary = { summaries: [renderSummary(this.venue, account, nowMs)] };
    entry.conn.event(
      'portfolio.sync',
      (seq) => toJson({ type: 'portfolio.sync', seq: String(seq), stream_id: entry.streamId, positions, summary }),
      nowMs,
    );
  }
}
