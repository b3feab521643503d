import type { ClickHouseClient } from '@clickhouse/client';
import { DATABASE, sqlString } from '../database.ts';
import { runMigrationStatement, statementGuard } from './migration-statement.ts';
import { keyword, splitStatements, tokenize, type Token } from '../sql-lexer.ts';

/**
 * What the migrations leave in the warehouse, and putting back what went missing. The applied
 * migrations say what *should* exist; `system.tables` what does. A table or view dropped by hand
 * (before `tapehouse sql` became read-only, or on a server) would otherwise stay missing for good:
 * `migrate` would find every migration applied and do nothing while the loaders stall.
 */

/** Migration text in the order applied. */
interface MigrationText {
  file: string;
  sql: string;
}

/**
 * Tables, views and dictionaries of database `tapehouse` the migrations leave, by name: each
 * CREATE adds its object, DROP removes it, RENAME moves it; EXCHANGE leaves both names.
 */
export function expectedObjects(migrations: readonly MigrationText[]): Set<string> {
  const objects = new Set<string>();
  for (const migration of migrations) {
    for (const statement of splitStatements(migration.sql)) {
      const tokens = tokenize(statement);
      const verb = keyword(tokens[0]);
      if (verb === 'CREATE') {
        const name = nameAfter(tokens, OBJECT_KINDS);
        if (name) objects.add(name);
      } else if (verb === 'DROP') {
        const name = nameAfter(tokens, OBJECT_KINDS);
        if (name) objects.delete(name);
      } else if (verb === 'RENAME') {
        for (const [from, to] of renames(tokens)) {
          if (objects.delete(from)) objects.add(to);
        }
      }
    }
  }
  return objects;
}

const OBJECT_KINDS = ['TABLE', 'VIEW', 'DICTIONARY'];

/** The object of ours a CREATE statement makes (leading comments allowed), or undefined. */
export function createdObject(statement: string): string | undefined {
  const tokens = tokenize(statement);
  return keyword(tokens[0]) === 'CREATE' ? nameAfter(tokens, OBJECT_KINDS) : undefined;
}

/** Every object of ours a statement names (`tapehouse.x`), its own included. */
export function referencedObjects(statement: string): Set<string> {
  const tokens = tokenize(statement);
  const names = new Set<string>();
  tokens.forEach((_, i) => {
    const name = ownName(tokens, i);
    if (name) names.add(name);
  });
  return names;
}

/**
 * Objects in an order they can be created in: each after every object of ours among them that it
 * names (a view's tables, a materialised view's source and target). Objects not among them are
 * taken to exist.
 */
export function inCreationOrder<T extends { name: string; ddl: string }>(objects: readonly T[]): T[] {
  const byName = new Map(objects.map((o) => [o.name, o]));
  const ordered: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (object: T) => {
    if (state.get(object.name) === 'done') return;
    if (state.get(object.name) === 'visiting') throw new Error(`${object.name} reads itself through other objects`);
    state.set(object.name, 'visiting');
    for (const name of referencedObjects(object.ddl)) {
      const dependency = byName.get(name);
      if (dependency && name !== object.name) visit(dependency);
    }
    state.set(object.name, 'done');
    ordered.push(object);
  };
  objects.forEach(visit);
  return ordered;
}

/** `tapehouse.x` → `x` after the kind keyword (and IF [NOT] EXISTS); other databases are not ours. */
function nameAfter(tokens: readonly Token[], kinds: readonly string[]): string | undefined {
  const at = tokens.findIndex((token) => kinds.includes(keyword(token)));
  if (at < 0) return undefined;
  let i = at + 1;
  while (['IF', 'NOT', 'EXISTS'].includes(keyword(tokens[i]))) i++;
  return ownName(tokens, i);
}

function ownName(tokens: readonly Token[], i: number): string | undefined {
  const [database, dot, table] = [tokens[i], tokens[i + 1], tokens[i + 2]];
  if (dot?.text !== '.' || !database || !table) return undefined;
  return unquote(database.text) === DATABASE ? unquote(table.text) : undefined;
}

function renames(tokens: readonly Token[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  tokens.forEach((token, i) => {
    if (keyword(token) !== 'TO') return;
    const from = ownName(tokens, i - 3);
    const to = ownName(tokens, i + 1);
    if (from && to) pairs.push([from, to]);
  });
  return pairs;
}

function unquote(text: string): string {
  return /^[`"].*[`"]$/.test(text) ? text.slice(1, -1) : text;
}

/** Names of what exists in `tapehouse` now. */
export async function existingObjects(client: ClickHouseClient): Promise<Set<string>> {
  const result = await client.query({
    query: `SELECT name FROM system.tables WHERE database = ${sqlString(DATABASE)}`,
    format: 'JSONEachRow',
  });
  return new Set((await result.json<{ name: string }>()).map((row) => row.name));
}

/** A scratch database the migrations are replayed into, to read back each object's definition. */
const SCRATCH = `${DATABASE}__expected_schema`;

/**
 * Creates the `missing` objects as the migrations define them now (with every later ALTER): the
 * migrations are replayed into a scratch database, each missing object's CREATE is read back from
 * it and run in `tapehouse`, tables before the views that read them. Their rows are gone: a table
 * comes back empty (the loaders fill it from here on; a materialised view's target keeps its own).
 */
export async function recreateObjects(
  client: ClickHouseClient,
  migrations: readonly MigrationText[],
  missing: ReadonlySet<string>,
): Promise<string[]> {
  await client.command({ query: `DROP DATABASE IF EXISTS ${SCRATCH} SYNC` });
  await client.command({ query: `CREATE DATABASE ${SCRATCH}` });
  try {
    for (const migration of migrations) {
      for (const statement of splitStatements(migration.sql)) {
        if (keyword(tokenize(statement)[0]) === 'INSERT') continue; // back-fills: no rows here
        await runMigrationStatement(client, retarget(statement, DATABASE, SCRATCH));
      }
    }
    const result = await client.query({
      query: `SELECT name, create_table_query AS ddl FROM system.tables WHERE database = ${sqlString(SCRATCH)} AND name IN (${[...missing].map(sqlString).join(', ') || "''"})`,
      format: 'JSONEachRow',
    });
    const definitions = (await result.json<{ name: string; ddl: string }>()).map((d) => ({
      name: d.name,
      ddl: retarget(d.ddl, SCRATCH, DATABASE),
    }));
    const created: string[] = [];
    for (const definition of inCreationOrder(definitions)) {
      await client.command({ query: definition.ddl });
      created.push(definition.name);
    }
    return created;
  } finally {
    await client.command({ query: `DROP DATABASE IF EXISTS ${SCRATCH} SYNC` });
  }
}

/**
 * The statement with database `from` as `to`: in qualified names (`from.x`) and where a migration
 * names it as a string (`database = 'from'` in a look at system.tables, its `-- only if:` guard
 * included). Other strings and comments stay.
 */
export function retarget(sql: string, from: string, to: string): string {
  const guard = statementGuard(sql);
  const at = guard === undefined ? -1 : sql.indexOf(guard);
  if (guard !== undefined && at >= 0)
    return sql.slice(0, at) + retarget(guard, from, to) + retarget(sql.slice(at + guard.length), from, to);
  const tokens = tokenize(sql);
  let out = '';
  let done = 0;
  tokens.forEach((token, i) => {
    const qualified =
      unquote(token.text) === from && (token.kind === 'word' || token.kind === 'quoted') && tokens[i + 1]?.text === '.';
    const named = token.kind === 'string' && token.text === `'${from}'`;
    if (!qualified && !named) return;
    out += sql.slice(done, token.start) + (named ? `'${to}'` : to);
    done = token.end;
  });
  return out + sql.slice(done);
}
