import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/cli/settings.ts';
import { DEFAULT_LIMITS } from '../src/warehouse/endpoint/index.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

// The numbers and names the READMEs state, checked against the code (issue 37, point 6): a page
// that drifts from the code fails here, not in a reader's hands.

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const sqlReadme = read('sql/README.md');
const migrationNumbers = new Set(
  readdirSync(new URL('../sql/', import.meta.url))
    .map((name) => /^(\d{4})_.+\.sql$/.exec(name)?.[1])
    .filter((n) => n !== undefined),
);

/** The rows of the markdown table that follows `heading` (its first line that starts with `|`). */
function tableAfter(text: string, heading: string): string[][] {
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`no "${heading}"`);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((line) => line.trim().startsWith('|'));
  const body: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.trim().startsWith('|')) break;
    body.push(
      line
        .trim()
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return body;
}

const backticked = (cell: string) => [...cell.matchAll(/`(\w+)(?:\([^`]*\))?`/g)].map((m) => m[1]!);

describe('the READMEs agree with the code', () => {
  it("states the query endpoint's time bound as the code sets it, and no bound on rows or bytes but the flags'", () => {
    const sentence = /one statement per request, each within (\d+) s[\s\S]*?user name and password/.exec(sqlReadme);
    expect(sentence, 'sql/README.md: the endpoint sentence').not.toBeNull();
    expect(Number(sentence![1])).toBe(DEFAULT_LIMITS.maxExecutionTime);
    const text = sentence![0];
    expect(DEFAULT_LIMITS.maxResultRows).toBe(0);
    expect(DEFAULT_LIMITS.maxResultBytes).toBe(0);
    expect(SETTINGS.maxResultRows.default).toBe(0);
    expect(SETTINGS.maxResultBytes.default).toBe(0);
    expect(text).toMatch(/no bound on the rows or bytes/);
    for (const spec of [SETTINGS.maxResultRows, SETTINGS.maxResultBytes])
      expect(text).toContain(spec.flag.split(' ')[0]!);
    // No page states a row or byte bound the endpoint does not have.
    for (const path of ['sql/README.md', 'README.md', 'src/reconcile/README.md', 'src/warehouse/README.md'])
      expect([path, /\b[\d,]+ rows\s+per\s+(query|result)|\d+ MiB\s+per\s+result/.exec(safeRead(path))?.[0]]).toEqual([
        path,
        undefined,
      ]);
  });

  it('names only migrations that exist, and states no "highest migration" that goes stale', () => {
    for (const path of [
      'sql/README.md',
      'DEVELOPERS.md',
      'docs/records.md',
      'src/load/README.md',
      'dashboards/README.md',
    ]) {
      const named = [...safeRead(path).matchAll(/\b(0\d{3})\b/g)].map((m) => m[1]!);
      expect([path, named.filter((n) => !migrationNumbers.has(n))]).toEqual([path, []]);
    }
    expect(sqlReadme).not.toMatch(/today 0\d{3}|highest (migration|one) (is|present) 0\d{3}/);
  });

  describe('table kinds (sql/README.md, "History and latest")', () => {
    let w: TestWarehouse;
    beforeAll(async () => {
      w = await migratedWarehouse();
    }, 60_000);
    afterAll(async () => {
      await w?.cleanup();
    });

    const names = tableAfter(sqlReadme, '**History and latest.**');
    const engines = async () =>
      new Map(
        (
          await rows<{ name: string; engine: string }>(
            w.warehouse.client,
            "SELECT name, engine FROM system.tables WHERE database = 'tapehouse'",
          )
        ).map((r) => [r.name, r.engine]),
      );

    it('each account entity has a history table named *_observations and newest-state views named *_latest', async () => {
      expect(names.map((row) => row[0])).toEqual(['orders', 'fills', 'activities', 'positions']);
      const engine = await engines();
      for (const [entity, history, latest] of names) {
        for (const name of backticked(history!)) {
          expect([entity, name]).toEqual([entity, expect.stringMatching(/^\w+_observations$/)]);
          expect([name, engine.get(name)]).toEqual([name, 'MergeTree']);
        }
        for (const name of backticked(latest!)) {
          expect(name).toMatch(/^\w+_(latest|as_of)$/);
          expect([name, engine.get(name)]).toEqual([name, 'View']);
        }
      }
    });

    it('keeps the bare names as views with the rows they had: histories for orders and positions, newest states for fills and activities', async () => {
      const engine = await engines();
      const same: Array<[string, string]> = [
        ['orders', 'order_observations'],
        ['positions', 'position_observations'],
        ['fills', 'fills_latest'],
        ['activities', 'activities_latest'],
      ];
      for (const [old, now] of same) {
        expect([old, engine.get(old)]).toEqual([old, 'View']);
        const [table] = await rows<{ comment: string }>(
          w.warehouse.client,
          `SELECT comment FROM system.tables WHERE database = 'tapehouse' AND name = '${old}'`,
        );
        expect(table?.comment).toContain(`Deprecated name of ${now}`);
        expect(sqlReadme).toMatch(new RegExp(`### ${old}\\n\\nSame columns as [^\\n]*\\n?[^\\n]*deprecated name`));
      }
    });
  });
});

function safeRead(path: string): string {
  try {
    return read(path);
  } catch {
    return '';
  }
}
