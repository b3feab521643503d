import type { IncomingMessage, ServerResponse } from 'node:http';
import { toJson } from '../wire/json.ts';

/**
 * §8.4 "Responses served from the CDN cache spend no budget": the public catalogue's GETs without
 * credentials are cached by full URL for `ttlMs`, as a CDN in front of the venue would. A hit is
 * answered before any limit is counted (edge window, service burst), with `Age` and
 * `X-Cache: HIT`; it is the stored answer, so it may be up to `ttlMs` old. Only 200s are stored.
 * Plain data: URL → stored answer.
 */

interface Stored {
  storedAtMs: number;
  text: string;
  headers: Record<string, string>;
}

const CACHEABLE = [/^\/api\/v1\/events(\/[^/]+(\/resolve)?)?$/, /^\/api\/v1\/categories$/, /^\/categories\/[^/]+$/];

export class CdnCache {
  readonly #stored = new Map<string, Stored>();
  hits = 0;

  constructor(readonly ttlMs: number) {}

  /** Whether a request can be answered from (or stored in) the cache. */
  covers(req: IncomingMessage, path: string): boolean {
    return (
      this.ttlMs > 0 &&
      req.method === 'GET' &&
      req.headers.authorization === undefined &&
      CACHEABLE.some((re) => re.test(path))
    );
  }

  /** Answers from the cache when it holds a fresh copy; true when it did. */
  serve(req: IncomingMessage, res: ServerResponse, nowMs: number): boolean {
    const key = req.url ?? '';
    const hit = this.#stored.get(key);
    if (!hit) return false;
    if (nowMs - hit.storedAtMs >= this.ttlMs) {
      this.#stored.delete(key);
      return false;
    }
    this.hits += 1;
    res.writeHead(200, {
      ...hit.headers,
      Age: String(Math.floor((nowMs - hit.storedAtMs) / 1000)),
      'X-Cache': 'HIT',
      'Content-Length': Buffer.byteLength(hit.text),
    });
    res.end(hit.text);
    return true;
  }

  /** Stores a 200 answer (as sent) and returns its headers with the cache's own. */
  store(req: IncomingMessage, body: unknown, headers: Record<string, string>, nowMs: number): Record<string, string> {
    const cached = {
      ...headers,
      'Content-Type': 'application/json',
      'Cache-Control': `public, max-age=${Math.max(1, Math.round(this.ttlMs / 1000))}`,
      'X-Cache': 'MISS',
    };
    this.#stored.set(req.url ?? '', { storedAtMs: nowMs, text: toJson(body), headers: cached });
    if (this.#stored.size > 10_000)
      for (const [key, stored] of this.#stored) if (nowMs - stored.storedAtMs >= this.ttlMs) this.#stored.delete(key);
    return cached;
  }
}
