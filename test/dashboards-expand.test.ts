import { describe, expect, it } from 'vitest';
import { parseDashboard } from '../src/dashboards/dashboard-model.ts';
import { expandSql, type BoundVariable } from '../src/dashboards/expand-sql.ts';
import type { RunQuery } from '../src/dashboards/run-query.ts';
import { formatInterval, parseTimeRange, queryIntervalMs } from '../src/dashboards/time-range.ts';
import { ALL, parseCustomOptions, resolveVariables } from '../src/dashboards/variables.ts';

const range = parseTimeRange('2024-05-01T10:00:00Z', '2024-05-01T12:00:00Z');
const FROM_S = Date.parse('2024-05-01T10:00:00Z') / 1000;
const TO_S = Date.parse('2024-05-01T12:00:00Z') / 1000;

function expand(sql: string, variables: Record<string, BoundVariable> = {}, intervalMs = 60_000): string {
  return expandSql(sql, { range, intervalMs, variables: new Map(Object.entries(variables)) });
}

describe('time macros, as the ClickHouse data source expands them', () => {
  it('filters on whole seconds of the range and buckets by the interval', () => {
    expect(expand('SELECT $__timeInterval(t) AS time FROM x WHERE $__timeFilter(t)')).toBe(
      `SELECT toStartOfInterval(toDateTime(t), INTERVAL 60 second) AS time FROM x WHERE t >= toDateTime(${FROM_S}) AND t <= toDateTime(${TO_S})`,
    );
  });

  it('has millisecond, date and bare bound forms, and the interval in seconds', () => {
    expect(expand('$__timeFilter_ms(t)')).toBe(
      `t >= fromUnixTimestamp64Milli(${FROM_S * 1000}) AND t <= fromUnixTimestamp64Milli(${TO_S * 1000})`,
    );
    expect(expand('$__dateFilter(d)')).toBe("d >= toDate('2024-05-01') AND d <= toDate('2024-05-01')");
    expect(expand('$__fromTime $__toTime $__interval_s', {}, 300_000)).toBe(
      `toDateTime(${FROM_S}) toDateTime(${TO_S}) 300`,
    );
    expect(expand('$__timeInterval(toDateTime64(x, 3))')).toBe(
      'toStartOfInterval(toDateTime(toDateTime64(x, 3)), INTERVAL 60 second)',
    );
  });

  it('refuses a macro the data source does not have, and one missing its column', () => {
    expect(() => expand('WHERE $__timeFiltr(t)')).toThrow(/\$__timeFiltr is not a macro/);
    expect(() => expand('WHERE $__timeFilter()')).toThrow(/takes one argument/);
  });

  it("rounds the interval as Grafana's roundInterval does (bands meeting halfway), never below the panel minimum", () => {
    expect(queryIntervalMs(range, 1000)).toBe(5_000); // 7.2 s → 5 s
    expect(queryIntervalMs(range, 960)).toBe(10_000); // 7.5 s → 10 s
    expect(queryIntervalMs(range, 1000, 60_000)).toBe(60_000);
    expect(queryIntervalMs(parseTimeRange('now-7d', 'now'), 500)).toBe(1_200_000); // 20.16 min → 20 min
    expect(queryIntervalMs(range, 2_000_000)).toBe(1); // 3.6 ms → 1 ms
    expect([90_000, 86_400_000 * 2, 500, 7_200_000].map(formatInterval)).toEqual(['1m', '2d', '500ms', '2h']);
  });
});

describe('variables in SQL', () => {
  const one = (value: string): BoundVariable => ({ values: [value], isAll: false });

  it('enter as escaped string literals: a quote or backslash in a value cannot end the literal', () => {
    expect(expand('WHERE m = ${m:singlequote}', { m: one("O'Brien\\") })).toBe("WHERE m = 'O\\'Brien\\\\'");
    expect(expand('WHERE m IN (${m:singlequote})', { m: { values: ['a', "b' OR 1=1 --"], isAll: false } })).toBe(
      "WHERE m IN ('a','b\\' OR 1=1 --')",
    );
  });

  it('are refused bare or in a format that would paste the value as code', () => {
    expect(() => expand('WHERE m = $m', { m: one('a') })).toThrow(/enter SQL quoted only/);
    expect(() => expand('WHERE m IN (${m:csv})', { m: one('a') })).toThrow(/enter SQL quoted only/);
    expect(() => expand('WHERE m = ${nope:singlequote}')).toThrow(/no variable nope/);
  });

  it('drop a $__conditionalAll condition when All or nothing is selected, and keep it as written otherwise', () => {
    const sql = 'WHERE $__conditionalAll(c IN (${c:singlequote}), $c) AND x';
    expect(expand(sql, { c: { values: ['a', 'b'], isAll: true } })).toBe('WHERE 1=1 AND x');
    expect(expand(sql, { c: { values: [], isAll: false } })).toBe('WHERE 1=1 AND x'); // Grafana's value ''
    expect(expand(sql, { c: { values: ['a', 'b'], isAll: false } })).toBe("WHERE c IN ('a','b') AND x");
    // The plugin splits the arguments by brackets alone and keeps the condition's spacing.
    expect(expand('$__conditionalAll( c = ${c:singlequote} ,${c})', { c: { values: ['a'], isAll: false } })).toBe(
      " c = 'a' ",
    );
  });

  it("give '' when the variable has no option (Grafana's value is then '')", () => {
    expect(expand('WHERE m = ${m:singlequote}', { m: { values: [], isAll: false } })).toBe("WHERE m = ''");
  });
});

describe('variable options and selection', () => {
  const dashboard = parseDashboard({
    uid: 'test',
    title: 'Test',
    panels: [],
    templating: {
      list: [
        { name: 'datasource', type: 'datasource', query: 'grafana-clickhouse-datasource' },
        { name: 'event', type: 'query', query: 'SELECT event_id, title FROM events' },
        {
          name: 'market',
          type: 'query',
          query: 'SELECT market_id FROM markets WHERE event_id = ${event:singlequote}',
          multi: true,
          includeAll: true,
        },
        {
          name: 'distance',
          type: 'custom',
          query: '1¢ : 10000, 5¢ : 50000',
          multi: true,
          current: { text: ['5¢'], value: ['50000'] },
        },
      ],
    },
  });
  // A warehouse answering the variable queries: events e1, e2; markets of the event asked for.
  const statements: string[] = [];
  const run: RunQuery = async (sql) => {
    statements.push(sql);
    if (sql.includes('FROM events'))
      return {
        columns: [],
        rows: [
          ['e1', 'First'],
          ['e2', 'Second'],
        ],
      };
    const event = /event_id = '(\w+)'/.exec(sql)![1];
    return { columns: [], rows: [[`${event}-m1`], [`${event}-m2`]] };
  };

  it('come from each query with the variables before it bound, defaulting to the first option, All or the file', async () => {
    const resolved = await resolveVariables(dashboard, {}, range, run);
    expect(resolved.map(({ name, selected }) => [name, selected])).toEqual([
      ['event', ['e1']],
      ['market', [ALL]],
      ['distance', ['50000']],
    ]);
    expect(resolved[0]!.options).toEqual([
      { value: 'e1', text: 'First' },
      { value: 'e2', text: 'Second' },
    ]);
    expect(statements.at(-1)).toBe("SELECT market_id FROM markets WHERE event_id = 'e1'");
  });

  it('keep a requested value only when the variable offers it', async () => {
    const resolved = await resolveVariables(
      dashboard,
      { event: ['e2'], market: ['e2-m2'], distance: ["10000' OR 1=1"] },
      range,
      run,
    );
    expect(resolved.map(({ selected }) => selected)).toEqual([['e2'], ['e2-m2'], ['50000']]);
    const stale = await resolveVariables(dashboard, { event: ['e2'], market: ['e1-m1'] }, range, run);
    expect(stale[1]!.selected).toEqual([ALL]);
  });

  it("read Grafana's custom list syntax", () => {
    expect(parseCustomOptions('a, b\\,c, 1¢ : 10000')).toEqual([
      { text: 'a', value: 'a' },
      { text: 'b,c', value: 'b,c' },
      { text: '1¢', value: '10000' },
    ]);
  });
});
