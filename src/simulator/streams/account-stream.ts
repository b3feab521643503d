import type { WebSocket } from 'ws';
import type { Account } from '../accounts/account.ts';
import type { AccessToken } from '../accounts/registry.ts';
import type { AccountEvent } from '../events.ts';
import { toJson } from '../wire/json.ts';
import type { Venue } from '../venue.ts';
import { parseClientMessage } from './client-message.ts';
import { frameTail } from './envelope.ts';
import { openConnection, type StreamSettings } from './connection.ts';
import { ACCOUNT_CHANNEL, CLOSE_CODES } from './protocol.ts';
import { accountFrames, errorData } from './wire.ts';
import { WsConnection } from './ws-connection.ts';

interface AccountConnection {
  conn: WsConnection;
  token: AccessToken;
  subscribed: boolean;
}

const COLLATERAL_REASON: Record<AccountEvent['kind'], string | undefined> = {
  fill: 'FILL',
  redemption: 'REDEMPTION',
  balance: undefined,
  order_accepted: undefined,
  order_rejected: undefined,
  order_cancelled: undefined,
};

/**
 * The private account socket (§6.3): one account's order, fill, position, redemption and
 * collateral frames, on the channel `account_events`, subscribed from the moment it opens.
 */
export class AccountStream {
  readonly #byAccount = new Map<string, Set<AccountConnection>>();
  /** Collateral last announced per watched account: a collateral frame carries the change since. */
  readonly #lastCash = new Map<string, bigint>();

  constructor(
    private readonly venue: Venue,
    private readonly settings: StreamSettings,
  ) {
    venue.events.on('account', (e) => this.#onEvent(e));
  }

  get connections(): WsConnection[] {
    return [...this.#byAccount.values()].flatMap((set) => [...set].map((a) => a.conn));
  }

  accept(ws: WebSocket, ip: string, token: AccessToken, account: Account): WsConnection {
    const now = this.settings.clock.now();
    const entry: AccountConnection = {
      conn: new WsConnection(
        ws,
        openConnection(this.settings, 'account', ip, () => ({
          account_id: account.id,
          subjects: entry.subscribed ? [{ channel: ACCOUNT_CHANNEL }] : [],
        })),
      ),
      token,
      subscribed: true,
    };
    const set = this.#byAccount.get(account.id) ?? new Set();
    set.add(entry);
    this.#byAccount.set(account.id, set);
    if (!this.#lastCash.has(account.id)) this.#lastCash.set(account.id, account.collateralMicro);
    ws.on('message', (data, isBinary) => this.#onMessage(entry, isBinary ? '' : data.toString()));
    ws.on('close', () => {
      set.delete(entry);
      if (set.size === 0) {
        this.#byAccount.delete(account.id);
        this.#lastCash.delete(account.id);
      }
    });
    this.#ack(entry, 'subscribed', undefined, now);
    return entry.conn;
  }

  /** Fault: the connection stops receiving account frames until it subscribes again. */
  unsubscribe(conn: WsConnection): void {
    for (const set of this.#byAccount.values())
      for (const entry of set) if (entry.conn === conn) entry.subscribed = false;
  }

  tick(nowMs: number): void {
    for (const set of this.#byAccount.values()) {
      for (const entry of set) {
        // A revoked token loses its stream as it loses its REST access.
        if (entry.token.revokedAtMs !== undefined)
          entry.conn.closeWith(CLOSE_CODES.credentialsRevoked, 'credentials revoked');
        else entry.conn.tick(nowMs);
      }
    }
  }

  #ack(
    entry: AccountConnection,
    type: 'subscribed' | 'unsubscribed',
    id: string | number | undefined,
    nowMs: number,
  ): void {
    const data = JSON.stringify({
      id,
      connection_id: entry.conn.id,
      as_of: new Date(nowMs).toISOString(),
      channels: [ACCOUNT_CHANNEL],
    });
    entry.conn.send(type, frameTail(nowMs, data), nowMs);
  }

  #onMessage(entry: AccountConnection, raw: string): void {
    const now = this.settings.clock.now();
    const msg = parseClientMessage(raw, [ACCOUNT_CHANNEL], false);
    if ('code' in msg)
      return entry.conn.send('error', frameTail(now, errorData(msg.code, msg.detail, 'keep', { id: msg.id })), now);
    if (msg.op === 'ping') return entry.conn.send('pong', frameTail(now, JSON.stringify({ id: msg.id })), now);
    entry.subscribed = msg.op === 'subscribe';
    this.#ack(entry, msg.op === 'subscribe' ? 'subscribed' : 'unsubscribed', msg.id, now);
  }

  #onEvent(e: AccountEvent): void {
    const set = this.#byAccount.get(e.accountId);
    const account = this.venue.accounts.get(e.accountId);
    if (!set || !account) return;
    const frames = accountFrames(this.venue, account, e);
    const cash = account.collateralMicro;
    const last = this.#lastCash.get(account.id) ?? cash;
    if (cash !== last) {
      frames.push({
        kind: 'collateral_updated',
        reason: e.kind === 'balance' ? e.reason : COLLATERAL_REASON[e.kind],
        change_micro: cash - last,
        cash_balance_micro: cash,
      });
      this.#lastCash.set(account.id, cash);
    }
    const tails = frames.map((f) => frameTail(e.atMs, toJson(f)));
    for (const entry of set) {
      if (!entry.subscribed) continue;
      for (const tail of tails) entry.conn.send(ACCOUNT_CHANNEL, tail, e.atMs);
    }
  }
}
