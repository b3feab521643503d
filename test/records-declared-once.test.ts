import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOPICS } from '../src/bus/topics.ts';
import { DECLARATIONS, RECORD_KINDS } from '../src/records/index.ts';

/**
 * A record kind is declared once (src/records/kinds/): no other file may write a list of kinds,
 * of topic suffixes or of tables by hand. A list here is three or more string literals in a row,
 * separated only by commas, `|`, spaces and line comments (an array, a union type, a Set's
 * entries), naming kinds (all but one at most) — or topics, or tables. The code is checked, and the test
 * helpers (test/*-helpers.ts); a test file may name the few kinds its assertions are about.
 */

const ROOTS = ['src', 'test', 'bench', 'scripts', 'workflows'];
const DECLARED_IN = 'src/records/kinds/';
/** Lists that choose some kinds for a purpose, not a catalogue: file → why. */
const CHOSEN: Readonly<Record<string, string>> = {
  'src/sync/jobs/account-list.ts': 'ListKind: the three kinds the account-list jobs make, a type constraint',
};
const checked = (path: string): boolean =>
  !path.startsWith(DECLARED_IN) && !(path in CHOSEN) && (!path.startsWith('test/') || path.endsWith('-helpers.ts'));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'corpus' || name === 'fixtures' ? [] : files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const KINDS = new Set<string>(RECORD_KINDS);
const SUFFIXES = new Set(TOPICS.topics.map((t) => t.name.slice(TOPICS.prefix.length + 1)));
const TABLES = new Set<string>(Object.values(DECLARATIONS).flatMap((d) => d.tables));

/** Runs of three or more string literals, each run with what the literals name (if they all name one thing). */
export function handLists(text: string): Array<{ names: string[]; of: string }> {
  const run = /'[a-z_.]+'(?:(?:\s|,|\||\/\/[^\n]*)*'[a-z_.]+'){2,}/g;
  const found: Array<{ names: string[]; of: string }> = [];
  for (const match of text.matchAll(run)) {
    const names = [...match[0].matchAll(/'([a-z_.]+)'/g)].map((m) => m[1]!);
    for (const [of, set] of [
      ['kinds', KINDS],
      ['topics', SUFFIXES],
      ['tables', TABLES],
    ] as const) {
      // One stranger is still a list of them (`TableName` held `dead_letters` too).
      const members = names.filter((n) => set.has(n)).length;
      if (members >= 3 && members >= names.length - 1) found.push({ names, of });
    }
  }
  return found;
}

describe('every list of kinds, topics and tables is derived from the declarations', () => {
  it('finds a hand-written list where there is one', () => {
    expect(handLists(`const K = [\n  'trade', // market\n  'quote',\n  'book_change',\n];`)).toEqual([
      { names: ['trade', 'quote', 'book_change'], of: 'kinds' },
    ]);
    expect(handLists(`type T = 'trades' | 'quotes' | 'market_status';`)).toHaveLength(1);
    expect(handLists(`['market.trades', 'market.quotes', 'market.status']`)).toHaveLength(1);
    expect(handLists(`['trade', 'quote']; ['buy', 'sell', 'trade']`)).toEqual([]);
  });

  it('finds none outside src/records/kinds/', () => {
    const lists = ROOTS.flatMap(files)
      .filter(checked)
      .flatMap((path) =>
        handLists(readFileSync(path, 'utf8')).map((list) => `${path}: ${list.of} ${list.names.join(', ')}`),
      );
    expect(lists).toEqual([]);
  });
});
