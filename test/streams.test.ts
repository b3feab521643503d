import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { ConnectionBudget, ConnectionBudgets } from '../src/streams/connection-budget.ts';
import { ReconnectingStream } from '../src/streams/reconnecting-stream.ts';
import { SseTransport } from '../src/streams/sse-transport.ts';
import { WebSocketTransport } from '../src/streams/websocket-transport.ts';
import type { AttemptFailure, CoverageLoss, Frame, StreamHandlers } from '../src/streams/types.ts';
import { Secret } from '../src/util/secret.ts';
import { ManualClock } from '../src/util/clock.ts';

/** Records everything a stream hands to capture, and lets a test wait for a condition. */
class Recorder implements StreamHandlers {
  frames: Frame[] = [];
  losses: CoverageLoss[] = [];
  failures: AttemptFailure[] = [];
  opens: string[] = [];
  constructor(private readonly onOpenSend?: unknown) {}
  onOpen = (session: { connectionId: string; send(m: unknown): void }) => {
    this.opens.push(session.connectionId);
    if (this.onOpenSend !== undefined) session.send(this.onOpenSend);
  };
  onFrame = (frame: Frame) => void this.frames.push(frame);
  onCoverageLost = (loss: CoverageLoss) => void this.losses.push(loss);
  onAttemptFailed = (failure: AttemptFailure) => void this.failures.push(failure);
}

async function until(condition: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** A refusal of an upgrade: status and headers to answer with, or null to accept it. */
type Refusal = { status: number; headers: Record<string, string> } | null;

async function wsServer(
  onConnection: (socket: WebSocket, authorization: string | undefined) => void,
  refuse?: () => Refusal,
) {
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    const refusal = refuse?.() ?? null;
    if (refusal) {
      const body = '{"code":"rate_limited"}';
      const headers = Object.entries(refusal.headers).map(([k, v]) => `${k}: ${v}`);
      socket.end(
        [
          `HTTP/1.1 ${refusal.status} Refused`,
          ...headers,
          `content-length: ${body.length}`,
          'connection: close',
          '',
          body,
        ].join('\r\n'),
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req.headers.authorization));
  });
  const port = await listen(http);
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        http.close(() => r());
      }),
  );
  return `ws://127.0.0.1:${port}/trade/v1/market-stream`;
}

function stream(
  url: string,
  recorder: Recorder,
  options: { silenceMs?: number; token?: Secret; budget?: ConnectionBudget } = {},
) {
  const s = new ReconnectingStream(
    new WebSocketTransport({ url, token: options.token ?? null, maxFrameBytes: 1024 }),
    recorder,
    {
      budget: options.budget ?? new ConnectionBudget(),
      silenceMs: options.silenceMs ?? 5_000,
      baseDelayMs: 20,
      maxDelayMs: 100,
    },
  );
  s.start();
  cleanups.push(() => s.stop());
  return s;
}

describe('WebSocket stream', () => {
  it('delivers frames numbered per connection, sends the subscription on open, and carries the token', async () => {
    const received: string[] = [];
    let auth: string | undefined;
    const url = await wsServer((socket, authorization) => {
      auth = authorization;
      socket.on('message', (m) => {
        received.push(m.toString());
        socket.send('{"type":"heartbeat"}');
        socket.send('{"type":"trade","n":1}');
      });
    });
    const recorder = new Recorder({ type: 'subscribe', channels: ['trades'] });
    stream(url, recorder, { token: new Secret('tok-123') });
    await until(() => recorder.frames.length === 2, 'two frames');
    expect(received).toEqual(['{"type":"subscribe","channels":["trades"]}']);
    expect(auth).toBe('Bearer tok-123');
    expect(recorder.frames.map((f) => [f.frameNo, f.raw])).toEqual([
      [0, '{"type":"heartbeat"}'],
      [1, '{"type":"trade","n":1}'],
    ]);
    expect(new Set(recorder.frames.map((f) => f.connectionId))).toEqual(new Set([recorder.opens[0]]));
    expect(recorder.frames[1]!.receivedAtUs).toBeGreaterThanOrEqual(recorder.frames[0]!.receivedAtUs);
  });

  it('treats silence past the tolerance as lost coverage and reconnects on a new connection', async () => {
    let connections = 0;
    const url = await wsServer((socket) => {
      connections += 1;
      if (connections === 1) socket.send('{"type":"heartbeat"}'); // then nothing at all
    });
    const recorder = new Recorder();
    stream(url, recorder, { silenceMs: 150 });
    await until(() => recorder.opens.length >= 2, 'a second connection');
    const loss = recorder.losses[0]!;
    expect(loss.reason).toBe('silent');
    expect(loss.connectionId).toBe(recorder.opens[0]);
    expect(loss.lastFrameAtUs).toBe(recorder.frames[0]!.receivedAtUs);
    expect(recorder.opens[1]).not.toBe(recorder.opens[0]);
  });

  it('reports a server close once, with the last frame as the last instant covered', async () => {
    let connections = 0;
    const url = await wsServer((socket) => {
      connections += 1;
      if (connections === 1) {
        socket.send('{"n":1}');
        socket.send('{"n":2}', () => socket.close(1011, 'restart'));
      }
    });
    const recorder = new Recorder();
    stream(url, recorder);
    await until(() => recorder.opens.length >= 2, 'reconnect');
    expect(recorder.losses).toHaveLength(1);
    expect(recorder.losses[0]!.reason).toBe('closed');
    expect(recorder.losses[0]!.detail).toContain('1011');
    expect(recorder.losses[0]!.lastFrameAtUs).toBe(recorder.frames[1]!.receivedAtUs);
  });

  it("numbers connections by their start: a reconnect's frames carry a larger number than the first connection's", async () => {
    let connections = 0;
    const url = await wsServer((socket) => {
      connections += 1;
      socket.send(`{"n":${connections}}`, () => {
        if (connections === 1) socket.close(1011, 'restart');
      });
    });
    const recorder = new Recorder();
    // Slack: the stream clock keeps within a millisecond of Date.now, not exactly on it.
    const before = BigInt(Date.now() - 1_000) * 1000n;
    stream(url, recorder);
    await until(() => recorder.frames.length >= 2, 'a frame on each of two connections');
    const [first, second] = recorder.frames;
    expect(first!.connectionId).not.toBe(second!.connectionId);
    // Its start in µs since the epoch (raised past the previous number): about when the test began.
    expect(BigInt(first!.connectionNo!)).toBeGreaterThanOrEqual(before);
    expect(second!.connectionNo!).toBeGreaterThan(first!.connectionNo!);
  });

  it('closes a connection whose frame is larger than the bound instead of buffering it', async () => {
    let connections = 0;
    const url = await wsServer((socket) => {
      connections += 1;
      if (connections === 1) socket.send('x'.repeat(4096));
    });
    const recorder = new Recorder();
    stream(url, recorder);
    await until(() => recorder.losses.length >= 1, 'the oversized frame to close the connection');
    expect(recorder.frames).toHaveLength(0);
    expect(recorder.losses[0]!.detail).toMatch(/1009|Max payload size exceeded/);
  });

  it('honours Retry-After on a refused upgrade: one attempt, then waits', async () => {
    let attempts = 0;
    const url = await wsServer(
      () => undefined,
      () => {
        attempts += 1;
        return { status: 429, headers: { 'retry-after': '60', 'content-type': 'application/json' } };
      },
    );
    const recorder = new Recorder();
    stream(url, recorder);
    await until(() => recorder.failures.length === 1, 'the refusal');
    await new Promise((r) => setTimeout(r, 300)); // many backoff steps of 20-100 ms would fit here
    expect(attempts).toBe(1);
    expect(recorder.failures[0]).toMatchObject({ status: 429, retryAfterSeconds: 60 });
    expect(recorder.losses).toHaveLength(0);
  });

  it('reports a stop as lost coverage with reason stopped, and does not reconnect', async () => {
    let connections = 0;
    const url = await wsServer((socket) => {
      connections += 1;
      socket.send('{"n":1}');
    });
    const recorder = new Recorder();
    const s = stream(url, recorder);
    await until(() => recorder.frames.length === 1, 'a frame');
    await s.stop();
    expect(recorder.losses.map((l) => l.reason)).toEqual(['stopped']);
    await new Promise((r) => setTimeout(r, 200));
    expect(connections).toBe(1);
  });
});

describe('connection attempt budget (§8.5)', () => {
  it('admits the budget within a minute, then waits for the window to slide', async () => {
    const clock = new ManualClock();
    const budget = new ConnectionBudget(300, clock);
    for (let i = 0; i < 300; i++) await budget.acquire();
    expect(clock.now()).toBe(0);
    await budget.acquire();
    expect(clock.now()).toBe(60_000);
  });

  it('a refusal blocks every connection of the endpoint for Retry-After', async () => {
    const clock = new ManualClock();
    const budgets = new ConnectionBudgets(280, clock);
    budgets.for('/trade/v1/market-stream').refusedFor(60);
    // Query parameters and a trailing slash share the path's budget.
    await budgets.for('/trade/v1/market-stream/?x=1').acquire();
    expect(clock.now()).toBe(60_000);
    await budgets.for('/trade/v1/account-stream').acquire();
    expect(clock.now()).toBe(60_000);
  });
});

describe('SSE stream', () => {
  async function sseServer(handler: (res: ServerResponse, n: number) => void) {
    let n = 0;
    const http = createServer((_req, res) => handler(res, ++n));
    const port = await listen(http);
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          http.closeAllConnections();
          http.close(() => r());
        }),
    );
    return `http://127.0.0.1:${port}/trade/v1/portfolio/stream`;
  }

  function sse(url: string, recorder: Recorder, silenceMs = 5_000) {
    const s = new ReconnectingStream(new SseTransport({ url, token: new Secret('t') }), recorder, {
      budget: new ConnectionBudget(),
      silenceMs,
      baseDelayMs: 20,
      maxDelayMs: 100,
    });
    s.start();
    cleanups.push(() => s.stop());
    return s;
  }

  it('delivers each event’s data as a frame, split across chunks and with multi-byte text', async () => {
    const url = await sseServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"portfolio.sync","seq":"1","label":"caf');
      setTimeout(() => res.write('é"}\n\n: keep-alive\n\ndata: {"seq":"2"}\n\n'), 20);
    });
    const recorder = new Recorder();
    sse(url, recorder);
    await until(() => recorder.frames.length === 2, 'two events');
    expect(recorder.frames.map((f) => JSON.parse(f.raw).seq)).toEqual(['1', '2']);
    expect(JSON.parse(recorder.frames[0]!.raw).label).toBe('café');
  });

  it('comment lines keep a quiet stream alive; true silence reconnects', async () => {
    const url = await sseServer((res, n) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"seq":"1"}\n\n');
      if (n === 1) {
        const timer = setInterval(() => res.write(': ping\n\n'), 30);
        setTimeout(() => clearInterval(timer), 400); // then silence
      }
    });
    const recorder = new Recorder();
    sse(url, recorder, 150);
    await until(() => recorder.opens.length >= 2, 'a reconnect after silence');
    expect(recorder.losses[0]!.reason).toBe('silent');
    // The pings kept the first connection for longer than the silence tolerance.
    expect(recorder.losses[0]!.noticedAtUs - recorder.frames[0]!.receivedAtUs).toBeGreaterThan(150_000n);
  });

  it('a 429 answer is a refused attempt with its Retry-After', async () => {
    const url = await sseServer((res) => {
      res.writeHead(429, { 'retry-after': '60', 'content-type': 'application/json' });
      res.end('{"code":"rate_limited"}');
    });
    const recorder = new Recorder();
    sse(url, recorder);
    await until(() => recorder.failures.length === 1, 'the refusal');
    expect(recorder.failures[0]).toMatchObject({ status: 429, retryAfterSeconds: 60 });
    expect(recorder.failures[0]!.detail).toContain('rate_limited');
  });
});

describe('back-pressure', () => {
  it('a paused stream reads no frames and is not taken for silent; resumed, it delivers what waited', async () => {
    let server: WebSocket | undefined;
    const url = await wsServer((socket) => {
      server = socket;
    });
    const recorder = new Recorder();
    const s = stream(url, recorder, { silenceMs: 150 });
    await until(() => server !== undefined && recorder.opens.length === 1, 'the connection');
    s.pause();
    for (let i = 0; i < 5; i++) server!.send(`{"n":${i}}`);
    await new Promise((r) => setTimeout(r, 400)); // longer than the silence tolerance
    expect(recorder.frames).toHaveLength(0);
    expect(recorder.losses).toHaveLength(0);
    s.resume();
    await until(() => recorder.frames.length === 5, 'the frames that waited');
    expect(recorder.frames.map((f) => f.raw)).toEqual([0, 1, 2, 3, 4].map((i) => `{"n":${i}}`));
    expect(recorder.opens).toHaveLength(1);
  });
});
