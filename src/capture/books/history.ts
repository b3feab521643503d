import type { QueryRunner } from '../../warehouse/query-access.ts';
import { replayBook, type ChangeRow, type ReplayedBook, type SnapshotRow } from './replay.ts';

/**
 * A token's ladder at an instant, rebuilt from the warehouse: the newest snapshot at or before
 * it (anchors are written at least every hour) and the level changes after that snapshot up to
 * the instant. Values from the user travel as bound parameters.
 */
export async function bookAt(runner: QueryRunner, tokenId: string, atMs: number): Promise<ReplayedBook | null> {
  const params = { token: tokenId, at: String(atMs) };
  const snapshots = await rows(
    runner,
    `SELECT toString(sequence) AS seq, toString(toUnixTimestamp64Micro(snapshot_at)) AS at_us,
            arrayMap(x -> toString(x), bid_prices_micro) AS bid_prices, arrayMap(x -> toString(x), bid_sizes_micro) AS bid_sizes,
            arrayMap(x -> toString(x), ask_prices_micro) AS ask_prices, arrayMap(x -> toString(x), ask_sizes_micro) AS ask_sizes
     FROM tapehouse.book_snapshots
     WHERE token_id = {token:String} AND snapshot_at <= fromUnixTimestamp64Milli({at:Int64})
     ORDER BY sequence DESC, snapshot_at DESC LIMIT 1`,
    params,
  );
  const base = snapshots[0];
  if (!base) return null;
  const changes = await rows(
    runner,
    `SELECT side, toString(price_micro) AS price, toString(size_micro) AS size, toString(sequence) AS seq, toString(toUnixTimestamp64Micro(changed_at)) AS at_us
     FROM tapehouse.book_changes
     WHERE token_id = {token:String} AND sequence > {after:UInt64} AND changed_at <= fromUnixTimestamp64Milli({at:Int64})
     ORDER BY sequence`,
    { ...params, after: String(base.seq) },
  );
  const levels = (prices: unknown, sizes: unknown) =>
    (prices as string[]).map((p, i) => ({ priceMicro: Number(p), sizeMicro: String((sizes as string[])[i]) }));
  const snapshot: SnapshotRow = {
    tokenId,
    atUs: BigInt(base.at_us as string),
    sequence: BigInt(base.seq as string),
    bids: levels(base.bid_prices, base.bid_sizes),
    asks: levels(base.ask_prices, base.ask_sizes),
  };
  const changeRows: ChangeRow[] = changes.map((c) => ({
    tokenId,
    side: String(c.side).toLowerCase() === 'bid' ? 'bid' : 'ask',
    priceMicro: Number(c.price),
    sizeMicro: String(c.size),
    sequence: BigInt(c.seq as string),
    atUs: BigInt(c.at_us as string),
  }));
  return replayBook([snapshot], changeRows, BigInt(atMs) * 1000n + 999n);
}

async function rows(
  runner: QueryRunner,
  sql: string,
  params: Record<string, string>,
): Promise<Record<string, unknown>[]> {
  const text = (await runner.run(sql, 'JSONEachRow', params)).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
