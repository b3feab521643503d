import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveEmbeddedEndpoint, type EmbeddedEndpoint } from '../src/warehouse/embedded-endpoint.ts';
import { readEndpointFile } from '../src/warehouse/endpoint-file.ts';
import { prepareReadOnlyQuery } from '../src/warehouse/read-only-query.ts';
import { busRecord, migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

const LIMITS = { maxExecutionTime: 1, maxResultRows: 1000, maxResultBytes: 1_000_000 };

function trade(offset: number, shares: bigint) {
  return {
    token_id: 'tok-http',
    trade_id: `h${offset}`,
    side: 'SELL',
    price_micro: 250_000n,
    shares_micro: shares,
    executed_at: '2024-05-01T09:30:00.000Z',
    ...busRecord(offset),
  };
}

describe('the embedded read-only HTTP endpoint', () => {
  let w: TestWarehouse;
  let endpoint: EmbeddedEndpoint;
  let client: ClickHouseClient;

  const post = (body: string, params = '') => fetch(`${endpoint.url}/${params}`, { method: 'POST', body });

  beforeAll(async () => {
    w = await migratedWarehouse();
    await w.warehouse.insertRows('trades', [trade(1, 9_007_199_254_740_993n)]);
    endpoint = await serveEmbeddedEndpoint(w.warehouse, { limits: LIMITS });
    client = createClient({ url: endpoint.url, database: 'tapehouse', log: { level: ClickHouseLogLevel.OFF } });
  });
  afterAll(async () => {
    await client.close();
    await endpoint.close();
    await w.cleanup();
  });

  it('publishes its URL and this process in <data-dir>/endpoint.json', () => {
    expect(readEndpointFile(w.dataDir)).toMatchObject({ url: endpoint.url, pid: process.pid });
  });

  it('answers @clickhouse/client pointed at its URL, 64-bit integers exact', async () => {
    const result = await client.query({ query: 'SELECT token_id, shares_micro FROM trades', format: 'JSONEachRow' });
    expect(await result.json()).toEqual([{ token_id: 'tok-http', shares_micro: '9007199254740993' }]);
    expect(await client.ping()).toEqual({ success: true });
  });

  it('sees what the owning process writes while it serves', async () => {
    await w.warehouse.insertRows('trades', [trade(2, 1_000_000n)]);
    const result = await client.query({ query: "SELECT trade_count FROM candles_1m WHERE token_id = 'tok-http'", format: 'JSONEachRow' });
    expect(await result.json()).toEqual([{ trade_count: '2' }]);
  });

  it('refuses writes and DDL with ClickHouse\'s READONLY error, and the data stays', async () => {
    await expect(client.command({ query: 'DROP TABLE trades' })).rejects.toMatchObject({ code: '164', type: 'READONLY' });
    await expect(client.insert({ table: 'trades', values: [{ token_id: 'x' }], format: 'JSONEachRow' })).rejects.toMatchObject({
      code: '164',
    });
    await expect(client.command({ query: 'SET max_threads = 1' })).rejects.toMatchObject({ code: '164' });
    expect(await rows(w.warehouse.client, "SELECT count() AS n FROM tapehouse.trades WHERE token_id = 'tok-http'")).toEqual([{ n: '2' }]);
  });

  it('refuses what readonly mode alone would let through in an embedded engine', async () => {
    const refusals: Array<[string, string]> = [
      ['SELECT 1; DROP TABLE tapehouse.trades', '62'],
      ["SELECT 1 INTO OUTFILE '/tmp/tapehouse-endpoint-test.txt'", '164'],
      ["SELECT * FROM file('/etc/passwd', 'LineAsString')", '164'],
      ["SELECT * FROM url('http://127.0.0.1:9/', 'LineAsString')", '164'],
      ["SELECT * FROM (SELECT * FROM system.one SETTINGS readonly = 0)", '164'],
      ['SELECT * FROM system.one SETTINGS max_execution_time = 0, readonly = 0', '164'],
    ];
    for (const [query, code] of refusals) {
      const response = await post(query);
      expect(response.headers.get('x-clickhouse-exception-code'), query).toBe(code);
      expect(await response.text()).toMatch(new RegExp(`^Code: ${code}\\. DB::Exception: .+\\(\\w+\\)\\n$`));
    }
  });

  it('reports errors like ClickHouse: HTTP status by code, X-ClickHouse-Exception-Code, the message as text', async () => {
    const response = await post('SELECT * FROM no_such_table', '?database=tapehouse');
    expect(response.status).toBe(404);
    expect(response.headers.get('x-clickhouse-exception-code')).toBe('60');
    expect(await response.text()).toMatch(/^Code: 60\. DB::Exception: .*no_such_table.*\(UNKNOWN_TABLE\)\n$/s);
    await expect(client.query({ query: 'SELEC 1' })).rejects.toMatchObject({ code: '62', type: 'SYNTAX_ERROR' });
  });

  it('bounds result size and query time; a client may lower the bounds but not lift them', async () => {
    const tooMany = await post('SELECT number FROM numbers(5000)', '?max_result_rows=100000000');
    expect(tooMany.headers.get('x-clickhouse-exception-code')).toBe('396');
    const lowered = await post('SELECT number FROM numbers(20)', '?max_result_rows=10');
    expect(lowered.headers.get('x-clickhouse-exception-code')).toBe('396');
    const tooLong = await post('SELECT count() FROM numbers(1000000000000) SETTINGS max_execution_time = 3600');
    expect(tooLong.headers.get('x-clickhouse-exception-code')).toBe('159');
    expect(tooLong.status).toBe(408);
  });

  it('takes the query from the URL or the body, default_format, the FORMAT clause, database and query parameters', async () => {
    const get = await fetch(`${endpoint.url}/?query=${encodeURIComponent('SELECT 1 AS a, \'x\' AS b')}`);
    expect(get.headers.get('content-type')).toMatch(/tab-separated/);
    expect(await get.text()).toBe('1\tx\n'); // TabSeparated by default, as ClickHouse
    const split = await post("WHERE token_id = {token:String} FORMAT CSV", `?query=${encodeURIComponent('SELECT count() FROM trades')}&database=tapehouse&param_token=tok-http`);
    expect(await split.text()).toBe('2\n');
    const both = await post('SELECT 7 AS n FORMAT JSONEachRow', '?default_format=CSV');
    expect(both.headers.get('x-clickhouse-format')).toBe('JSONEachRow');
    expect(await both.text()).toBe('{"n":7}\n');
    const defaulted = await post('SELECT currentDatabase() AS db', '?default_format=JSONEachRow&database=tapehouse');
    expect(await defaulted.json()).toEqual({ db: 'tapehouse' });
    expect(await (await fetch(`${endpoint.url}/ping`)).text()).toBe('Ok.\n');
  });

  it('answers as the Go client behind Grafana\'s data source asks: Native by default_format, timeZone(), basic auth', async () => {
    const timezone = await fetch(`${endpoint.url}/?database=tapehouse&default_format=JSONEachRow&max_execution_time=30`, {
      method: 'POST',
      body: 'SELECT timeZone() AS tz',
      headers: { Authorization: `Basic ${Buffer.from('grafana:secret').toString('base64')}` },
    });
    expect(await timezone.json()).toEqual({ tz: 'UTC' });
    const native = await post('SELECT toUInt8(7) AS n', '?database=tapehouse&default_format=Native');
    expect(native.headers.get('content-type')).toBe('application/octet-stream');
    // Native: 1 column, 1 row, name "n", type "UInt8", the value 7.
    expect(Buffer.from(await native.arrayBuffer())).toEqual(Buffer.from([1, 1, 1, 0x6e, 5, ...Buffer.from('UInt8'), 7]));
  });

  it('compresses responses when the client asks (enable_http_compression)', async () => {
    const raw = await fetch(`${endpoint.url}/?enable_http_compression=1`, {
      method: 'POST',
      body: 'SELECT 1',
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(raw.headers.get('content-encoding')).toBe('gzip');
    expect(await raw.text()).toBe('1\n'); // fetch undoes the gzip
    const compressed = createClient({
      url: endpoint.url,
      compression: { response: true },
      log: { level: ClickHouseLogLevel.OFF },
    });
    const result = await compressed.query({ query: 'SELECT number FROM numbers(500)', format: 'JSONCompactEachRow' });
    expect((await result.json<[string]>()).length).toBe(500);
    await compressed.close();
  });
});

describe('preparing a query for the read-only endpoint', () => {
  it('appends one SETTINGS clause with the bounds, merging the client\'s own without lifting them', () => {
    const { sql, format } = prepareReadOnlyQuery(
      "SELECT ';' AS s, count() -- SETTINGS in a comment\nFROM t SETTINGS max_threads = 2, max_result_rows = 5 FORMAT JSON",
      { max_execution_time: '9999', output_format_json_quote_64bit_integers: '0' },
      { maxExecutionTime: 30, maxResultRows: 100, maxResultBytes: 1000 },
    );
    expect(format).toBe('JSON');
    expect(sql).toBe(
      "SELECT ';' AS s, count() -- SETTINGS in a comment\nFROM t  FORMAT JSON\n" +
        "SETTINGS max_execution_time = 30, output_format_json_quote_64bit_integers = 0, max_threads = 2, " +
        "max_result_rows = 5, max_result_bytes = 1000, result_overflow_mode = 'throw'",
    );
  });

  it('takes a column or function named like a clause for what it is', () => {
    expect(prepareReadOnlyQuery('SELECT format FROM t').format).toBeUndefined();
    expect(prepareReadOnlyQuery("SELECT format('{}', 1) AS settings").format).toBeUndefined();
    expect(prepareReadOnlyQuery('SHOW TABLES FORMAT `CSV`').format).toBe('CSV');
    expect(prepareReadOnlyQuery('(SELECT 1);;').sql).toMatch(/^\(SELECT 1\)\nSETTINGS /);
  });

  it('refuses anything but one read statement', () => {
    for (const statement of ['INSERT INTO t VALUES (1)', 'ALTER TABLE t DELETE WHERE 1', 'OPTIMIZE TABLE t', 'SYSTEM FLUSH LOGS', 'USE t', 'KILL QUERY ALL']) {
      expect(() => prepareReadOnlyQuery(statement), statement).toThrow(/readonly mode/);
    }
    expect(() => prepareReadOnlyQuery("SELECT 'unterminated")).toThrow(/Syntax error/);
    expect(() => prepareReadOnlyQuery('')).toThrow(/Empty query/);
  });
});
