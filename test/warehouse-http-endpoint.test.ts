import { request as httpRequest } from 'node:http';
import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { ChdbReadSessions } from '../src/warehouse/endpoint/chdb-read-sessions.ts';
import { chdbPathOf } from '../src/warehouse/embedded/data-dir.ts';
import { startHttpEndpoint, type HttpEndpoint } from '../src/warehouse/endpoint/http-endpoint.ts';
import { NativeTranscoder } from '../src/warehouse/endpoint/native-blocks.ts';
import { compressBlock, decompressBlocks } from '../src/warehouse/endpoint/compressed-blocks.ts';
import { serveEmbeddedEndpoint, type EmbeddedEndpoint } from '../src/warehouse/endpoint/embedded-endpoint.ts';
import { readEndpointFile } from '../src/warehouse/embedded/endpoint-file.ts';
import {
  ALLOWED_TABLE_FUNCTIONS,
  prepareReadOnlyQuery,
  REFUSED_TABLE_FUNCTIONS,
} from '../src/warehouse/endpoint/read-only-query.ts';
import { busRecord, migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

const LIMITS = { maxExecutionTime: 1, maxResultRows: 1000, maxResultBytes: 1_000_000 };

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The connection ended before the answer was complete. */
  brokenOff: boolean;
}

/** A request through node:http, keeping whatever arrived even when the answer is broken off. */
function raw(url: string, body: string | Buffer = '', headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      let brokenOff = false;
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('aborted', () => (brokenOff = true));
      res.on('error', () => (brokenOff = true));
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          brokenOff: brokenOff || !res.complete,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

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
  /** The same warehouse with the endpoint's default bounds (none on the result, as a server). */
  let unbounded: HttpEndpoint;
  let readers: ChdbReadSessions;

  const post = (body: string, params = '') => fetch(`${endpoint.url}/${params}`, { method: 'POST', body });

  beforeAll(async () => {
    w = await migratedWarehouse();
    await w.warehouse.insertRows('trades', [trade(1, 9_007_199_254_740_993n)]);
    endpoint = await serveEmbeddedEndpoint(w.warehouse, { limits: LIMITS });
    client = createClient({ url: endpoint.url, database: 'tapehouse', log: { level: ClickHouseLogLevel.OFF } });
    readers = new ChdbReadSessions(chdbPathOf(w.dataDir));
    unbounded = await startHttpEndpoint(readers);
  });
  afterAll(async () => {
    await unbounded.close();
    await readers.close();
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
    const result = await client.query({
      query: "SELECT trade_count FROM candles_1m WHERE token_id = 'tok-http'",
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([{ trade_count: '2' }]);
  });

  it("refuses writes and DDL with ClickHouse's READONLY error, and the data stays", async () => {
    await expect(client.command({ query: 'DROP TABLE trades' })).rejects.toMatchObject({
      code: '164',
      type: 'READONLY',
    });
    await expect(
      client.insert({ table: 'trades', values: [{ token_id: 'x' }], format: 'JSONEachRow' }),
    ).rejects.toMatchObject({
      code: '164',
    });
    await expect(client.command({ query: 'SET max_threads = 1' })).rejects.toMatchObject({ code: '164' });
    expect(
      await rows(w.warehouse.client, "SELECT count() AS n FROM tapehouse.trades WHERE token_id = 'tok-http'"),
    ).toEqual([{ n: '2' }]);
  });

  it('refuses what readonly mode alone would let through in an embedded engine', async () => {
    const refusals: Array<[string, string]> = [
      ['SELECT 1; DROP TABLE tapehouse.trades', '62'],
      ["SELECT 1 INTO OUTFILE '/tmp/tapehouse-endpoint-test.txt'", '164'],
      ["SELECT * FROM file('/etc/passwd', 'LineAsString')", '164'],
      ["SELECT * FROM url('http://127.0.0.1:9/', 'LineAsString')", '164'],
      ['SELECT * FROM (SELECT * FROM system.one SETTINGS readonly = 0)', '164'],
      ['SELECT * FROM system.one SETTINGS max_execution_time = 0, readonly = 0', '164'],
    ];
    for (const [query, code] of refusals) {
      const response = await post(query);
      expect(response.headers.get('x-clickhouse-exception-code'), query).toBe(code);
      expect(await response.text()).toMatch(
        new RegExp(`^Code: ${code}\\. DB::Exception: .+\\(\\w+\\) \\(version [\\d.]+\\)\\n$`),
      );
    }
  });

  it('reports errors like ClickHouse: HTTP status by code, X-ClickHouse-Exception-Code, the message as text', async () => {
    const response = await post('SELECT * FROM no_such_table', '?database=tapehouse');
    expect(response.status).toBe(404);
    expect(response.headers.get('x-clickhouse-exception-code')).toBe('60');
    expect(await response.text()).toMatch(
      /^Code: 60\. DB::Exception: .*no_such_table.*\(UNKNOWN_TABLE\) \(version [\d.]+\)\n$/s,
    );
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
    const get = await fetch(`${endpoint.url}/?query=${encodeURIComponent("SELECT 1 AS a, 'x' AS b")}`);
    expect(get.headers.get('content-type')).toMatch(/tab-separated/);
    expect(await get.text()).toBe('1\tx\n'); // TabSeparated by default, as ClickHouse
    const split = await post(
      'WHERE token_id = {token:String} FORMAT CSV',
      `?query=${encodeURIComponent('SELECT count() FROM trades')}&database=tapehouse&param_token=tok-http`,
    );
    expect(await split.text()).toBe('2\n');
    const both = await post('SELECT 7 AS n FORMAT JSONEachRow', '?default_format=CSV');
    expect(both.headers.get('x-clickhouse-format')).toBe('JSONEachRow');
    expect(await both.text()).toBe('{"n":7}\n');
    const defaulted = await post('SELECT currentDatabase() AS db', '?default_format=JSONEachRow&database=tapehouse');
    expect(await defaulted.json()).toEqual({ db: 'tapehouse' });
    expect(await (await fetch(`${endpoint.url}/ping`)).text()).toBe('Ok.\n');
  });

  it("answers as the Go client behind Grafana's data source asks: Native by default_format, timeZone(), basic auth", async () => {
    const timezone = await fetch(
      `${endpoint.url}/?database=tapehouse&default_format=JSONEachRow&max_execution_time=30`,
      {
        method: 'POST',
        body: 'SELECT timeZone() AS tz',
        headers: { Authorization: `Basic ${Buffer.from('grafana:secret').toString('base64')}` },
      },
    );
    expect(await timezone.json()).toEqual({ tz: 'UTC' });
    const native = await post('SELECT toUInt8(7) AS n', '?database=tapehouse&default_format=Native');
    expect(native.headers.get('content-type')).toBe('application/octet-stream');
    // Native: 1 column, 1 row, name "n", type "UInt8", the value 7.
    expect(Buffer.from(await native.arrayBuffer())).toEqual(
      Buffer.from([1, 1, 1, 0x6e, 5, ...Buffer.from('UInt8'), 7]),
    );
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
  it('writes Native for the client_protocol_version the client sends: BlockInfo, serialization kinds, exact types', async () => {
    const text = (value: string) => [value.length, ...Buffer.from(value)];
    const sql = "SELECT toUInt8(7) AS n, toDateTime(0, 'UTC') AS t";
    const current = await raw(`${endpoint.url}/?default_format=Native&client_protocol_version=54460`, sql);
    expect(current.headers['x-clickhouse-format']).toBe('Native');
    // BlockInfo (1: is_overflows false, 2: bucket_num -1, 0), 2 columns, 1 row, each column with
    // a serialization-kind byte after its type; the DateTime keeps its time zone.
    const blockInfo = [1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0];
    expect(current.body).toEqual(
      Buffer.from([
        ...blockInfo,
        2,
        1,
        ...text('n'),
        ...text('UInt8'),
        0,
        7,
        ...text('t'),
        ...text("DateTime('UTC')"),
        0,
        0,
        0,
        0,
        0,
      ]),
    );
    // An old revision: BlockInfo, but no serialization kinds and no time zone in a DateTime.
    const old = await raw(`${endpoint.url}/?default_format=Native&client_protocol_version=54000`, sql);
    expect(old.body).toEqual(
      Buffer.from([
        ...blockInfo,
        2,
        1,
        ...text('n'),
        ...text('UInt8'),
        7,
        ...text('t'),
        ...text('DateTime'),
        0,
        0,
        0,
        0,
      ]),
    );
    // No rows: no block at all, as a server writes it.
    const empty = await raw(
      `${endpoint.url}/?default_format=Native&client_protocol_version=54460`,
      'SELECT 1 AS n WHERE 0',
    );
    expect([empty.status, empty.body.length]).toEqual([200, 0]);
  });

  it('names every column type and steps over its data exactly as the engine writes them', async () => {
    // Every kind of layout: strings, nullables, arrays of low-cardinality, maps, named tuples with
    // odd names, enums, decimals, geometry, intervals; 70,000 rows make two blocks.
    const sql = `SELECT number AS n, toString(number) AS s, toDateTime64(number, 3, 'Europe/Paris') AS t64,
      toLowCardinality(toString(number % 3)) AS lc, [toLowCardinality('x'), 'y'] AS alc, map('k', number) AS m,
      CAST((2, 'b'), 'Tuple(a UInt8, \`b c\` String)') AS named, if(number % 2 = 0, NULL, number) AS nn,
      toDecimal64(1.5, 3) AS d, CAST('a', 'Enum8(\\'a\\' = 1, \\'b\\' = -2)') AS e, toUUID('00000000-0000-0000-0000-000000000001') AS u,
      toFixedString('ab', 2) AS fs, toIPv6('::1') AS ip, INTERVAL 3 SECOND AS iv, CAST((1.5, 2.5), 'Point') AS p,
      [[toNullable('q')]] AS nested, CAST(NULL, 'LowCardinality(Nullable(String))') AS lcn, true AS b, toDate32('2020-01-01') AS d32
      FROM numbers(70000)`;
    const fetchNative = async (settings: string) =>
      Buffer.from(
        await (
          await fetch(`${unbounded.url}/?default_format=Native${settings}`, { method: 'POST', body: sql })
        ).arrayBuffer(),
      );
    const engineText = await fetchNative('');
    const engineBinary = await fetchNative('&output_format_native_encode_types_in_binary_format=1');
    const transcoder = new NativeTranscoder({ revision: 0, binaryTypes: false });
    // Fed in odd pieces: a block may end anywhere in what the engine hands over.
    const pieces = [
      engineBinary.subarray(0, 1000),
      engineBinary.subarray(1000, 777_777),
      engineBinary.subarray(777_777),
    ];
    const out = pieces.map((piece) => transcoder.push(piece));
    transcoder.end();
    expect(out.reduce((sum, piece) => sum + piece.rows, 0)).toBe(70000);
    expect(Buffer.concat(out.map((piece) => piece.data)).equals(engineText)).toBe(true);
  });

  it('streams every format whole: a header or frame once, however many chunks the engine hands over', async () => {
    const sql = 'SELECT number AS n, toString(number) AS `s,\n` FROM numbers(200000)';
    const engine = async (format: string) => {
      const result = await w.warehouse.client.exec({ query: `${sql} FORMAT ${format}` });
      const chunks: Buffer[] = [];
      for await (const chunk of result.stream) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    };
    for (const format of [
      'CSVWithNames',
      'TSVWithNamesAndTypes',
      'RowBinaryWithNamesAndTypes',
      'JSONCompactEachRowWithNames',
      'JSONEachRow',
      'CSV',
    ]) {
      const answer = await raw(`${unbounded.url}/`, `${sql} FORMAT ${format}`);
      expect(answer.body.equals(await engine(format)), format).toBe(true);
    }
    const json = JSON.parse((await raw(`${unbounded.url}/`, `${sql} FORMAT JSON`)).body.toString());
    expect([json.rows, json.data.length, json.meta.length]).toEqual([200000, 200000, 2]);
    const summary = JSON.parse(
      String((await raw(`${unbounded.url}/`, `${sql} FORMAT JSON`)).headers['x-clickhouse-summary']),
    );
    expect(summary.result_rows).toBe('200000');
  });

  it("breaks off an answer that fails after data went out, with the error in the server's exception block", async () => {
    const sql = 'SELECT number, throwIf(number = 400000) FROM numbers(1000000) SETTINGS max_block_size = 20000';
    const answer = await raw(`${unbounded.url}/?default_format=Native&client_protocol_version=54460`, sql);
    expect(answer.status).toBe(200); // data went out first
    expect(answer.brokenOff).toBe(true);
    const tag = String(answer.headers['x-clickhouse-exception-tag']);
    expect(tag).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const tail =
      /\r\n__exception__\r\n(.{16})\r\n(Code: 395\. DB::Exception: .*\n)(\d+) (.{16})\r\n__exception__\r\n$/s.exec(
        answer.body.toString('utf8'),
      );
    expect(tail?.[1]).toBe(tag);
    expect(tail?.[4]).toBe(tag);
    expect(Number(tail?.[3])).toBe(Buffer.byteLength(tail?.[2] ?? ''));
    // @clickhouse/client reads the block as the query's error.
    const js = createClient({ url: unbounded.url, log: { level: ClickHouseLogLevel.OFF } });
    const drain = async () => {
      const result = await js.query({ query: sql, format: 'JSONEachRow' });
      for await (const rowsOfChunk of result.stream()) void rowsOfChunk;
    };
    await expect(drain()).rejects.toMatchObject({ code: '395', type: 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO' });
    await js.close();
  });

  it("binds param_* values as a server does: read in the Escaped format of the placeholder's type", async () => {
    const hostile = [
      "O'Brien\\x",
      'a\tb',
      'back\\slash\\',
      'new\nline\r',
      "'; DROP TABLE trades; --",
      '\\N',
      'zero\0byte',
      'ünï 😀',
    ];
    for (const value of hostile) {
      const result = await client.query({
        query: 'SELECT {s:String} AS s, length({s:String}) AS n, {a:Array(String)} AS a, {m:Map(String, String)} AS m',
        query_params: { s: value, a: [value, 'x'], m: { [value]: value } },
        format: 'JSONEachRow',
      });
      expect(await result.json(), JSON.stringify(value)).toEqual([
        { s: value, n: String(Buffer.byteLength(value)), a: [value, 'x'], m: { [value]: value } },
      ]);
    }
    const nullable = await post('SELECT {v:Nullable(String)} AS v FORMAT JSONEachRow', '?param_v=%5CN');
    expect(await nullable.json()).toEqual({ v: null });
    // A raw tab ends an Escaped field: a server refuses the value as not parsed completely.
    const tab = await post('SELECT {v:String}', '?param_v=a%09b');
    expect(tab.headers.get('x-clickhouse-exception-code')).toBe('457');
  });

  it('frames the answer in compressed blocks for compress=1, inside HTTP compression, and reads decompress=1 bodies', async () => {
    const blocks = await raw(`${endpoint.url}/?compress=1`, 'SELECT number FROM numbers(5)');
    expect(blocks.headers['content-encoding']).toBeUndefined();
    expect(decompressBlocks(blocks.body).toString()).toBe('0\n1\n2\n3\n4\n');
    const both = await raw(`${endpoint.url}/?compress=1&enable_http_compression=1`, 'SELECT 42', {
      'Accept-Encoding': 'gzip',
    });
    expect(both.headers['content-encoding']).toBe('gzip');
    expect(decompressBlocks(gunzipSync(both.body)).toString()).toBe('42\n');
    const body = await raw(`${endpoint.url}/?decompress=1`, compressBlock(Buffer.from('SELECT 6 * 7')), {
      'Content-Type': 'application/octet-stream',
    });
    expect(body.body.toString()).toBe('42\n');
  });

  it('says in X-ClickHouse-Summary how many rows and bytes the answer has', async () => {
    const answer = await raw(`${endpoint.url}/`, 'SELECT number FROM numbers(10) FORMAT CSV');
    expect(JSON.parse(String(answer.headers['x-clickhouse-summary']))).toMatchObject({
      result_rows: '10',
      result_bytes: '20',
    });
  });

  it('allows table functions by name and refuses every other one chDB has', async () => {
    const names = (await rows<{ name: string }>(client, 'SELECT name FROM system.table_functions')).map(
      ({ name }) => name,
    );
    const allowed = new Set(ALLOWED_TABLE_FUNCTIONS);
    const refused = new Set(REFUSED_TABLE_FUNCTIONS);
    // A function a chDB upgrade adds is refused (it is not allowed), and this fails until it is classified.
    expect(
      names.filter((name) => !allowed.has(name) && !refused.has(name)),
      'neither allowed nor refused on purpose',
    ).toEqual([]);
    expect(ALLOWED_TABLE_FUNCTIONS.filter((name) => refused.has(name))).toEqual([]);
    for (const name of REFUSED_TABLE_FUNCTIONS) {
      const response = await post(`SELECT * FROM ${name}('x')`);
      expect(response.headers.get('x-clickhouse-exception-code'), name).toBe('164');
    }
    expect(await (await post('SELECT count() FROM numbers(3)')).text()).toBe('3\n');
    expect(() => prepareReadOnlyQuery('SELECT * FROM brandNew(1)', {}, LIMITS, new Set(['brandNew']))).toThrow(
      /readonly mode/,
    );
  });
});

describe('preparing a query for the read-only endpoint', () => {
  it("appends one SETTINGS clause with the bounds, merging the client's own without lifting them", () => {
    const { sql, format } = prepareReadOnlyQuery(
      "SELECT ';' AS s, count() -- SETTINGS in a comment\nFROM t SETTINGS max_threads = 2, max_result_rows = 5 FORMAT JSON",
      { max_execution_time: '9999', output_format_json_quote_64bit_integers: '0' },
      { maxExecutionTime: 30, maxResultRows: 100, maxResultBytes: 1000 },
    );
    expect(format).toBe('JSON');
    expect(sql).toBe(
      "SELECT ';' AS s, count() -- SETTINGS in a comment\nFROM t  FORMAT JSON\n" +
        'SETTINGS max_execution_time = 30, output_format_json_quote_64bit_integers = 0, max_threads = 2, ' +
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
    for (const statement of [
      'INSERT INTO t VALUES (1)',
      'ALTER TABLE t DELETE WHERE 1',
      'OPTIMIZE TABLE t',
      'SYSTEM FLUSH LOGS',
      'USE t',
      'KILL QUERY ALL',
    ]) {
      expect(() => prepareReadOnlyQuery(statement), statement).toThrow(/readonly mode/);
    }
    expect(() => prepareReadOnlyQuery("SELECT 'unterminated")).toThrow(/Syntax error/);
    expect(() => prepareReadOnlyQuery('')).toThrow(/Empty query/);
  });
});
