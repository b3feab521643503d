import { createParser } from 'eventsource-parser';
import { request, type Dispatcher } from 'undici';
import type { Secret } from '../util/secret.ts';
import {
  ConnectRefused,
  isRedirect,
  RedirectRefused,
  type MessageSink,
  type OpenConnection,
  type Transport,
} from './transport.ts';
import { parseRetryAfter } from '../util/retry-after.ts';

export interface SseTransportOptions {
  /** http(s) URL of the event stream (`/trade/v1/portfolio/stream`). */
  url: string;
  token?: Secret | null;
  /** One event larger than this ends the connection rather than exhaust memory. */
  maxEventBytes?: number;
  dispatcher?: Dispatcher;
}

/** Opens single Server-Sent-Events connections; each event's `data` is one frame. */
export class SseTransport implements Transport {
  readonly name: string;

  constructor(private readonly options: SseTransportOptions) {
    this.name = new URL(options.url).pathname;
  }

  async open(sink: MessageSink, signal: AbortSignal): Promise<OpenConnection> {
    const { url, token, maxEventBytes = 16 * 1024 * 1024, dispatcher } = this.options;
    const local = new AbortController();
    const onAbort = (): void => local.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (token) headers.authorization = `Bearer ${token.reveal()}`;
    // undici's request follows no redirect (no redirect interceptor): the token goes to this origin only.
    const response = await request(url, { method: 'GET', headers, signal: local.signal, dispatcher }).catch(
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        throw err;
      },
    );
    signal.removeEventListener('abort', onAbort);
    if (isRedirect(response.statusCode)) {
      await response.body.dump().catch(() => undefined);
      throw new RedirectRefused(response.statusCode, response.headers.location, url);
    }
    if (response.statusCode !== 200) {
      const body = (await response.body.text().catch(() => '')).slice(0, 2048);
      throw new ConnectRefused(response.statusCode, parseRetryAfter(response.headers['retry-after']) ?? null, body);
    }
    let closeDetail = 'stream ended by the server';
    const parser = createParser({
      onEvent: (event) => sink.message(event.data, event.id),
      onComment: () => sink.activity(),
    });
    // While paused the body is not read: the venue's bytes wait in the network buffers.
    const gate: { paused: { until: Promise<void>; resume: () => void } | null } = { paused: null };
    const ended = (async () => {
      let pending = 0;
      // A streaming decoder keeps a character split across chunks whole.
      const decoder = new TextDecoder('utf-8');
      try {
        for await (const chunk of response.body) {
          if (gate.paused) await gate.paused.until;
          const text = decoder.decode(chunk as Buffer, { stream: true });
          pending = text.includes('\n\n') ? 0 : pending + text.length;
          if (pending > maxEventBytes) {
            closeDetail = `event larger than ${maxEventBytes} bytes`;
            break;
          }
          parser.feed(text);
        }
      } catch (err) {
        if (!local.signal.aborted) closeDetail = `stream failed: ${(err as Error).message}`;
      } finally {
        response.body.destroy();
      }
      return { detail: closeDetail };
    })();
    return {
      ended,
      send: () => undefined,
      close: (detail) => {
        closeDetail = detail;
        gate.paused?.resume();
        local.abort(new Error(detail));
      },
      pause: () => {
        if (gate.paused) return;
        let resume = (): void => undefined;
        const until = new Promise<void>((r) => (resume = r));
        gate.paused = { until, resume };
      },
      resume: () => {
        const was = gate.paused;
        gate.paused = null;
        was?.resume();
      },
    };
  }
}
