import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONCILIATIONS_PATH, reconciliationRoute } from '../src/reconcile/store-through-job.ts';
import type { InsertRow } from '../src/warehouse/insert/index.ts';

// The one write the main job's port takes: a reconcile run's rows, checked column by column, into
// reconciliations only, under the run's dedup token. Anything else is refused with a reason.

const row = (overrides: Record<string, unknown> = {}) => ({
  run_id: 'run-1',
  reconciled_at: 1_700_000_000_000,
  account: 'demo',
  scope: 'position',
  token_id: 'tok',
  condition_id: 'c',
  field: 'shares_micro',
  ours_micro: '2000000',
  theirs_micro: '2000000',
  difference_micro: '0',
  status: 'ok',
  detail: '',
  reported_at: 1_700_000_000_000,
  method: 'average',
  tolerance_micro: '0',
  ...overrides,
});

describe('POST /reconciliations on the job port', () => {
  const inserts: Array<{ table: string; rows: readonly InsertRow[]; token: string | undefined }> = [];
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const route = reconciliationRoute({
      insertRows: async (table, rows, options) => {
        inserts.push({ table, rows, token: options?.dedupToken });
        return { rows: rows.length } as never;
      },
    });
    server = createServer((request, response) => {
      void route(request, response).then((done) => {
        if (!done) response.writeHead(404).end();
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${RECONCILIATIONS_PATH}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const post = async (body: unknown) => {
    const response = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as { stored?: number; error?: string } };
  };

  it('stores a run into reconciliations under its dedup token, micro-units as bigints', async () => {
    expect(await post({ run_id: 'run-1', rows: [row(), row({ field: 'avg_price_micro', ours_micro: '-5' })] })).toEqual(
      {
        status: 200,
        body: { stored: 2 },
      },
    );
    expect(inserts).toHaveLength(1);
    expect(inserts[0]!.table).toBe('tapehouse.reconciliations');
    expect(inserts[0]!.token).toBe('reconcile:run-1');
    expect(inserts[0]!.rows[1]!.ours_micro).toBe(-5n);
  });

  it.each([
    ['an unknown column', { run_id: 'run-1', rows: [row({ _raw: 'x' })] }, 'unknown column(s) _raw'],
    ['an amount in units', { run_id: 'run-1', rows: [row({ ours_micro: '2.5' })] }, 'ours_micro is not a whole number'],
    ['an amount beyond Int64', { run_id: 'run-1', rows: [row({ ours_micro: '9223372036854775808' })] }, 'out of Int64'],
    ['a row of another run', { run_id: 'run-2', rows: [row()] }, 'row 0 belongs to another run'],
    ['no rows', { run_id: 'run-1' }, 'no rows array'],
  ])('refuses %s with 400 and stores nothing', async (_what, body, error) => {
    const before = inserts.length;
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(error);
    expect(inserts.length).toBe(before);
  });

  it('answers GET with 405, naming POST', async () => {
    const response = await fetch(url);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
