import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startVenueProcess } from '../src/simulator/process/start-venue-process.ts';
import { SettingError } from '../src/util/setting-error.ts';

/**
 * The built-in venue in a process of its own (what `tapehouse run` starts): killed outright, it
 * comes back on the same address from its last save, and no id it hands out then names anything
 * other than what it named before.
 */
const dir = mkdtempSync(join(tmpdir(), 'simulator-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Item {
  id: string;
  what: string;
}

/** A list followed to its end (pages may be short: only the cursor says where it ends). */
async function readAll(
  url: string,
  token: string,
  path: string,
  list: string,
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  do {
    const post = path.endsWith('/list');
    const query = post ? '' : `?limit=500${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await fetch(`${url}${path}${query}`, {
      method: post ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: post ? JSON.stringify({ limit: 500, ...(cursor ? { cursor } : {}) }) : undefined,
    });
    expect(res.status).toBe(200);
    const page = (await res.json()) as Record<string, unknown> & { pagination: { next_cursor: string | null } };
    items.push(...(page[list] as Array<Record<string, unknown>>));
    cursor = page.pagination.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

/** The demo account's fills and orders as REST lists them, each id with its immutable content. */
async function demoHistory(url: string, token: string): Promise<Item[]> {
  const fills = await readAll(url, token, '/trade/v1/portfolio/trades', 'trades');
  const orders = await readAll(url, token, '/trade/v1/orders/list', 'orders');
  return [
    ...fills.map((f) => ({
      id: `fill ${f.fill_id}`,
      what: JSON.stringify([f.trade_id, f.order_id, f.price_micro, f.shares_micro, f.executed_at]),
    })),
    ...orders.map((o) => ({
      id: `order ${o.internal_id}`,
      what: JSON.stringify([o.token_id, o.side, o.price_micro, o.original_size_micro, o.created_at]),
    })),
  ];
}

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> => {
  for (const end = Date.now() + ms; !(await check());) {
    if (Date.now() > end) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

describe('the venue in its own process', () => {
  it('killed outright, serves again on the same address from its last save; no id then names something else', async () => {
    const venue = await startVenueProcess({
      seed: 3,
      rate: 40,
      lifecycle: true,
      state: { file: join(dir, 'state.json'), saveEveryMs: 1_000 },
    });
    try {
      expect([venue.generation, venue.resumed]).toEqual([0, false]);
      await until(
        async () => (await demoHistory(venue.url, venue.demoToken)).some((i) => i.id.startsWith('fill')),
        'a demo fill',
      );
      await new Promise((r) => setTimeout(r, 2_500)); // a save or two with that history in it
      const before = await demoHistory(venue.url, venue.demoToken);
      const killed = venue.pid!;
      process.kill(killed, 'SIGKILL');
      await until(() => venue.generation === 1, 'the venue to serve again');
      expect(venue.pid).not.toBe(killed);
      await until(
        async () => (await demoHistory(venue.url, venue.demoToken)).length > before.length + 5,
        'new demo orders',
      );
      const after = await demoHistory(venue.url, venue.demoToken);
      const was = new Map(before.map((i) => [i.id, i.what]));
      expect(after.filter((i) => was.has(i.id) && was.get(i.id) !== i.what)).toEqual([]);
      // What it brought back from the save is there, the same.
      expect(after.filter((i) => was.has(i.id)).length).toBeGreaterThan(0);
    } finally {
      await venue.close();
    }
  }, 90_000);

  it('refuses a state file it cannot read, naming it', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, 'not a venue');
    const started = startVenueProcess({ rate: 0, state: { file } });
    await expect(started).rejects.toThrow(SettingError);
    await expect(started).rejects.toThrow(/^venue state .*broken\.json is not a venue state/);
  }, 30_000);
});
