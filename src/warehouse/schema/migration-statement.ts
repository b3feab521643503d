import type { ClickHouseClient } from '@clickhouse/client';
import { tokenize } from '../sql-lexer.ts';

/**
 * Runs one statement of a migration. A statement preceded by a comment line `-- only if: SELECT …`
 * runs only when that query's first value is 1: DDL that cannot say IF (EXCHANGE TABLES) stays
 * safe to run again when a migration was interrupted after it.
 */
export async function runMigrationStatement(client: ClickHouseClient, statement: string): Promise<boolean> {
  const guard = statementGuard(statement);
  if (guard !== undefined) {
    const result = await client.query({ query: guard, format: 'JSONCompactEachRow' });
    const [row] = await result.json<unknown[]>();
    if (Number(row?.[0] ?? 0) !== 1) return false;
  }
  await client.command({ query: statement });
  return true;
}

/** The query of a statement's `-- only if:` comment (among the comments before its first word). */
export function statementGuard(statement: string): string | undefined {
  const first = tokenize(statement)[0];
  const leading = statement.slice(0, first?.start ?? statement.length);
  return /^\s*--\s*only if:\s*(.+?)\s*$/m.exec(leading)?.[1];
}
