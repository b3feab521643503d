import type { ClickHouseClient } from '@clickhouse/client';
import { DATABASE, isIdentifier } from './database.ts';
import type { InsertRow } from './insert/index.ts';
import type { Warehouse } from './warehouse.ts';

/**
 * Two venue entities under one id. The venue names its trades, fills and orders by ids; an id seen
 * again with different content that cannot change (a fill's price, size or time) is not a newer
 * state of the same thing but another thing — a venue that reused its ids (a restarted simulator
 * did), or a bug. Nothing in the warehouse may merge the two silently: every row stays, and each
 * such id becomes one `data_quality` row (problem `identity_conflict`), which the reconciler turns
 * into an unproven result for what the entity touches.
 */

export interface NaturalKey {
  /** What the rows are, in the finding ("trade", "fill", "order"). */
  entity: string;
  table: string;
  /** Columns that name one entity. */
  key: readonly string[];
  /** Key columns that may be '' (a part of the key the venue may leave out: a trade's `fill_id`). */
  optional?: readonly string[];
  /** Columns an entity never changes; a key with two present values in one of them is a conflict. */
  immutable: readonly string[];
  /** Column with the token, shown on the finding. */
  token: string;
  /**
   * For a check of recent rows: older rows are compared only back this far (days) in this time
   * column, so the minute's check reads a week of a market-data table, not its whole history.
   */
  lookBack?: { column: string; days: number };
}

/**
 * Each table's natural key, in one place. Public trades are public fills keyed by (`trade_id`,
 * `fill_id`), `fill_id` '' when the venue sent none: the key of `src/api/trade-key.ts`, which the
 * tests hold this list to (the warehouse does not import the API client).
 */
export const NATURAL_KEYS: readonly NaturalKey[] = [
  {
    entity: 'trade',
    table: 'trades',
    key: ['trade_id', 'fill_id'],
    optional: ['fill_id'],
    immutable: ['token_id', 'side', 'price_micro', 'shares_micro', 'executed_at'],
    token: 'token_id',
    lookBack: { column: 'executed_at', days: 7 },
  },
  {
    entity: 'fill',
    table: 'fill_observations',
    key: ['account', 'fill_id'],
    immutable: ['trade_id', 'order_id', 'token_id', 'side', 'role', 'price_micro', 'shares_micro', 'executed_at'],
    token: 'token_id',
  },
  {
    entity: 'order',
    table: 'order_observations',
    key: ['account', 'order_id'],
    immutable: ['type', 'side', 'token_id', 'price_micro', 'original_size_micro', 'created_at'],
    token: 'token_id',
  },
];

/** One id naming more than one entity. */
export interface IdentityConflict {
  entity: string;
  table: string;
  /** Key column → value. */
  key: Record<string, string>;
  tokenIds: string[];
  /** Rows under the id, and how many entities it names at least (the most values an immutable column holds). */
  rows: number;
  variants: number;
  /** The immutable columns whose present values differ. */
  differing: string[];
  /** Epoch ms of the earliest time among the rows (`executed_at`, `created_at`; 0 when none). */
  firstAtMs: number;
  /** Each different content, as [column values…] in `immutable` order (up to 8). */
  contents: unknown[][];
}

export interface ConflictQuery {
  /** Only ids with a row received at or after this (epoch ms): the ones new rows could have made conflicting. */
  receivedSinceMs?: number;
  /** Only this account's (tables keyed by account). */
  account?: string;
}

export const IDENTITY_CONFLICT = 'identity_conflict';

/** The conflicts of one table's natural key. */
export async function findConflicts(
  client: ClickHouseClient,
  spec: NaturalKey,
  query: ConflictQuery = {},
): Promise<IdentityConflict[]> {
  const types = await columnTypes(client, spec.table);
  if (types.size === 0) return [];
  const all = [...spec.key, ...spec.immutable];
  for (const column of all)
    if (!isIdentifier(column) || !types.has(column))
      throw new Error(`${spec.table}.${column}: no such column for its natural key`);
  const table = `${DATABASE}.${spec.table}`;
  const keyTuple = `tuple(${spec.key.join(', ')})`;
  const filters = spec.key
    .filter((column) => isText(types.get(column)!) && !spec.optional?.includes(column))
    .map((column) => `${column} != ''`);
  if (query.account !== undefined && spec.key.includes('account')) filters.push('account = {account:String}');
  if (query.receivedSinceMs !== undefined) {
    filters.push(
      `${keyTuple} IN (SELECT ${keyTuple} FROM ${table} WHERE _received_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC'))`,
    );
    if (spec.lookBack && isIdentifier(spec.lookBack.column)) {
      filters.push(
        `${spec.lookBack.column} >= fromUnixTimestamp64Milli({since:Int64}, 'UTC') - INTERVAL ${Math.floor(spec.lookBack.days)} DAY`,
      );
    }
  }
  const distinct = spec.immutable.map(
    (column) => `uniqExactIf(${column}, ${present(column, types.get(column)!)}) AS n_${column}`,
  );
  const time = spec.immutable.find((column) => types.get(column)!.includes('DateTime'));
  const sql = `
SELECT ${spec.key.map((column) => `toString(${column}) AS k_${column}`).join(', ')},
       count() AS rows,
       ${distinct.join(',\n       ')},
       groupUniqArray(toString(${spec.token})) AS tokens,
       ${time ? `toUnixTimestamp64Milli(min(${time}))` : '0'} AS first_ms,
       toJSONString(groupUniqArray(8)(tuple(${spec.immutable.map((column) => `toString(${column})`).join(', ')}))) AS contents
FROM ${table}
${filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : ''}
GROUP BY ${spec.key.join(', ')}
HAVING ${spec.immutable.map((column) => `n_${column} > 1`).join(' OR ')}
ORDER BY ${spec.key.join(', ')}`;
  const result = await client.query({
    query: sql,
    format: 'JSONEachRow',
    query_params: {
      ...(query.account === undefined ? {} : { account: query.account }),
      ...(query.receivedSinceMs === undefined ? {} : { since: Math.floor(query.receivedSinceMs) }),
    },
  });
  const rows = await result.json<Record<string, unknown>>();
  return rows.map((row) => ({
    entity: spec.entity,
    table: spec.table,
    // An optional part the venue left out ('') is no part of the id.
    key: Object.fromEntries(
      spec.key
        .map((column) => [column, String(row[`k_${column}`])])
        .filter(([column, value]) => value !== '' || !spec.optional?.includes(column!)),
    ),
    tokenIds: (row.tokens as string[]).filter((token) => token !== '').sort(),
    rows: Number(row.rows),
    // At least as many entities as the most values one immutable column holds.
    variants: Math.max(...spec.immutable.map((column) => Number(row[`n_${column}`]))),
    differing: spec.immutable.filter((column) => Number(row[`n_${column}`]) > 1),
    firstAtMs: Number(row.first_ms),
    contents: JSON.parse(String(row.contents)) as unknown[][],
  }));
}

/** A value the row actually carries (not NULL, not the type's empty default: a source that left it out). */
function present(column: string, type: string): string {
  if (type.startsWith('Nullable(')) return `isNotNull(${column})`;
  if (isText(type)) return `${column} != ''`;
  if (type.includes('DateTime')) return `toUnixTimestamp64Milli(toDateTime64(${column}, 3)) != 0`;
  return `${column} != 0`;
}

function isText(type: string): boolean {
  return /^(LowCardinality\()?String\)?$/.test(type);
}

async function columnTypes(client: ClickHouseClient, table: string): Promise<Map<string, string>> {
  const result = await client.query({
    query: `SELECT name, type FROM system.columns WHERE database = {database:String} AND table = {table:String}`,
    query_params: { database: DATABASE, table },
    format: 'JSONEachRow',
  });
  return new Map((await result.json<{ name: string; type: string }>()).map((row) => [row.name, row.type]));
}

/** In words: "fill f2 of account demo names 2 different fills (executed_at differ)". */
export function describeConflict(conflict: IdentityConflict): string {
  const { account, ...rest } = conflict.key;
  const owner = account === undefined ? '' : ` of account ${account}`;
  return `${conflict.entity} ${Object.values(rest).join('/')}${owner} names ${conflict.variants} different ${conflict.entity}s (${conflict.differing.join(', ')} differ)`;
}

/** The finding as a data_quality row. */
export function conflictRow(conflict: IdentityConflict, detectedAtMs: number): InsertRow {
  const at = new Date(detectedAtMs);
  const detail = {
    table: conflict.table,
    key: conflict.key,
    variants: conflict.variants,
    rows: conflict.rows,
    differing: conflict.differing,
    contents: conflict.contents,
  };
  return {
    token_id: conflict.tokenIds[0] ?? '',
    stream: 'warehouse',
    problem: IDENTITY_CONFLICT,
    detail: `${describeConflict(conflict)}: ${JSON.stringify(detail)}`,
    detected_at: at,
    _topic: '',
    _partition: 0,
    _offset: 0,
    _received_at: at,
  };
}

/**
 * Records, as `data_quality` rows, the conflicts not recorded yet (an id already recorded with as
 * many different contents is not recorded again). Returns what it found and what it added.
 */
export async function recordConflicts(
  warehouse: Warehouse,
  query: Pick<ConflictQuery, 'receivedSinceMs'> = {},
  nowMs = Date.now(),
): Promise<{ found: IdentityConflict[]; recorded: number }> {
  const found: IdentityConflict[] = [];
  for (const spec of NATURAL_KEYS) found.push(...(await findConflicts(warehouse.client, spec, query)));
  if (found.length === 0) return { found, recorded: 0 };
  const known = await recordedConflicts(warehouse.client);
  const fresh = found.filter((conflict) => known.get(identityOf(conflict)) !== conflict.variants);
  if (fresh.length > 0)
    await warehouse.insertRows(
      'data_quality',
      fresh.map((conflict) => conflictRow(conflict, nowMs)),
    );
  return { found, recorded: fresh.length };
}

function identityOf(conflict: Pick<IdentityConflict, 'table' | 'key'>): string {
  return JSON.stringify([conflict.table, conflict.key]);
}

/** Ids already recorded → the number of different contents they had then. */
async function recordedConflicts(client: ClickHouseClient): Promise<Map<string, number>> {
  const result = await client.query({
    query: `SELECT detail FROM ${DATABASE}.data_quality WHERE problem = '${IDENTITY_CONFLICT}' AND stream = 'warehouse'`,
    format: 'JSONEachRow',
  });
  const known = new Map<string, number>();
  for (const { detail } of await result.json<{ detail: string }>()) {
    const json = detail.slice(detail.indexOf('{'));
    try {
      const parsed = JSON.parse(json) as { table: string; key: Record<string, string>; variants: number };
      const identity = identityOf(parsed);
      known.set(identity, Math.max(known.get(identity) ?? 0, parsed.variants));
    } catch {
      // a detail written by hand: not ours to read
    }
  }
  return known;
}
