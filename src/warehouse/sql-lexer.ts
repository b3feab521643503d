/**
 * Just enough of ClickHouse's lexer to split a script into statements and to find a statement's
 * top-level clauses (SETTINGS, FORMAT) without being fooled by strings, quoted identifiers or
 * comments. Where this lexer and ClickHouse could disagree (heredocs `$$…$$`, `#` comments) it errs
 * towards seeing *more* structure, so a read-only check built on it refuses rather than allows.
 */

export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'punct' | 'semicolon';

export interface Token {
  kind: TokenKind;
  /** Source text of the token, quotes included. */
  text: string;
  start: number;
  end: number;
  /** Parenthesis / bracket nesting depth at the token (0 = top level of the statement). */
  depth: number;
}

export class SqlLexError extends Error {}

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_$]/;
const DIGIT = /[0-9]/;

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      i = skipLineComment(sql, i);
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      i = skipBlockComment(sql, i);
      continue;
    }
    const start = i;
    let kind: TokenKind;
    if (c === "'") {
      i = skipQuoted(sql, i, "'");
      kind = 'string';
    } else if (c === '"' || c === '`') {
      i = skipQuoted(sql, i, c);
      kind = 'quoted';
    } else if (WORD_START.test(c)) {
      while (i < sql.length && WORD_PART.test(sql[i]!)) i++;
      kind = 'word';
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(sql[i + 1] ?? ''))) {
      i = skipNumber(sql, i);
      kind = 'number';
    } else if (c === ';') {
      i++;
      kind = 'semicolon';
    } else {
      i++;
      kind = 'punct';
    }
    if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    tokens.push({ kind, text: sql.slice(start, i), start, end: i, depth });
    if (c === '(' || c === '[') depth++;
  }
  return tokens;
}

function skipLineComment(sql: string, i: number): number {
  const end = sql.indexOf('\n', i);
  return end === -1 ? sql.length : end + 1;
}

function skipBlockComment(sql: string, i: number): number {
  // ClickHouse block comments nest.
  let nesting = 0;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      nesting++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      nesting--;
      i += 2;
      if (nesting === 0) return i;
    } else {
      i++;
    }
  }
  throw new SqlLexError('unterminated /* comment');
}

function skipQuoted(sql: string, i: number, quote: string): number {
  i++;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (sql[i + 1] === quote)
        i += 2; // doubled quote is an escaped quote
      else return i + 1;
    } else {
      i++;
    }
  }
  throw new SqlLexError(`unterminated ${quote}-quoted text`);
}

function skipNumber(sql: string, i: number): number {
  while (i < sql.length && /[0-9A-Za-z_.]/.test(sql[i]!)) {
    // exponent sign: 1e-5
    if ((sql[i] === 'e' || sql[i] === 'E') && (sql[i + 1] === '-' || sql[i + 1] === '+')) i++;
    i++;
  }
  return i;
}

/** Statements of a script, split at top-level semicolons; empty statements are dropped. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  for (const token of tokenize(sql)) {
    if (token.kind !== 'semicolon') continue;
    statements.push(sql.slice(start, token.start));
    start = token.end;
  }
  statements.push(sql.slice(start));
  return statements.filter((statement) => tokenize(statement).length > 0).map((s) => s.trim());
}

/** Upper-cased word text, or '' for other tokens; keywords are case-insensitive in ClickHouse. */
export function keyword(token: Token | undefined): string {
  return token?.kind === 'word' ? token.text.toUpperCase() : '';
}
