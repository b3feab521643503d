import type { StreamEndpoint } from './protocol.ts';

const WINDOW_MS = 60_000;

/**
 * §8.5: each stream endpoint allows N connection attempts per IP per sliding 60 s, failed ones
 * (refused credentials, unconfigured feeds, dropped handshakes) included. An attempt refused by
 * this limit itself is not counted, so a client that waits out `Retry-After: 60` gets back in.
 */
export class ConnectionAttempts {
  readonly #attempts = new Map<string, number[]>();

  constructor(private readonly perMinute: number) {}

  /** Counts the attempt and says whether it is within the limit. */
  admit(ip: string, endpoint: StreamEndpoint, nowMs: number): boolean {
    const key = `${ip}|${endpoint}`;
    const times = (this.#attempts.get(key) ?? []).filter((t) => t > nowMs - WINDOW_MS);
    this.#attempts.set(key, times);
    if (times.length >= this.perMinute) return false;
    times.push(nowMs);
    return true;
  }
}
