import { QueryRefused } from './query-refused.ts';
import { tokenize } from '../sql-lexer.ts';

/**
 * `param_<name>` values of the HTTP interface, bound as a ClickHouse server binds them.
 *
 * A server reads each value in the Escaped (TabSeparated) text format of the placeholder's type
 * (`{name:Type}`): for a String that means `\t \n \r \\ \' \0 \b \f \xHH` are escapes and `\N`
 * alone is NULL; an Array, Map or Tuple is read in its text form, whose quoted strings carry their
 * own escapes. chDB's binder takes a JS value and escapes a string itself before the engine reads
 * it back, so the text from the URL is first turned into the value it stands for: unescaped for a
 * scalar type, and for a composite one rewritten so that the engine, after chDB's escaping, reads
 * the same elements a server would.
 */

/** What chDB's binder takes: the value, or null for `\N`. */
export type BoundParameter = string | null;

export function bindQueryParameters(
  sql: string,
  raw: Readonly<Record<string, string>>,
): Record<string, BoundParameter> {
  const types = placeholderTypes(sql);
  const bound: Record<string, BoundParameter> = {};
  for (const [name, text] of Object.entries(raw)) {
    const type = types.get(name);
    if (text === '\\N') bound[name] = null;
    else if (type !== undefined && isComposite(type)) bound[name] = requoteComposite(text);
    else if (type !== undefined && /^Identifier$/i.test(type)) bound[name] = text;
    else bound[name] = unescapeScalar(name, type ?? 'String', text);
  }
  return bound;
}

/** The declared type of each `{name:Type}` placeholder outside strings and comments. */
export function placeholderTypes(sql: string): Map<string, string> {
  const types = new Map<string, string>();
  let tokens;
  try {
    tokens = tokenize(sql);
  } catch {
    return types; // the query's own check reports the syntax error
  }
  for (let i = 0; i + 3 < tokens.length; i++) {
    if (tokens[i]!.text !== '{' || tokens[i + 1]!.kind !== 'word' || tokens[i + 2]!.text !== ':') continue;
    let braces = 1;
    let j = i + 3;
    for (; j < tokens.length; j++) {
      if (tokens[j]!.text === '{') braces++;
      if (tokens[j]!.text === '}' && --braces === 0) break;
    }
    if (j >= tokens.length) break;
    const name = tokens[i + 1]!.text;
    if (!types.has(name)) types.set(name, sql.slice(tokens[i + 2]!.end, tokens[j]!.start).trim());
    i = j;
  }
  return types;
}

const WRAPPER = /^(?:Nullable|LowCardinality)\s*\((.*)\)$/is;
const COMPOSITE =
  /^(?:Array|Map|Tuple|Nested|JSON|Object|Variant|Dynamic|Point|Ring|Polygon|MultiPolygon|LineString|MultiLineString)\b/i;

function isComposite(type: string): boolean {
  let inner = type.trim();
  for (let match = WRAPPER.exec(inner); match; match = WRAPPER.exec(inner)) inner = match[1]!.trim();
  return COMPOSITE.test(inner);
}

/** ClickHouse's parseEscapeSequence: the character an escape stands for. */
const ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '0': '\0',
};

/**
 * An Escaped-format value read the way a server reads a String: escapes decoded (a backslash
 * before a raw tab or newline makes it part of the value), `\N` inside a value is nothing. An
 * unescaped tab or newline ends a TabSeparated field, so a server stops there and refuses the
 * value as not parsed completely; so does this.
 */
export function unescapeScalar(name: string, type: string, text: string): string {
  let stop = -1;
  for (let i = 0; i < text.length && stop === -1; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '\t' || text[i] === '\n') stop = i;
  }
  if (stop !== -1) {
    throw new QueryRefused(
      457,
      'BAD_QUERY_PARAMETER',
      `Value ${text} cannot be parsed as ${type} for query parameter '${name}' because it isn't parsed completely: ` +
        `only ${Buffer.byteLength(text.slice(0, stop))} of ${Buffer.byteLength(text)} bytes was parsed: ${text.slice(0, stop)}`,
    );
  }
  return decodeEscapes(text, 0, text.length, false).value;
}

/**
 * Decodes backslash escapes from `start` until `end`, or, with `quoted`, until the closing quote
 * (a doubled quote is a quote, as ClickHouse's quoted-string reader has it).
 */
function decodeEscapes(text: string, start: number, end: number, quoted: boolean): { value: string; next: number } {
  let out = '';
  let i = start;
  while (i < end) {
    const c = text[i]!;
    if (quoted && c === "'") {
      if (text[i + 1] === "'") {
        out += "'";
        i += 2;
        continue;
      }
      return { value: out, next: i + 1 };
    }
    if (c !== '\\' || i + 1 >= end) {
      out += c;
      i++;
      continue;
    }
    const e = text[i + 1]!;
    if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
      out += String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (e === 'N' && !quoted) {
      i += 2; // \N inside an Escaped string stands for nothing
    } else {
      out += ESCAPES[e] ?? e;
      i += 2;
    }
  }
  return { value: out, next: end };
}

/**
 * A composite value's text with every quoted string re-quoted so that it carries no backslash
 * escape of its own: its characters are written as they are, a quote as `''`. chDB escapes the
 * whole text once for transport and the engine's reader takes that escaping off again, so the
 * elements come out as the client wrote them.
 */
export function requoteComposite(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c !== "'") {
      out += c;
      i++;
      continue;
    }
    const { value, next } = decodeEscapes(text, i + 1, text.length, true);
    out += `'${value.replace(/'/g, "''")}'`;
    i = next;
  }
  return out;
}
