import type { WebSocket } from 'ws';
import { StreamConnection, type ConnectionInit } from './connection.ts';
import { CLOSE_CODES } from './protocol.ts';

/** A stream connection over a WebSocket: one frame per text message. */
export class WsConnection extends StreamConnection {
  constructor(
    readonly ws: WebSocket,
    init: ConnectionInit,
  ) {
    super(init);
    ws.on('close', () => {
      this.closed = true;
    });
    // Protocol errors (an oversized or invalid client frame) close the socket with their code; nothing else to do.
    ws.on('error', () => undefined);
  }

  protected write(text: string): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    this.ws.send(text);
    // A client that does not read would grow the venue's memory without bound: it is cut off instead.
    if (this.ws.bufferedAmount > this.slowConsumerBytes) this.closeWith(CLOSE_CODES.slowConsumer, 'slow consumer');
    return true;
  }

  drop(): void {
    this.closed = true;
    this.ws.terminate();
  }

  closeWith(code: number, reason: string): void {
    this.closed = true;
    this.ws.close(code, reason);
  }
}
