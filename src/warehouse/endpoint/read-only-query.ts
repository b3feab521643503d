import { isIdentifier, sqlString } from '../database.ts';
import { QueryRefused } from './query-refused.ts';
import { findSettingsClauses, findTopLevelClauses, unquote } from './sql-clauses.ts';
import { keyword, SqlLexError, tokenize, type Token } from '../sql-lexer.ts';

/**
 * The checks and rewrites that make a query safe to run for an outside client of the embedded
 * endpoint. ClickHouse's own readonly mode is the main guard (the reader sessions run with
 * readonly=2), and these checks close what it leaves open in an embedded engine: several
 * statements in one request, files written by INTO OUTFILE, table functions that reach the file
 * system, the network or the host process, and settings that would lift the endpoint's bounds.
 *
 * Table functions are allowed by name: those below, which read the warehouse or make data from
 * nothing. Every other table function is refused, whether it is listed as refused here or is one
 * a chDB upgrade added (the endpoint passes the engine's own list, system.table_functions, and a
 * test fails until each name in it is classified).
 */

export interface QueryLimits {
  /** Seconds; a client may ask for less. */
  maxExecutionTime: number;
  /** Rows of the answer; 0: no bound (as a ClickHouse server), else a client may ask for less. */
  maxResultRows: number;
  /** Uncompressed bytes of the answer's blocks; 0: no bound. */
  maxResultBytes: number;
}

export const DEFAULT_LIMITS: QueryLimits = {
  maxExecutionTime: 60,
  maxResultRows: 0,
  maxResultBytes: 0,
};

export interface ReadOnlyQuery {
  /** The statement with the merged SETTINGS clause appended. */
  sql: string;
  /** The statement's own FORMAT, if it has one. */
  format: string | undefined;
}

const READ_STATEMENTS = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXISTS', 'EXPLAIN']);
const OTHER_STATEMENTS = new Set([
  'INSERT',
  'CREATE',
  'ALTER',
  'DROP',
  'TRUNCATE',
  'RENAME',
  'OPTIMIZE',
  'SYSTEM',
  'KILL',
  'SET',
  'USE',
  'GRANT',
  'REVOKE',
  'ATTACH',
  'DETACH',
  'DELETE',
  'UPDATE',
  'EXCHANGE',
  'BACKUP',
  'RESTORE',
  'UNDROP',
  'CHECK',
  'MOVE',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'WATCH',
  'REPLACE',
  'UNDO',
]);

/** Table functions that read only the warehouse, or make rows from their arguments. */
export const ALLOWED_TABLE_FUNCTIONS: readonly string[] = [
  'numbers',
  'numbers_mt',
  'zeros',
  'zeros_mt',
  'primes',
  'generate_series',
  'generateSeries',
  'generateRandom',
  'values',
  'SQLStandardValues',
  'null',
  'format',
  'fuzzJSON',
  'fuzzQuery',
  'view',
  'viewIfPermitted',
  'viewExplain',
  'merge',
  'loop',
  'dictionary',
  'mergeTreeIndex',
  'mergeTreeAnalyzeIndexes',
  'mergeTreeAnalyzeIndexesUUID',
  'mergeTreeProjection',
  'mergeTreeTextIndex',
  'timeSeriesData',
  'timeSeriesMetrics',
  'timeSeriesSamples',
  'timeSeriesSelector',
  'timeSeriesTags',
];

/**
 * Table functions refused on purpose: files, URLs, object stores and lakes, other databases,
 * processes, `input` (an INSERT's data), `arrowstream` (chDB: Arrow data of the host process),
 * `eval`. `file` is also a scalar function (it reads a file), refused as well.
 */
export const REFUSED_TABLE_FUNCTIONS: readonly string[] = [
  'file',
  'fileCluster',
  'filesystem',
  'url',
  'urlCluster',
  'remote',
  'remoteSecure',
  'cluster',
  'clusterAllReplicas',
  'mysql',
  'postgresql',
  'mongodb',
  'redis',
  'sqlite',
  'odbc',
  'jdbc',
  'ytsaurus',
  'executable',
  'eval',
  'input',
  'arrowstream',
  's3',
  's3Cluster',
  'gcs',
  'oss',
  'cosn',
  'hdfs',
  'hdfsCluster',
  'azureBlobStorage',
  'azureBlobStorageCluster',
  'deltaLake',
  'deltaLakeAzure',
  'deltaLakeAzureCluster',
  'deltaLakeCluster',
  'deltaLakeLocal',
  'deltaLakeS3',
  'deltaLakeS3Cluster',
  'hudi',
  'hudiCluster',
  'iceberg',
  'icebergAzure',
  'icebergAzureCluster',
  'icebergCluster',
  'icebergHDFS',
  'icebergHDFSCluster',
  'icebergLocal',
  'icebergLocalCluster',
  'icebergS3',
  'icebergS3Cluster',
  'paimon',
  'paimonAzure',
  'paimonAzureCluster',
  'paimonCluster',
  'paimonHDFS',
  'paimonHDFSCluster',
  'paimonLocal',
  'paimonS3',
  'paimonS3Cluster',
  'prometheusQuery',
  'prometheusQueryRange',
];

const ALLOWED = new Set(ALLOWED_TABLE_FUNCTIONS.map((name) => name.toLowerCase()));
const REFUSED = new Set(REFUSED_TABLE_FUNCTIONS.map((name) => name.toLowerCase()));

/** Settings the endpoint decides: clients may lower the bounds but not lift them. */
const BOUNDED = new Set(['max_execution_time', 'max_result_rows', 'max_result_bytes', 'result_overflow_mode']);
/** Settings a client may not touch at all. */
const FORBIDDEN = new Set(['readonly', 'allow_ddl', 'allow_introspection_functions']);

export function prepareReadOnlyQuery(
  sql: string,
  clientSettings: Readonly<Record<string, string>> = {},
  limits: QueryLimits = DEFAULT_LIMITS,
  /** The engine's table functions (system.table_functions); any not allowed by name is refused. */
  engineTableFunctions: ReadonlySet<string> = new Set(),
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
  checkNoOutsideAccess(tokens, new Set([...engineTableFunctions].map((name) => name.toLowerCase())));

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

function checkNoOutsideAccess(tokens: Token[], engineTableFunctions: ReadonlySet<string>): void {
  const reachesOutside = (name: string) => {
    const lower = name.toLowerCase();
    return REFUSED.has(lower) || (engineTableFunctions.has(lower) && !ALLOWED.has(lower));
  };
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
        `Cannot execute query in readonly mode: function ${token.text}() is not a table function this endpoint allows`,
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

function applyBounds(settings: Map<string, string>, limits: QueryLimits): void {
  const asked = (name: string) => Number(unquote(settings.get(name) ?? ''));
  const bound = (name: string, max: number) => {
    if (max <= 0) return; // no bound of ours: the client's value, if any, stands
    const value = asked(name);
    // 0 means "no limit" in ClickHouse, so it cannot lower a bound.
    settings.set(name, String(Number.isFinite(value) && value > 0 ? Math.min(value, max) : max));
  };
  bound('max_execution_time', limits.maxExecutionTime);
  bound('max_result_rows', limits.maxResultRows);
  bound('max_result_bytes', limits.maxResultBytes);
  // Reaching a bound of ours is an error, never an answer silently cut short.
  if (limits.maxResultRows > 0 || limits.maxResultBytes > 0) settings.set('result_overflow_mode', "'throw'");
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
