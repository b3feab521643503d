import type { ServerResponse } from 'node:http';
import { StreamConnection, type ConnectionInit } from './connection.ts';

/** A stream connection over Server-Sent Events: `id:` is the frame number, `event:` its type. */
export class SseConnection extends StreamConnection {
  constructor(
    readonly res: ServerResponse,
    init: ConnectionInit,
  ) {
    super(init);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.on('close', () => {
      this.closed = true;
    });
  }

  /** One numbered event whose data is `json`. */
  event(type: string, json: (seq: number) => string, nowMs: number): void {
    if (this.closed) return;
    const seq = ++this.seq;
    this.emit(json(seq), type, seq, nowMs);
  }

  protected write(text: string, type: string, seq: number | undefined): boolean {
    if (this.res.writableEnded || this.res.destroyed) return false;
    this.res.write(`${seq === undefined ? '' : `id: ${seq}\n`}event: ${type}\ndata: ${text}\n\n`);
    if (this.res.writableLength > this.slowConsumerBytes) this.drop();
    return true;
  }

  /** A comment line: proof of life that is not an event (clients feed it to their silence watchdog). */
  protected override heartbeat(nowMs: number): void {
    if (!this.res.writableEnded && !this.res.destroyed)
      this.res.write(`: heartbeat ${new Date(nowMs).toISOString()}\n\n`);
  }

  drop(): void {
    this.closed = true;
    this.res.destroy();
  }

  /** SSE has no close codes: the stream ends. */
  closeWith(): void {
    this.closed = true;
    this.res.end();
  }
}
