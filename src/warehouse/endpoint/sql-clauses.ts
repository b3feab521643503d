import { QueryRefused } from './query-refused.ts';
import { keyword, tokenize, type Token } from '../sql-lexer.ts';

/** Finding a statement's SETTINGS and FORMAT clauses in its tokens (see sql-lexer.ts). */

export interface Span {
  start: number;
  end: number;
}

/** The statement's top-level SETTINGS clauses (their source spans) and FORMAT name, if any. */
export function findTopLevelClauses(tokens: Token[]): { settings: Span[]; format?: string } {
  const found: { settings: Span[]; format?: string } = { settings: [] };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.depth !== 0) continue;
    const word = keyword(token);
    if (word === 'FORMAT' && isFormatClause(tokens, i)) {
      found.format = unquote(tokens[i + 1]!.text);
    } else if (word === 'SETTINGS' && isSettingsClause(tokens, i)) {
      const end = settingsClauseEnd(tokens, i);
      found.settings.push({ start: token.start, end: tokens[end - 1]!.end });
      i = end - 1;
    }
  }
  return found;
}

/** FORMAT <name> at the end of the statement, or followed by its SETTINGS clause. */
function isFormatClause(tokens: Token[], i: number): boolean {
  const name = tokens[i + 1];
  if (!name || (name.kind !== 'word' && name.kind !== 'quoted')) return false;
  const after = tokens[i + 2];
  return after === undefined || (keyword(after) === 'SETTINGS' && isSettingsClause(tokens, i + 2));
}

/** SETTINGS followed by `name =` (not a column or alias named settings). */
function isSettingsClause(tokens: Token[], i: number): boolean {
  return tokens[i + 1]?.kind === 'word' && tokens[i + 2]?.text === '=';
}

/** Index just past the clause: it ends before FORMAT, a closing bracket or the end of the statement. */
function settingsClauseEnd(tokens: Token[], i: number): number {
  const depth = tokens[i]!.depth;
  let j = i + 1;
  while (j < tokens.length) {
    const token = tokens[j]!;
    if (token.depth < depth || (token.depth === depth && keyword(token) === 'FORMAT' && isFormatClause(tokens, j)))
      break;
    j++;
  }
  return j;
}

export interface SettingsClause {
  topLevel: boolean;
  pairs: Array<[name: string, value: string]>;
}

/** Every SETTINGS clause of the statement, at any depth, as name → value source text. */
export function findSettingsClauses(tokens: Token[], sql: string): SettingsClause[] {
  const clauses: SettingsClause[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (keyword(tokens[i]) !== 'SETTINGS' || !isSettingsClause(tokens, i)) continue;
    const end = settingsClauseEnd(tokens, i);
    const depth = tokens[i]!.depth;
    const pairs: SettingsClause['pairs'] = [];
    let j = i + 1;
    while (j < end) {
      const name = tokens[j]!;
      if (tokens[j + 1]?.text !== '=')
        throw new QueryRefused(62, 'SYNTAX_ERROR', `Syntax error in SETTINGS near ${name.text}`);
      let k = j + 2;
      while (k < end && !(tokens[k]!.text === ',' && tokens[k]!.depth === depth)) k++;
      if (k === j + 2) throw new QueryRefused(62, 'SYNTAX_ERROR', `Syntax error: setting ${name.text} has no value`);
      pairs.push([name.text, sql.slice(tokens[j + 2]!.start, tokens[k - 1]!.end)]);
      j = k + 1;
    }
    clauses.push({ topLevel: depth === 0, pairs });
    i = end - 1;
  }
  return clauses;
}

export function unquote(text: string): string {
  const first = text[0];
  return (first === '"' || first === '`' || first === "'") && text.endsWith(first) ? text.slice(1, -1) : text;
}

/** The FORMAT a statement names for itself, if any. */
export function statementFormat(sql: string): string | undefined {
  return findTopLevelClauses(tokenize(sql)).format;
}
