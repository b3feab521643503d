import { isIdentifier, sqlString } from './database.ts';
import { QueryRefused } from './query-refused.ts';
import { findSettingsClauses, findTopLevelClauses, unquote } from './sql-clauses.ts';
import { keyword, SqlLexError, tokenize, type Token } from './sql-lexer.ts';

/**
 * The checks and rewrites that make a query safe to run for an outside client of the embedded
 * endpoint. ClickHouse's own readonly mode is the main guard (the reader sessions run with
 * readonly=2), and these checks close what it leaves open in an embedded engine: several
 * statements in one request, files written by INTO OUTFILE, table functions that reach the file
 * system or the network, and settings that would lift the time and size bounds.
 */

export interface QueryLimits {
  /** Seconds. */
  maxExecutionTime: number;
  maxResultRows: number;
  maxResultBytes: number;
}

export const DEFAULT_LIMITS: QueryLimits = {
  maxExecutionTime: 60,
  maxResultRows: 1_000_000,
  maxResultBytes: 256 * 1024 * 1024,
};

export interface ReadOnlyQuery {
  /** The statement with the merged SETTINGS clause appended. */
  sql: string;
  /** The statement's own FORMAT, if it has one. */
  format: string | undefined;
}

const READ_STATEMENTS = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXISTS', 'EXPLAIN']);
const OTHER_STATEMENTS = new Set([
  'INSERT', 'CREATE', 'ALTER', 'DROP', 'TRUNCATE', 'RENAME', 'OPTIMIZE', 'SYSTEM', 'KILL', 'SET', 'USE', 'GRANT',
  'REVOKE', 'ATTACH', 'DETACH', 'DELETE', 'UPDATE', 'EXCHANGE', 'BACKUP', 'RESTORE', 'UNDROP', 'CHECK', 'MOVE',
  'BEGIN', 'COMMIT', 'ROLLBACK', 'WATCH', 'REPLACE', 'UNDO',
]);

// Table (and scalar) functions that read or write outside the warehouse: files, URLs, object
// stores, other databases, processes.
const OUTSIDE_FUNCTIONS = new Set(
  [
    'file', 'fileCluster', 'url', 'urlCluster', 'remote', 'remoteSecure', 'cluster', 'clusterAllReplicas',
    'mysql', 'postgresql', 'mongodb', 'redis', 'sqlite', 'odbc', 'jdbc', 'executable', 'gcs', 'oss', 'cosn',
    'ytsaurus', 'arrowFlight', 'arrowflight', 'prometheusQuery', 'prometheusQueryRange', 'hdfs', 'hdfsCluster',
    // filesystem() lists and reads files (its content column); eval() is an experimental table
    // function a client could switch on with a setting.
    'filesystem', 'eval',
  ].map((name) => name.toLowerCase()),
);
const OUTSIDE_FUNCTION_FAMILIES = ['s3', 'azureblob', 'iceberg', 'deltalake', 'hudi', 'paimon', 'hdfs'];

/** Settings the endpoint decides: clients may lower the bounds but not lift them. */
const BOUNDED = new Set(['max_execution_time', 'max_result_rows', 'max_result_bytes', 'result_overflow_mode']);
/** Settings a client may not touch at all. */
const FORBIDDEN = new Set(['readonly', 'allow_ddl', 'allow_introspection_functions']);

export function prepareReadOnlyQuery(
  sql: string,
  clientSettings: Readonly<Record<string, string>> = {},
  limits: QueryLimits = DEFAULT_LIMITS,
): ReadOnlyQuery {
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch (err) {
    if (err instanceof SqlLexError) throw new QueryRefused(62, 'SYNTAX_ERROR', `Syntax error: ${err.message}`);
    throw err;
  }
  while (tokens.at(-1)?.kind === 'semicolon') tokens.pop();
  if (tokens.length === 0) throw new QueryRefused(62, 'SYNTAX_ERROR', 'Empty query');
  if (tokens.some((token) => token.kind === 'semicolon')) {
    throw new QueryRefused(62, 'SYNTAX_ERROR', 'Multi-statements are not allowed');
  }
  checkStatementKind(tokens);
  checkNoOutsideAccess(tokens);

  const clauses = findTopLevelClauses(tokens);
  const settings = new Map<string, string>();
  for (const [name, value] of Object.entries(clientSettings)) settings.set(name, settingLiteral(value));
  for (const clause of findSettingsClauses(tokens, sql)) {
    for (const [name, value] of clause.pairs) {
      if (FORBIDDEN.has(name.toLowerCase())) throw refuseSetting(name);
      if (clause.topLevel) settings.set(name, value);
      else if (BOUNDED.has(name)) throw refuseSetting(name); // a subquery must not lift the bounds
    }
  }
  for (const name of settings.keys()) {
    if (FORBIDDEN.has(name.toLowerCase())) settings.delete(name); // clients sometimes send readonly=1: ours is stricter
  }
  applyBounds(settings, limits);

  let text = sql.slice(0, tokens.at(-1)!.end);
  for (const span of clauses.settings.reverse()) text = text.slice(0, span.start) + text.slice(span.end);
  const merged = [...settings].map(([name, value]) => `${name} = ${value}`).join(', ');
  return { sql: `${text.trimEnd()}\nSETTINGS ${merged}`, format: clauses.format };
}

function checkStatementKind(tokens: Token[]): void {
  const first = tokens.find((token) => token.text !== '(');
  const kind = keyword(first);
  if (!OTHER_STATEMENTS.has(kind) && !READ_STATEMENTS.has(kind)) {
    throw new QueryRefused(62, 'SYNTAX_ERROR', `Syntax error: no statement starts with ${first?.text ?? 'that'}`);
  }
  if (!READ_STATEMENTS.has(kind)) {
    throw new QueryRefused(
      164,
      'READONLY',
      `Cannot execute query in readonly mode: this endpoint serves ${[...READ_STATEMENTS].join(', ')} only`,
    );
  }
}

function checkNoOutsideAccess(tokens: Token[]): void {
  tokens.forEach((token, i) => {
    const word = keyword(token);
    if (word === 'INTO' && keyword(tokens[i + 1]) === 'OUTFILE') {
      throw new QueryRefused(164, 'READONLY', 'Cannot execute query in readonly mode: INTO OUTFILE writes a file');
    }
    if (tokens[i + 1]?.text !== '(') return;
    if (token.kind === 'word' && reachesOutside(token.text)) {
      throw new QueryRefused(
        164,
        'READONLY',
        `Cannot execute query in readonly mode: function ${token.text}() reaches outside the warehouse`,
      );
    }
    // A quoted function name (`file`, "url", or with escapes such as `\x66ile`) is a name like any
    // other to ClickHouse: allowed only when it is plainly written and reaches nothing outside.
    if (token.kind === 'quoted') {
      const name = unquote(token.text);
      if (!isIdentifier(name) || reachesOutside(name)) {
        throw new QueryRefused(
          164,
          'READONLY',
          `Cannot execute query in readonly mode: function ${token.text}() is quoted and names ${isIdentifier(name) ? 'a function that reaches outside the warehouse' : 'something other than a plain function'}`,
        );
      }
    }
  });
}

function reachesOutside(name: string): boolean {
  const lower = name.toLowerCase();
  return OUTSIDE_FUNCTIONS.has(lower) || OUTSIDE_FUNCTION_FAMILIES.some((family) => lower.startsWith(family));
}

function applyBounds(settings: Map<string, string>, limits: QueryLimits): void {
  const bound = (name: string, max: number) => {
    const asked = Number(unquote(settings.get(name) ?? ''));
    // 0 means "no limit" in ClickHouse, so it cannot lower a bound.
    settings.set(name, String(Number.isFinite(asked) && asked > 0 ? Math.min(asked, max) : max));
  };
  bound('max_execution_time', limits.maxExecutionTime);
  bound('max_result_rows', limits.maxResultRows);
  bound('max_result_bytes', limits.maxResultBytes);
  settings.set('result_overflow_mode', "'throw'");
}

function refuseSetting(name: string): QueryRefused {
  return new QueryRefused(164, 'READONLY', `Cannot modify '${name}' setting in readonly mode`);
}

/** A setting from a URL parameter as SQL: numbers as they are, anything else as a string. */
function settingLiteral(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : sqlString(value);
}

/** Names a client may send as settings in the URL: plain identifiers only. */
export function isSettingName(name: string): boolean {
  return isIdentifier(name);
}
