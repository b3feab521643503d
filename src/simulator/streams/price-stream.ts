import type { ServerResponse } from 'node:http';
import type { Prng } from '../prng.ts';
import { openConnection, type StreamSettings } from './connection.ts';
import type { StreamEndpoint } from './protocol.ts';
import { SseConnection } from './sse-connection.ts';

/** Reference prices of the assets the recurring events observe. */
export const PRICE_SYMBOLS: Record<string, number> = { BTC: 97_000, ETH: 3_400 };

interface PriceConnection {
  conn: SseConnection;
  symbols: string[];
}

/**
 * A price feed over SSE (`/api/v1/prices/stream`, `/api/v1/prices/oracle-pro/stream`), when the
 * deployment offers one: every `intervalMs`, one `price` event per subscribed symbol, each price a
 * seeded random walk shared by every subscriber, written with `decimals` decimals.
 */
export class PriceStream {
  readonly #connections = new Set<PriceConnection>();
  readonly #prices = new Map<string, number>(Object.entries(PRICE_SYMBOLS));
  #nextMs: number;

  constructor(
    private readonly endpoint: StreamEndpoint,
    private readonly source: string,
    private readonly settings: StreamSettings,
    private readonly rng: Prng,
    private readonly intervalMs: number,
    /** Decimals of the prices it writes. */
    private readonly decimals: number,
  ) {
    this.#nextMs = settings.clock.now();
  }

  get connections(): SseConnection[] {
    return [...this.#connections].map((c) => c.conn);
  }

  /** Symbols subscribed over the open connections (the shared symbol budget counts them). */
  symbolsHeld(): number {
    let held = 0;
    for (const entry of this.#connections) if (!entry.conn.closed) held += entry.symbols.length;
    return held;
  }

  /** The symbols a `symbols=` query names, or the first unknown one. */
  static parseSymbols(query: string | null): { symbols: string[] } | { unknown: string } {
    if (!query) return { symbols: Object.keys(PRICE_SYMBOLS) };
    const symbols = query
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean);
    const unknown = symbols.find((s) => !(s in PRICE_SYMBOLS));
    return unknown === undefined ? { symbols } : { unknown };
  }

  accept(res: ServerResponse, ip: string, symbols: string[]): SseConnection {
    const entry: PriceConnection = {
      conn: new SseConnection(
        res,
        openConnection(this.settings, this.endpoint, ip, () => ({ symbols })),
      ),
      symbols,
    };
    this.#connections.add(entry);
    res.on('close', () => this.#connections.delete(entry));
    return entry.conn;
  }

  tick(nowMs: number): void {
    if (nowMs >= this.#nextMs) {
      for (; this.#nextMs <= nowMs; this.#nextMs += this.intervalMs) this.#step();
      for (const entry of this.#connections) for (const symbol of entry.symbols) this.#send(entry, symbol, nowMs);
    }
    for (const entry of this.#connections) entry.conn.tick(nowMs);
  }

  #step(): void {
    for (const [symbol, price] of this.#prices)
      this.#prices.set(symbol, Math.max(0.01, price * (1 + this.rng.normal() * 0.0005)));
  }

  #send(entry: PriceConnection, symbol: string, nowMs: number): void {
    const price = (this.#prices.get(symbol) ?? 0).toFixed(this.decimals);
    entry.conn.event(
      'price',
      () =>
        JSON.stringify({
          type: 'price',
          symbol,
          price,
          observed_at: new Date(nowMs).toISOString(),
          source: this.source,
        }),
      nowMs,
    );
  }
}
