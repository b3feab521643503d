/** The one database of the public SQL surface (sql/README.md). */
export const DATABASE = 'tapehouse';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** `trades` → `tapehouse.trades`; `db.table` stays as given. Anything else is refused. */
export function qualifiedTableName(table: string): { database: string; table: string; qualified: string } {
  const parts = table.split('.');
  const [database, name] = parts.length === 1 ? [DATABASE, parts[0]!] : [parts[0]!, parts[1] ?? ''];
  if (parts.length > 2 || !isIdentifier(database) || !isIdentifier(name)) {
    throw new Error(`not a table name: ${JSON.stringify(table)} (expected table or database.table)`);
  }
  return { database, table: name, qualified: `${database}.${name}` };
}

/** A ClickHouse string literal. */
export function sqlString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
