import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, get as httpsGet, Server as HttpsServer } from 'node:https';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport, RedirectRefusedError } from '../src/api/http.ts';
import { fixedToken } from '../src/api/token.ts';
import { startSimulator } from '../src/simulator/index.ts';
import { SseTransport } from '../src/streams/sse-transport.ts';
import { ConnectRefused, RedirectRefused, type MessageSink } from '../src/streams/transport.ts';
import { WebSocketTransport } from '../src/streams/websocket-transport.ts';
import { Secret } from '../src/util/secret.ts';
import { findSecrets, ROOT, runFile, tapehouse, waitFor } from './security/scan.ts';

/**
 * Where the token and the warehouse credentials may come from, and where the token may go: only
 * from the environment or a file, only to the configured URL (never across a redirect), and only
 * over TLS whose certificate verifies.
 */

const work = mkdtempSync(join(tmpdir(), 'tapehouse-security-'));
afterAll(() => rmSync(work, { recursive: true, force: true, maxRetries: 3 }));

const secret = (label: string): string => `${label}_${randomBytes(12).toString('hex')}`;
const sink: MessageSink = { message: () => undefined, activity: () => undefined };

/** What a stub server saw: every HTTP request and WebSocket upgrade, with its headers. */
interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** A loopback HTTP(S) server that records what reaches it, requests and upgrades alike, and answers each with `answer`.
 */
async function stubServer(
  host: string,
  answer: (request: IncomingMessage) => Answer,
  make: () => Server = () => createHttpServer(),
) {
  const seen: Seen[] = [];
  const server = make();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    const { status, headers = {}, body = '' } = answer(request);
    response.writeHead(status, headers);
    response.end(body);
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    const { status, headers = {}, body = '' } = answer(request);
    const lines = [
      `HTTP/1.1 ${status} Stub`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${server instanceof HttpsServer ? 'https' : 'http'}://${host}:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const problem503 = (): Answer => ({
  status: 503,
  headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
  body: JSON.stringify({
    type: 'about:blank',
    title: 'down',
    status: 503,
    code: 'dependency_unavailable',
    request_id: 'r1',
  }),
});

describe('the access token comes from TAPEHOUSE_TOKEN or a file, never from a flag', () => {
  it('--token VALUE is refused with exit 2 by every command that reads a token, naming the two ways, without repeating the value', async () => {
    const value = secret('flagtoken');
    const results = await Promise.all(
      ['run', 'capture', 'worker'].map((command) =>
        tapehouse([command, '--token', value, '--base-url', 'http://127.0.0.1:9']),
      ),
    );
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/--token is refused.*--token-file.*TAPEHOUSE_TOKEN/s);
      expect(findSecrets([value], { stdout: result.stdout, stderr: result.stderr })).toEqual([]);
    }
  });

  it('TAPEHOUSE_TOKEN and --token-file both put the token on the wire to the configured venue', async () => {
    const token = secret('pat');
    const sim = await startSimulator({ token, seed: 3, rate: 5 });
    // One recording pass-through per job: what each job sent to "the venue", byte for byte.
    const proxies = await Promise.all([tcpRecorder(sim.port), tcpRecorder(sim.port)]);
    try {
      const tokenFile = join(work, 'token');
      writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
      const stop = new AbortController();
      const job = (proxy: TcpRecorder, dataDir: string, env: Record<string, string>, extra: string[] = []) =>
        tapehouse(
          ['run', '--base-url', proxy.url, '--data-dir', join(work, dataDir), '--http-port', '0', ...extra],
          env,
          {
            stop: stop.signal,
            timeoutMs: 60_000,
          },
        );
      const jobs = Promise.all([
        job(proxies[0], 'env-data', { TAPEHOUSE_TOKEN: token }),
        job(proxies[1], 'file-data', {}, ['--token-file', tokenFile]),
      ]);
      const sent = (proxy: TcpRecorder) => () =>
        new RegExp(`^authorization: Bearer ${token}\r$`, 'im').test(proxy.received()) ? true : undefined;
      try {
        await waitFor(sent(proxies[0]), () => 'no request with the TAPEHOUSE_TOKEN token', 40_000);
        await waitFor(sent(proxies[1]), () => "no request with the token file's token", 40_000);
      } finally {
        stop.abort();
      }
      const outputs = await jobs;
      for (const output of outputs) expect(output.stdout, output.stderr.slice(-2000)).toMatch(/stopped cleanly\.\n$/);
      const texts = Object.fromEntries(
        outputs.flatMap((o, i) => [
          [`stdout ${i}`, o.stdout],
          [`stderr ${i}`, o.stderr],
        ]),
      );
      expect(findSecrets([token], texts)).toEqual([]);
    } finally {
      await Promise.all(proxies.map((proxy) => proxy.close()));
      await sim.close();
    }
  }, 90_000);
});

interface TcpRecorder {
  url: string;
  /** Everything clients sent through it so far, as text. */
  received(): string;
  close(): Promise<void>;
}

/** A loopback TCP pass-through to `port` that keeps a copy of every byte clients send. */
async function tcpRecorder(port: number): Promise<TcpRecorder> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => Buffer.concat(chunks).toString('latin1'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('the logger redacts credentials wherever they sit', () => {
  it('header maps in any case and depth, client options, URL passwords, bearer and basic values in text: none reaches stderr', async () => {
    const value = secret('logged');
    const child = await runFile(join(ROOT, 'test/security/log-child.ts'), { SECRET: value });
    const lines = child.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.msg)).toEqual(['credentials in every shape', 'a Secret', 'done']);
    expect(findSecrets([value, `reader:${value}`], { stderr: child.stderr })).toEqual([]);
    expect(lines[0]).toMatchObject({
      headers: { Authorization: '[redacted]', 'x-clickhouse-key': '[redacted]' },
      kafka: { sasl: { username: 'reader', password: '[redacted]' } },
      clickhouse: { url: 'http://reader:[redacted]@127.0.0.1:8123' },
      reason: 'refused: Bearer [redacted] is not valid',
      kept: 'ordinary text stays',
    });
    expect(lines[2]).toMatchObject({ unchanged: true });
  });
});

describe('the token goes to the configured URL only: redirects are not followed', () => {
  let elsewhere: Awaited<ReturnType<typeof stubServer>>;
  let venue: Awaited<ReturnType<typeof stubServer>>;
  const token = secret('redirected');

  beforeAll(async () => {
    // A different host of the loopback network: what a redirect to another origin looks like.
    elsewhere = await stubServer('127.0.0.2', () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }));
    venue = await stubServer('127.0.0.1', (request) => ({
      status: request.url === '/trade/v1/portfolio/stream' ? 307 : 302,
      headers: { location: `${elsewhere.url}${request.url ?? '/'}` },
    }));
  });
  afterAll(async () => {
    await venue.close();
    await elsewhere.close();
  });

  it('the REST client reports a RedirectRefusedError naming the target origin', async () => {
    const transport = new HttpTransport({ baseUrl: venue.url, token: fixedToken(new Secret(token)) });
    try {
      const failure = transport.send({ method: 'GET', path: '/trade/v1/portfolio/summary', authenticate: true });
      await expect(failure).rejects.toBeInstanceOf(RedirectRefusedError);
      await expect(failure).rejects.toMatchObject({
        status: 302,
        location: elsewhere.url,
        message: expect.stringMatching(/redirect to http:\/\/127\.0\.0\.2:\d+, not followed/),
      });
    } finally {
      await transport.close();
    }
  });

  it('the SSE and WebSocket transports refuse the connection with a RedirectRefused', async () => {
    const sse = new SseTransport({ url: `${venue.url}/trade/v1/portfolio/stream`, token: new Secret(token) });
    const sseFailure = sse.open(sink, new AbortController().signal);
    await expect(sseFailure).rejects.toBeInstanceOf(RedirectRefused);
    await expect(sseFailure).rejects.toMatchObject({ status: 307, location: elsewhere.url });
    const ws = new WebSocketTransport({
      url: `${venue.url.replace('http', 'ws')}/trade/v1/account-stream`,
      token: new Secret(token),
    });
    const wsFailure = ws.open(sink, new AbortController().signal);
    await expect(wsFailure).rejects.toBeInstanceOf(RedirectRefused);
    await expect(wsFailure).rejects.toBeInstanceOf(ConnectRefused); // the reconnect loop's backoff applies
    await expect(wsFailure).rejects.toMatchObject({ status: 302, location: elsewhere.url });
  });

  it('the venue got the token three times; the redirect target got nothing at all', () => {
    expect(venue.seen.map((s) => s.headers.authorization)).toEqual([
      `Bearer ${token}`,
      `Bearer ${token}`,
      `Bearer ${token}`,
    ]);
    expect(elsewhere.seen).toEqual([]);
  });
});

describe('TLS certificates are verified', () => {
  let server: Awaited<ReturnType<typeof stubServer>>;
  let cert: Buffer;
  const token = secret('tls');

  beforeAll(async () => {
    expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).toBeUndefined();
    const key = join(work, 'key.pem');
    const certFile = join(work, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(certFile);
    server = await stubServer('127.0.0.1', problem503, () => createHttpsServer({ key: readFileSync(key), cert }));
  });
  afterAll(() => server.close());

  it('the server itself is sound: a client that trusts its certificate gets an answer', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      httpsGet(`${server.url}/ping`, { ca: cert }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }).on('error', reject);
    });
    expect(status).toBe(503);
  });

  it('the REST client, the SSE and the WebSocket transports refuse a self-signed certificate, and no request gets through', async () => {
    const before = server.seen.length;
    const transport = new HttpTransport({ baseUrl: server.url, token: fixedToken(new Secret(token)) });
    try {
      await expect(
        transport.send({ method: 'GET', path: '/trade/v1/portfolio/summary', authenticate: true }),
      ).rejects.toMatchObject({
        name: 'TransportError',
        message: expect.stringMatching(/self[- ]signed certificate/),
      });
    } finally {
      await transport.close();
    }
    const sse = new SseTransport({ url: `${server.url}/trade/v1/portfolio/stream`, token: new Secret(token) });
    await expect(sse.open(sink, new AbortController().signal)).rejects.toMatchObject({
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    const ws = new WebSocketTransport({
      url: `${server.url.replace('https', 'wss')}/trade/v1/account-stream`,
      token: new Secret(token),
    });
    await expect(ws.open(sink, new AbortController().signal)).rejects.toMatchObject({
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    expect(server.seen.length).toBe(before);
  });
});

describe('warehouse and bus credentials come from the environment only', () => {
  it('a password in --clickhouse-url or --kafka-brokers is refused with exit 2, the value not repeated', async () => {
    const password = secret('pw');
    const runs = await Promise.all([
      tapehouse(['sql', '--clickhouse-url', `http://reader:${password}@127.0.0.1:9`, 'SELECT 1']),
      tapehouse(['run', '--clickhouse-url', `http://reader:${password}@127.0.0.1:9`, '--duration', '1s']),
      tapehouse(['load', '--kafka-brokers', `reader:${password}@127.0.0.1:9092`]),
    ]);
    for (const result of runs) {
      expect(result.code, result.stderr).toBe(2);
      expect(findSecrets([password], { stdout: result.stdout, stderr: result.stderr })).toEqual([]);
    }
    for (const result of runs) expect(result.stderr).toMatch(/credentials.*TAPEHOUSE_CLICKHOUSE_PASSWORD/s);
  });

  it('TAPEHOUSE_CLICKHOUSE_USER and _PASSWORD reach the server, and a failure does not print the password', async () => {
    const password = secret('chpw');
    const clickhouse = await stubServer('127.0.0.1', () => ({
      status: 403,
      headers: { 'content-type': 'text/plain', 'x-clickhouse-exception-code': '516' },
      body: 'Code: 516. DB::Exception: reader: Authentication failed: password is incorrect. (AUTHENTICATION_FAILED)\n',
    }));
    try {
      const result = await tapehouse(['sql', '--clickhouse-url', clickhouse.url, 'SELECT 1'], {
        TAPEHOUSE_CLICKHOUSE_USER: 'reader',
        TAPEHOUSE_CLICKHOUSE_PASSWORD: password,
        TAPEHOUSE_LOG_LEVEL: 'trace',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/Authentication failed/);
      const credentials = clickhouse.seen.map(
        (s) => s.headers.authorization ?? `${s.headers['x-clickhouse-user']}:${s.headers['x-clickhouse-key']}`,
      );
      expect(credentials[0]).toMatch(
        new RegExp(`^(Basic ${Buffer.from(`reader:${password}`).toString('base64')}|reader:${password})$`),
      );
      expect(findSecrets([password], { stdout: result.stdout, stderr: result.stderr })).toEqual([]);
    } finally {
      await clickhouse.close();
    }
  });
});
