import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readGroundTruth } from '../src/simulator/ground-truth-reader.ts';
import type { FaultSpec, SimulatorOptions } from '../src/simulator/index.ts';
import { api, settle, tradingSimulator, type TradingSetup } from './simulator-helpers.ts';
import { attempt, StreamClient, type Frame } from './simulator-stream-helpers.ts';

let t: TradingSetup;
const clients: StreamClient[] = [];
const dirs: string[] = [];

async function setup(options: SimulatorOptions = {}): Promise<void> {
  t = await tradingSimulator({ controlPort: 0, streams: { heartbeatMs: 1_000 }, ...options });
}

async function subscribed(path = '/trade/v1/market-stream', token?: string): Promise<StreamClient> {
  const client = await StreamClient.connect(t.sim, path, token);
  clients.push(client);
  if (path.endsWith('market-stream')) await client.subscribe(['orderbook'], { token_ids: [t.yes] });
  return client;
}

/** A book change of the subscribed token. */
async function bookChange(cents: number): Promise<void> {
  await api(t.sim, 'POST', '/trade/v1/orders', {
    token: t.alice,
    body: { token_id: t.yes, side: 'BUY', type: 'LIMIT', price_micro: String(cents * 10_000), shares_micro: '5000000' },
  });
  await settle();
}

async function control(method: string, path: string, body?: unknown): Promise<{ status: number; json: Frame }> {
  const res = await fetch(`${t.sim.controlUrl}${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Frame };
}

const inject = (spec: FaultSpec): ReturnType<TradingSetup['sim']['faults']['inject']> => t.sim.faults.inject(spec);

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await t.sim.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('stream faults', () => {
  it('drop_connection: the socket ends without a close frame (1006), and the fault names what it hit', async () => {
    await setup();
    const client = await subscribed();
    const connectionId = client.of('subscribed')[0]?.data.connection_id;
    const { status, json } = await control('POST', '/faults', { kind: 'drop_connection', endpoint: 'market' });
    expect(status).toBe(201);
    expect(json.fault).toMatchObject({
      kind: 'drop_connection',
      scope: {
        endpoint: 'market',
        connections: [{ connection_id: connectionId, subjects: [{ channel: 'orderbook', token_id: t.yes }] }],
      },
    });
    expect(json.fault.start).toBe(json.fault.end);
    expect((await client.closed).code).toBe(1006);
  });

  it('silence: no frames and no heartbeats while it lasts; the frame numbers jump by the frames lost', async () => {
    await setup();
    const client = await subscribed();
    await client.sync();
    const fault = inject({ kind: 'silence', duration_ms: 5_000 });
    const lastSeq = client.frames.at(-1)?.seq as number;
    await bookChange(40);
    await bookChange(41);
    for (let i = 0; i < 5; i++) t.sim.advance(1_000);
    await client.sync();
    const during = client.frames.filter((f) => f.seq > lastSeq && Date.parse(f.ts) < fault.endMs);
    expect(during).toEqual([]);
    const next = client.frames.find((f) => f.seq > lastSeq);
    expect(next?.seq).toBe(lastSeq + 3);
    expect(next?.type).toBe('heartbeat');
  });

  it('sequence_reset: frames of its gap are lost, then the reset names the tokens to re-seed', async () => {
    await setup();
    const client = await subscribed();
    await client.sync();
    const lastSeq = client.frames.at(-1)?.seq as number;
    inject({ kind: 'sequence_reset', gap_ms: 500 });
    await bookChange(40);
    t.sim.advance(500);
    await client.sync();
    const after = client.frames.filter((f) => f.seq > lastSeq);
    expect(after[0]).toMatchObject({
      type: 'sequence_reset',
      seq: lastSeq + 2,
      data: { token_ids: [t.yes], reason: expect.any(String) },
    });
    expect(after.filter((f) => f.type === 'orderbook')).toEqual([]);
  });

  it('error_frame: keep changes nothing, resubscribe drops the named subject, reconnect closes with 4000', async () => {
    await setup();
    const keep = await subscribed();
    const connId = (c: StreamClient): string => c.of('subscribed')[0]?.data.connection_id;
    inject({ kind: 'error_frame', action: 'keep', connection_id: connId(keep) });
    await bookChange(40);
    await keep.sync();
    expect(keep.of('error')[0]?.data).toEqual({
      failure: {
        code: 'dependency_unavailable',
        title: expect.any(String),
        detail: expect.any(String),
        recovery: { strategy: 'retry' },
      },
      action: 'keep',
    });
    expect(keep.of('orderbook').filter((f) => !f.data.initial)).toHaveLength(1);

    const resubscribe = await subscribed();
    inject({ kind: 'error_frame', action: 'resubscribe', connection_id: connId(resubscribe) });
    await bookChange(41);
    await resubscribe.sync();
    expect(resubscribe.of('error')[0]?.data).toMatchObject({
      action: 'resubscribe',
      subject: { channel: 'orderbook', token_id: t.yes },
    });
    expect(resubscribe.of('orderbook').filter((f) => !f.data.initial)).toEqual([]);

    const account = await subscribed('/trade/v1/account-stream', t.alice);
    inject({ kind: 'error_frame', action: 'resubscribe', endpoint: 'account' });
    await bookChange(42);
    await account.sync();
    expect(account.of('error')[0]?.data).toMatchObject({
      action: 'resubscribe',
      subject: { channel: 'account_events' },
    });
    expect(account.of('account_events')).toEqual([]);

    const reconnect = await subscribed();
    inject({ kind: 'error_frame', action: 'reconnect', connection_id: connId(reconnect), code: 'internal_error' });
    expect((await reconnect.closed).code).toBe(4000);
    expect(reconnect.of('error')[0]?.data).toMatchObject({
      action: 'reconnect',
      failure: { code: 'internal_error', recovery: { strategy: 'none' } },
    });
  });

  it('refuse_connections: 429 with Retry-After: 60 while it lasts, admitted after', async () => {
    await setup();
    inject({ kind: 'refuse_connections', endpoint: 'market', duration_ms: 10_000 });
    expect(await attempt(t.sim, '/trade/v1/market-stream')).toMatchObject({
      status: 429,
      headers: { 'retry-after': '60' },
      body: { code: 'rate_limited' },
    });
    expect(await attempt(t.sim, '/trade/v1/account-stream', t.alice)).toBe('opened');
    t.sim.advance(10_000);
    expect(await attempt(t.sim, '/trade/v1/market-stream')).toBe('opened');
    // Injected, not earned: the fault suite holds clients to zero earned 429s only.
    expect(t.sim.rateLimits()).toMatchObject({ earned: { stream_attempts: 0, edge: 0 }, injected: 1 });
  });

  it('malformed_frames: invalid JSON, wrong types, unknown kinds, unknown fields and oversized frames', async () => {
    await setup();
    const client = await subscribed();
    await client.sync();
    const before = client.raw.length;
    for (const variant of ['invalid_json', 'wrong_types', 'unknown_kind', 'oversized'] as const)
      inject({ kind: 'malformed_frames', variant, oversized_bytes: 1_100_000 });
    inject({ kind: 'malformed_frames', variant: 'unknown_fields' });
    await bookChange(40);
    await client.sync();
    const [invalid, wrongTypes, unknownKind, oversized, withFields] = client.raw.slice(before);
    expect(() => JSON.parse(invalid as string)).toThrow();
    expect(JSON.parse(wrongTypes as string)).toMatchObject({
      type: 'orderbook',
      seq: expect.any(String),
      ts: expect.any(Number),
      data: { token_id: expect.any(Number) },
    });
    expect(JSON.parse(unknownKind as string)).toMatchObject({
      type: 'orderbook',
      seq: expect.any(Number),
      data: { kind: 'x_level_summary' },
    });
    expect((oversized as string).length).toBeGreaterThan(1_100_000);
    expect(JSON.parse(withFields as string)).toMatchObject({
      type: 'orderbook',
      x_venue_hint: expect.any(Object),
      data: { kind: 'snapshot', x_extra: expect.any(Array), token_id: t.yes },
    });
  });

  it('duplicate_frames: every frame twice, with its own number, while it lasts', async () => {
    await setup();
    const client = await subscribed();
    await client.sync();
    inject({ kind: 'duplicate_frames', duration_ms: 3_000 });
    await bookChange(40);
    t.sim.advance(1_000);
    await client.sync();
    const book = client.of('orderbook').filter((f) => !f.data.initial);
    expect(book).toHaveLength(2);
    expect(book[0]).toEqual(book[1]);
    expect(client.of('heartbeat').map((f) => f.seq)).toEqual([book[0]?.seq + 1, book[0]?.seq + 1]);
  });
});

describe('REST faults', () => {
  it('a 429 storm and 5xx answers with each recovery strategy, as problem+json', async () => {
    await setup();
    const read = (): ReturnType<typeof api> => api(t.sim, 'GET', '/trade/v1/portfolio/summary', { token: t.alice });
    const storm = inject({ kind: 'rest_rate_limit_storm', duration_ms: 1_000, retry_after_seconds: 2 });
    const limited = await read();
    expect(limited).toMatchObject({
      status: 429,
      json: { code: 'rate_limited', recovery: { strategy: 'retry_after', after_seconds: 2 } },
    });
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json.request_id).toBe(limited.headers.get('x-request-id'));
    expect(t.sim.rateLimits()).toEqual({ earned: { edge: 0, ip: 0, account: 0, stream_attempts: 0 }, injected: 1 });
    t.sim.faults.end(storm.id);
    const cases: Array<[FaultSpec['strategy'], number, string]> = [
      ['none', 500, 'internal_error'],
      ['retry', 503, 'dependency_unavailable'],
      ['retry_after', 503, 'dependency_unavailable'],
    ];
    for (const [strategy, status, code] of cases) {
      const fault = inject({ kind: 'rest_server_error', strategy, duration_ms: 1_000, retry_after_seconds: 3 });
      const res = await read();
      expect({ status: res.status, code: res.json.code, strategy: res.json.recovery.strategy }).toEqual({
        status,
        code,
        strategy,
      });
      if (strategy === 'retry_after') expect(res.json.recovery.after_seconds).toBe(3);
      t.sim.faults.end(fault.id);
    }
    expect((await read()).status).toBe(200);
    inject({ kind: 'rest_server_error', duration_ms: 1_000, fraction: 0 });
    inject({ kind: 'rest_server_error', duration_ms: 1_000, path_prefix: '/api/v1/' });
    expect((await read()).status).toBe(200);
  });

  it('dependency_outcome_unknown: the write runs, the answer is 504 check_status naming it', async () => {
    await setup();
    inject({ kind: 'dependency_outcome_unknown', duration_ms: 1_000 });
    const res = await api(t.sim, 'POST', '/trade/v1/orders', {
      token: t.alice,
      body: { token_id: t.yes, side: 'BUY', type: 'LIMIT', price_micro: '400000', shares_micro: '5000000' },
    });
    await settle();
    expect(res).toMatchObject({
      status: 504,
      json: {
        code: 'dependency_outcome_unknown',
        recovery: { strategy: 'check_status', resource: { kind: 'order', order_id: expect.any(String) } },
      },
    });
    const order = await api(t.sim, 'GET', `/trade/v1/orders/${res.json.recovery.resource.order_id}`, {
      token: t.alice,
    });
    expect(order.json).toMatchObject({ status: 'LIVE', price_micro: '400000' });
  });

  it('pnl_not_ready and unavailable_exchanges, in REST and in the portfolio stream', async () => {
    await setup();
    t.sim.advance(60_000);
    expect((await api(t.sim, 'GET', '/trade/v1/portfolio/pnl', { token: t.alice })).status).toBe(200);
    inject({ kind: 'pnl_not_ready', duration_ms: 5_000 });
    const notReady = await api(t.sim, 'GET', '/trade/v1/portfolio/pnl', { token: t.alice });
    expect(notReady).toMatchObject({
      status: 425,
      json: { code: 'pnl_not_ready', recovery: { strategy: 'retry_after', after_seconds: 5 } },
    });
    inject({ kind: 'unavailable_exchanges', duration_ms: 5_000 });
    const positions = await api(t.sim, 'POST', '/trade/v1/portfolio/positions/list', { token: t.alice, body: {} });
    expect(positions.json).toMatchObject({ positions: [], unavailable_exchanges: ['SERVICE'] });
    t.sim.advance(5_000);
    expect((await api(t.sim, 'GET', '/trade/v1/portfolio/pnl', { token: t.alice })).status).toBe(200);
    expect(
      (await api(t.sim, 'POST', '/trade/v1/portfolio/positions/list', { token: t.alice, body: {} })).json
        .unavailable_exchanges,
    ).toEqual([]);
  });
});

describe('fault control and records', () => {
  it('lists active and ended faults, ends one early, refuses a bad spec, and logs each to the ground truth with its bounds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapehouse-gt-'));
    dirs.push(dir);
    await setup({ groundTruth: { dir } });
    const client = await subscribed();
    expect((await control('POST', '/faults', { kind: 'silence', duration_ms: -1 })).status).toBe(422);
    expect((await control('POST', '/faults', { kind: 'meteor' })).status).toBe(422);
    const silence = (await control('POST', '/faults', { kind: 'silence', duration_ms: 30_000 })).json.fault;
    t.sim.advance(2_000);
    const listed = (await control('GET', '/faults')).json;
    expect(listed.active.map((f: Frame) => f.id)).toEqual([silence.id]);
    const ended = (await control('DELETE', `/faults/${silence.id}`)).json.fault;
    expect(Date.parse(ended.end) - Date.parse(ended.start)).toBe(2_000);
    expect((await control('GET', '/faults')).json.ended.map((f: Frame) => f.id)).toEqual([silence.id]);
    expect((await control('GET', '/connections')).json.connections).toEqual([
      expect.objectContaining({ endpoint: 'market', subjects: [{ channel: 'orderbook', token_id: t.yes }] }),
    ]);
    await client.sync();
    inject({ kind: 'rest_server_error', duration_ms: 60_000 });
    await t.sim.close();
    const faults = readGroundTruth(dir).faults;
    expect(faults.map((f) => [f.kind, f.endMs - f.startMs])).toEqual([
      ['silence', 2_000],
      ['rest_server_error', 0],
    ]);
    expect(faults[0]?.scope).toMatchObject({
      endpoint: 'market',
      connections: [{ subjects: [{ channel: 'orderbook', token_id: t.yes }] }],
    });
  });

  it('a heavy profile injects a seeded variety of faults over a few simulated minutes', async () => {
    const kindsOf = async (seed: number): Promise<string[]> => {
      t = await tradingSimulator({ seed, faults: 'heavy' });
      for (let i = 0; i < 300; i++) t.sim.advance(1_000);
      const kinds = [...t.sim.faults.ended(), ...t.sim.faults.active()].map((f) => f.spec.kind);
      await t.sim.close();
      return kinds;
    };
    const first = await kindsOf(5);
    expect(first.length).toBeGreaterThanOrEqual(12);
    expect(new Set(first).size).toBeGreaterThanOrEqual(6);
    expect(await kindsOf(5)).toEqual(first);
  });
});
