import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Availability } from '../src/api/availability.ts';
import { VenueClient } from '../src/api/client.ts';
import { TransportError } from '../src/api/errors.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import { readAccessToken } from '../src/api/token.ts';
import { REDACT_PATHS } from '../src/util/log.ts';
import { Secret } from '../src/util/secret.ts';
import { JSON_HEADERS, PROBLEM_HEADERS, problem, rebatesPayload, stubVenue, TOKEN } from './api-fixtures.ts';

describe('requests on the wire', () => {
  it('carry the bearer token, JSON accept and content type', async () => {
    const venue = stubVenue();
    venue.pool
      .intercept({
        method: 'POST',
        path: '/trade/v1/portfolio/positions/list',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{"token_ids":["t1"]}',
      })
      .reply(200, { positions: [] }, { headers: JSON_HEADERS });
    await expect(venue.client.portfolio.positions({ token_ids: ['t1'] })).resolves.toMatchObject({
      value: { positions: [] },
    });
  });

  it('without a token nothing is sent as authorization and the account bucket is not spent', async () => {
    const venue = stubVenue({ token: undefined });
    venue.pool
      .intercept({
        path: '/api/v1/events',
        headers: (headers) => !Object.keys(headers).some((name) => name.toLowerCase() === 'authorization'),
      })
      .reply(200, { events: [] }, { headers: JSON_HEADERS });
    for await (const page of venue.client.catalogue.eventPages()) expect(page.value.events).toEqual([]);
    expect(venue.limiter.stats().read.tokens).toBe(100);
  });

  it('a base URL with a path prefix keeps it', async () => {
    const venue = stubVenue({ baseUrl: 'http://venue.test/gateway/' });
    venue.pool
      .intercept({ path: '/gateway/trade/v1/portfolio/rebates' })
      .reply(200, rebatesPayload, { headers: JSON_HEADERS });
    await expect(venue.client.portfolio.rebates()).resolves.toMatchObject({ value: { total_micro: 1_550_000n } });
  });

  it('the token never reaches the logs, even on failures and retries', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) });
    const logger = pino({ level: 'debug', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
    const venue = stubVenue({ logger });
    const unavailable = problem(503, 'dependency_unavailable', { recovery: { strategy: 'retry' } });
    venue.pool.intercept({ path: '/trade/v1/portfolio/rebates' }).reply(503, unavailable, { headers: PROBLEM_HEADERS });
    venue.pool
      .intercept({ path: '/trade/v1/portfolio/rebates' })
      .reply(401, problem(401, 'invalid_personal_access_token'), { headers: PROBLEM_HEADERS });
    await expect(venue.client.portfolio.rebates()).rejects.toMatchObject({ code: 'invalid_personal_access_token' });
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('')).not.toContain(TOKEN);
  });
});

describe('against a real local server', () => {
  let server: Server | undefined;
  let client: VenueClient | undefined;

  afterEach(async () => {
    await client?.close();
    server?.close();
  });

  async function serve(
    handler: Parameters<typeof createServer>[1],
  ): Promise<{ url: string; connections: () => number }> {
    let connections = 0;
    server = createServer(handler);
    server.on('connection', () => (connections += 1));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
  }

  function clientFor(url: string, options: Partial<ConstructorParameters<typeof VenueClient>[0]> = {}): VenueClient {
    client = new VenueClient({
      baseUrl: url,
      token: new Secret(TOKEN),
      limiter: new RateLimiter({ ipLimits: new IpLimits() }),
      availability: new Availability(),
      logger: pino({ level: 'silent' }),
      ...options,
    });
    return client;
  }

  it('keeps the connection alive between requests', async () => {
    const { url, connections } = await serve((_req, res) =>
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify(rebatesPayload)),
    );
    const venue = clientFor(url);
    for (let i = 0; i < 20; i += 1) await venue.portfolio.rebates();
    // Without keep-alive each of the 20 would open its own connection (undici may open a second one early).
    expect(connections()).toBeLessThan(5);
  });

  it('gives up on a server that never answers, as a TransportError', async () => {
    const { url } = await serve(() => undefined);
    const venue = clientFor(url, { timeouts: { headersMs: 50 }, retry: { maxAttempts: 1 } });
    await expect(venue.portfolio.rebates()).rejects.toBeInstanceOf(TransportError);
  });
});

describe('reading the access token', () => {
  it('from TAPEHOUSE_TOKEN (as the settings read it), surrounding whitespace dropped', async () => {
    const token = await readAccessToken({ token: new Secret(` ${TOKEN}\n`) });
    expect(token.reveal()).toBe(TOKEN);
    expect(String(token)).toBe('[redacted]');
    expect(JSON.stringify({ token })).toBe('{"token":"[redacted]"}');
  });

  it('from a token file, which wins over the environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapehouse-token-'));
    const file = join(dir, 'token');
    await writeFile(file, `${TOKEN}\n`);
    const token = await readAccessToken({ tokenFile: file, token: new Secret('other') });
    expect(token.reveal()).toBe(TOKEN);
  });

  it('refuses a missing or empty token with a message that says where to put it', async () => {
    await expect(readAccessToken({})).rejects.toThrow(
      /set TAPEHOUSE_TOKEN, or give --token-file \(TAPEHOUSE_TOKEN_FILE\)/,
    );
    await expect(readAccessToken({ token: new Secret('  ') })).rejects.toThrow(/TAPEHOUSE_TOKEN is empty/);
  });
});
