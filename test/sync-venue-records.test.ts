import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOPICS } from '../src/bus/topics.ts';
import { startLoaders } from '../src/load/index.ts';
import type { FillPayload } from '../src/records/fill.ts';
import { runSyncJob } from '../src/sync/run-job.ts';
import { createLogger } from '../src/util/log.ts';
import { drained } from './load-fixtures.ts';
import { harness, type Harness } from './sync-fixtures.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * Issue 22 (points 2, 3, 8): what the sync jobs read of the venue, from the simulator through the
 * embedded bus into chDB, asked of the tables as a user would.
 */

const log = createLogger('sync-venue-records.test', 'silent');
let w: TestWarehouse;
let h: Harness;
let group = 0;

beforeAll(async () => {
  w = await migratedWarehouse();
});

afterAll(async () => {
  await w?.cleanup();
});

afterEach(async () => {
  await h?.close();
});

/** Loads everything the harness's bus holds into the warehouse (a fresh consumer group each time). */
async function load(): Promise<void> {
  group += 1;
  const loaders = await startLoaders({ bus: h.bus, warehouse: w.warehouse, group: `venue-records-${group}`, topics: TOPICS.topics.map((t) => t.name), batch: { maxDelayMs: 100 }, log });
  await drained(loaders);
  await loaders.stop();
}

const query = <T = Record<string, unknown>>(sql: string): Promise<T[]> => rows<T>(w.warehouse.client, sql);

describe('order_trades and an order its fills read does not find', () => {
  it('records a data_quality row and reads the other orders\' fills; the next run does not ask again', async () => {
    h = await harness({ warmUpMs: 20_000 });
    const orders = (await h.venue.client.orders.ordersPage({}, undefined)).value.orders;
    const gone = orders.find((o) => (o.size_matched_micro ?? 0n) > 0n);
    expect(gone).toBeDefined();
    const id = gone!.internal_id;
    h.sim.faults.inject({ kind: 'order_not_visible', path_prefix: `/trade/v1/orders/${id}`, duration_ms: 3_600_000 });

    const first = await runSyncJob(h.deps, 'order_trades');
    expect(first.outcome).toBe('done');
    const findings = h.bus.of('data_quality');
    expect(findings.map((r) => r.payload)).toEqual([expect.objectContaining({ problem: 'order_not_found', stream: 'sync', order_id: id })]);
    const fills = h.bus.of('fill').map((r) => r.payload as FillPayload);
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.some((f) => f.order_id === id)).toBe(false);

    await runSyncJob(h.deps, 'order_trades');
    expect(h.bus.of('data_quality')).toHaveLength(1);
    expect(h.requests.count(`GET /trade/v1/orders/${id}/trades`)).toBe(1);

    await load();
    const stored = await query<{ problem: string; condition_id: string; detail: string }>(`SELECT problem, condition_id, detail FROM tapehouse.data_quality WHERE problem = 'order_not_found'`);
    expect(stored).toEqual([{ problem: 'order_not_found', condition_id: gone!.condition_id ?? '', detail: expect.stringContaining(id) }]);
  });
});
