import WebSocket from 'ws';
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

export interface WebSocketTransportOptions {
  /** ws:// or wss:// URL of the socket (`/trade/v1/market-stream`, `/trade/v1/account-stream`). */
  url: string;
  /** Sent as `Authorization: Bearer …` when present. */
  token?: Secret | null;
  /** Larger frames close the connection (code 1009) rather than exhaust memory. */
  maxFrameBytes?: number;
  handshakeTimeoutMs?: number;
}

/** Opens single WebSocket connections; the reconnect loop decides when. */
export class WebSocketTransport implements Transport {
  readonly name: string;

  constructor(private readonly options: WebSocketTransportOptions) {
    this.name = new URL(options.url).pathname;
  }

  open(sink: MessageSink, signal: AbortSignal): Promise<OpenConnection> {
    const { url, token, maxFrameBytes = 16 * 1024 * 1024, handshakeTimeoutMs = 10_000 } = this.options;
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token.reveal()}` } : {};
    const socket = new WebSocket(url, {
      headers,
      maxPayload: maxFrameBytes,
      handshakeTimeout: handshakeTimeoutMs,
      followRedirects: false,
    });
    let lastError = '';
    const ended = new Promise<{ detail: string }>((resolve) => {
      socket.once('close', (code, reason) => {
        const why = reason.length ? reason.toString() : lastError;
        resolve({ detail: `closed with code ${code}${why ? ` (${why})` : ''}` });
      });
    });
    socket.on('message', (data: WebSocket.RawData) => sink.message(rawText(data)));
    return new Promise<OpenConnection>((resolve, reject) => {
      const onAbort = (): void => socket.terminate();
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('unexpected-response', (request, response) => {
        request.on('error', () => undefined);
        socket.on('error', () => undefined);
        // followRedirects is off, so a redirect ends here: the token never goes to its target.
        if (isRedirect(response.statusCode ?? 0)) {
          response.resume();
          reject(new RedirectRefused(response.statusCode ?? 0, response.headers.location, url));
          return;
        }
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (body.length < 2048) body += chunk;
        });
        response.on('end', () => {
          reject(
            new ConnectRefused(
              response.statusCode ?? 0,
              parseRetryAfter(response.headers['retry-after']) ?? null,
              body.slice(0, 2048),
            ),
          );
        });
        response.on('error', () =>
          reject(
            new ConnectRefused(response.statusCode ?? 0, parseRetryAfter(response.headers['retry-after']) ?? null, ''),
          ),
        );
      });
      // After the open, errors always end in 'close', which resolves `ended` with the error's text.
      socket.on('error', (err) => {
        lastError = err.message;
        reject(err);
      });
      socket.once('open', () => {
        signal.removeEventListener('abort', onAbort);
        resolve({
          ended,
          send: (text) => {
            if (socket.readyState === WebSocket.OPEN) socket.send(text);
          },
          close: () => socket.terminate(),
          pause: () => socket.pause(),
          resume: () => socket.resume(),
        });
      });
    });
  }
}

function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
