import { createParser } from 'eventsource-parser';
import WebSocket from 'ws';
import type { SimulatorHandle } from '../src/simulator/index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = Record<string, any>;

/** Waits until `condition` holds, polling the event loop (frames arrive asynchronously; a condition may ask something
 * itself). */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 10_000,
): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A plain `ws` client that keeps every frame it receives, parsed when it parses. */
export class StreamClient {
  readonly frames: Frame[] = [];
  readonly raw: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #pings = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString();
      this.raw.push(text);
      try {
        this.frames.push(JSON.parse(text) as Frame);
      } catch {
        // Malformed frames stay in `raw` only.
      }
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static async connect(sim: SimulatorHandle, path = '/trade/v1/market-stream', token?: string): Promise<StreamClient> {
    const ws = new WebSocket(`${sim.wsUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const client = new StreamClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Subscribes and waits for the acknowledgement; returns it. */
  async subscribe(
    channels: string[],
    ids: { token_ids?: string[]; condition_ids?: string[]; event_ids?: string[] },
    op = 'subscribe',
  ): Promise<Frame> {
    const id = `sub-${this.frames.length}-${Math.random()}`;
    this.send({ op, id, channels, ...ids });
    const type = op === 'subscribe' ? 'subscribed' : 'unsubscribed';
    await until(() => this.frames.some((f) => f.type === type && f.data?.id === id), type);
    return this.frames.find((f) => f.type === type && f.data?.id === id) as Frame;
  }

  /**
   * Waits until every frame the venue sent before now has arrived: the venue answers a ping after
   * whatever it already wrote on this connection.
   */
  async sync(): Promise<void> {
    const id = `ping-${++this.#pings}`;
    this.send({ op: 'ping', id });
    await until(() => this.frames.some((f) => f.type === 'pong' && f.data?.id === id), 'pong');
  }

  of(type: string, kind?: string): Frame[] {
    return this.frames.filter((f) => f.type === type && (kind === undefined || f.data?.kind === kind));
  }

  close(): void {
    this.ws.close();
  }
}

/** A plain SSE reader: every event with its name, id and parsed data. */
export class SseClient {
  readonly events: Array<{ event: string | undefined; id: string | undefined; data: Frame }> = [];
  readonly comments: string[] = [];
  readonly #abort = new AbortController();

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: Frame | undefined,
  ) {}

  static async connect(url: string, token?: string): Promise<SseClient> {
    const abort = new AbortController();
    const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: abort.signal });
    if (res.status !== 200 || !res.body) {
      const text = await res.text();
      return new SseClient(res.status, res.headers, text ? (JSON.parse(text) as Frame) : undefined);
    }
    const client = new SseClient(res.status, res.headers, undefined);
    client.#abort.signal.addEventListener('abort', () => abort.abort());
    const parser = createParser({
      onEvent: (e) => client.events.push({ event: e.event, id: e.id, data: JSON.parse(e.data) as Frame }),
      onComment: (c) => client.comments.push(c),
    });
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // Aborted or dropped: the test looks at what arrived.
      }
    })();
    return client;
  }

  close(): void {
    this.#abort.abort();
  }
}

/** A WebSocket attempt the venue answered with HTTP instead of a socket: status, headers, parsed body. */
export interface Refused {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Frame;
}

/** Attempts a WebSocket connection; resolves with the refusal, or with `opened` (the socket is closed again). */
export function attempt(sim: SimulatorHandle, path: string, token?: string): Promise<Refused | 'opened'> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${sim.wsUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    ws.on('open', () => {
      ws.close();
      resolve('opened');
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Frame) : {} });
        ws.terminate();
      });
    });
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}
