import { ClickHouseLogLevel, createClient, type DataFormat } from '@clickhouse/client';
import { afterAll, describe, expect, it } from 'vitest';
import { conformanceEnv, recordTally } from './conformance-env.ts';
import { HOSTILE_STRINGS } from './hostile-strings.ts';

/**
 * @clickhouse/client (the version package-lock.json pins) against `tapehouse run`, default
 * settings: every format the README's Clients table names, query parameters with hostile
 * strings, and a streamed select of 5,000,000 rows (its time to first byte is one of the suite's
 * figures; run.sh samples the endpoint's memory meanwhile).
 */

const { url, dir } = conformanceEnv();
const client = createClient({ url, database: 'tapehouse', log: { level: ClickHouseLogLevel.OFF } });
let run = 0;
let ok = 0;
const counted = async <T>(work: () => Promise<T>): Promise<T> => {
  run++;
  const result = await work();
  ok++;
  return result;
};

afterAll(async () => {
  recordTally(dir, '@clickhouse/client 1.23.1', run, ok);
  await client.close();
});

/** Enough rows for the engine to hand the answer over in several chunks. */
const ROWS = 150_000;
const SAMPLE = `SELECT number AS n, toString(number) AS s, toDateTime64(number, 3, 'UTC') AS t FROM numbers(${ROWS})`;

describe('@clickhouse/client, default settings', () => {
  it('pings and reads the data the job wrote', async () => {
    expect(await counted(() => client.ping())).toEqual({ success: true });
    const [row] = await counted(async () =>
      (await client.query({ query: 'SELECT count() AS n FROM trades', format: 'JSONEachRow' })).json<{ n: string }>(),
    );
    expect(Number(row!.n)).toBeGreaterThan(0);
  });

  it.each([
    'JSONEachRow',
    'JSONCompactEachRow',
    'JSONStringsEachRow',
    'JSONObjectEachRow',
    'JSON',
    'JSONCompact',
    'JSONStrings',
  ] as const)('reads %s', async (format) => {
    const rows = await counted(async () => (await client.query({ query: SAMPLE, format })).json());
    const data = Array.isArray(rows) ? rows : ((rows as { data?: unknown }).data ?? rows);
    expect(Object.keys(data as object)).toHaveLength(ROWS);
  });

  it.each([
    ['CSV', '0,"0","1970-01-01 00:00:00.000"\n'],
    ['CSVWithNames', '"n","s","t"\n0,"0","1970-01-01 00:00:00.000"\n'],
    ['TabSeparated', '0\t0\t1970-01-01 00:00:00.000\n'],
    ['TabSeparatedWithNames', 'n\ts\tt\n0\t0\t1970-01-01 00:00:00.000\n'],
  ] as const)('reads %s', async (format, start) => {
    const text = await counted(async () =>
      (await client.query({ query: SAMPLE, format: format as DataFormat })).text(),
    );
    expect(text.startsWith(start)).toBe(true);
    expect(text.trimEnd().split('\n')).toHaveLength(format.endsWith('WithNames') ? ROWS + 1 : ROWS);
  });

  it.each([
    ['Parquet', 'PAR1', 'PAR1'],
    ['Arrow', 'ARROW1', 'ARROW1'],
  ])('reads %s as one file', async (format, head, tail) => {
    const result = await counted(() => client.exec({ query: `${SAMPLE} FORMAT ${format}` }));
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(chunk as Buffer);
    const file = Buffer.concat(chunks).toString('latin1');
    expect([file.slice(0, head.length), file.slice(-tail.length), file.split(head).length - 1]).toEqual([
      head,
      tail,
      2,
    ]);
  });

  it('binds query parameters with hostile strings exactly', async () => {
    for (const value of HOSTILE_STRINGS) {
      const rows = await counted(async () =>
        (
          await client.query({
            query: 'SELECT {s:String} AS s, length({s:String}) AS n, {a:Array(String)} AS a',
            query_params: { s: value, a: [value] },
            format: 'JSONEachRow',
          })
        ).json(),
      );
      expect(rows, JSON.stringify(value)).toEqual([{ s: value, n: String(Buffer.byteLength(value)), a: [value] }]);
    }
  });

  it("refuses writes with ClickHouse's READONLY error", async () => {
    run++;
    await expect(client.command({ query: 'CREATE TABLE tapehouse.x (a UInt8) ENGINE = Memory' })).rejects.toMatchObject(
      { code: '164', type: 'READONLY' },
    );
    ok++;
  });

  it('streams a select of 5,000,000 rows, the first bytes before the last row is made', async () => {
    const started = performance.now();
    let firstByte = 0;
    let rows = 0;
    const result = await counted(() =>
      client.query({ query: 'SELECT number AS n, toString(number) AS s FROM numbers(5000000)', format: 'JSONEachRow' }),
    );
    for await (const batch of result.stream()) {
      firstByte ||= performance.now() - started;
      rows += batch.length;
    }
    const total = performance.now() - started;
    expect(rows).toBe(5_000_000);
    expect(firstByte).toBeGreaterThan(0);
    recordTally(
      dir,
      'figure',
      0,
      0,
      `5,000,000-row JSONEachRow select: first byte ${firstByte.toFixed(0)} ms, all ${total.toFixed(0)} ms`,
    );
  });
});
