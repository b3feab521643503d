import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandSql, type BoundVariable } from '../src/dashboards/expand-sql.ts';
import { serveEmbeddedEndpoint, type EmbeddedEndpoint } from '../src/warehouse/endpoint/embedded-endpoint.ts';
import { busRecord, migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';
import { tapehouse } from './security/scan.ts';

/**
 * The embedded query endpoint and the SQL built from user input. test/warehouse-http-endpoint
 * already proves DROP/INSERT/SET refusals, multi-statements, INTO OUTFILE, file()/url(), a
 * readonly=0 setting and the row and time bounds; this file adds what it leaves unproven: the
 * listening address, the other writes and DDL, quoted function names, a slow query that is not a
 * scan, one oversized result block, and user values that try to change a query's shape.
 */

const LIMITS = { maxExecutionTime: 1, maxResultRows: 1000, maxResultBytes: 100_000 };
const HOSTILE = [
  "'; DROP TABLE trades; --",
  "x' OR 1=1 --",
  "\\'; DROP TABLE trades; --",
  'back\\slash\\',
  "{token:String}') UNION ALL SELECT name FROM system.tables --",
  'new\nline\ttab\0nul',
  '`quoted` "double"',
];

let w: TestWarehouse;
let endpoint: EmbeddedEndpoint;
let closed = false;

beforeAll(async () => {
  w = await migratedWarehouse();
  await w.warehouse.insertRows('book_snapshots', [
    {
      token_id: 'tok',
      snapshot_at: new Date(Date.UTC(2026, 10, 1)),
      sequence: 10,
      source: 'ws:orderbook',
      reason: 'connect',
      bid_prices_micro: ['480000'],
      bid_sizes_micro: ['100000000'],
      ask_prices_micro: ['520000'],
      ask_sizes_micro: ['7000000'],
      ...busRecord(1, 'tapehouse.market.books'),
    },
  ]);
  await w.warehouse.insertRows('trades', [
    {
      token_id: 'tok',
      trade_id: 't1',
      side: 'BUY',
      price_micro: 500_000n,
      shares_micro: 1_000_000n,
      executed_at: '2026-11-01T00:00:00.000Z',
      ...busRecord(2),
    },
  ]);
  endpoint = await serveEmbeddedEndpoint(w.warehouse, { limits: LIMITS });
});
async function closeWarehouse(): Promise<void> {
  if (closed) return;
  closed = true;
  await endpoint.close();
  await w.warehouse.close();
}
afterAll(async () => {
  await closeWarehouse();
  rmSync(w.dataDir, { recursive: true, force: true });
});

const post = async (sql: string, params = ''): Promise<{ status: number; code: string | null; text: string }> => {
  const response = await fetch(`${endpoint.url}/${params}`, { method: 'POST', body: sql });
  return {
    status: response.status,
    code: response.headers.get('x-clickhouse-exception-code'),
    text: await response.text(),
  };
};

const tableCounts = () =>
  rows(w.warehouse.client, "SELECT name, total_rows FROM system.tables WHERE database = 'tapehouse' ORDER BY name");

async function expectRefused(statements: readonly string[], code: RegExp, text: RegExp): Promise<void> {
  for (const statement of statements) {
    const answer = await post(statement);
    expect(answer.code, statement).toMatch(code);
    expect(answer.text, statement).toMatch(text);
  }
}

/** Resolves with the connection's outcome on that address: 'open' or the error code. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('the embedded query endpoint', () => {
  it('listens on 127.0.0.1 only: other loopback and interface addresses find no one on its port', async () => {
    const { hostname, port } = new URL(endpoint.url);
    expect(hostname).toBe('127.0.0.1');
    expect(await tryConnect('127.0.0.1', Number(port))).toBe('open');
    const others = [
      '127.0.0.2',
      ...Object.values(networkInterfaces())
        .flat()
        .filter((i) => i && i.family === 'IPv4' && !i.internal)
        .map((i) => i!.address),
    ];
    for (const address of others) expect(await tryConnect(address, Number(port)), address).toBe('ECONNREFUSED');
  });

  it('refuses every other write and DDL, and the tables stay as they were', async () => {
    const before = await tableCounts();
    const statements = [
      'CREATE TABLE tapehouse.evil (x UInt8) ENGINE = Memory',
      'CREATE DATABASE evil',
      'TRUNCATE TABLE tapehouse.trades',
      'ALTER TABLE tapehouse.trades DELETE WHERE 1',
      'ALTER TABLE tapehouse.trades DROP COLUMN side',
      'RENAME TABLE tapehouse.trades TO tapehouse.gone',
      'DELETE FROM tapehouse.trades WHERE 1',
      'OPTIMIZE TABLE tapehouse.trades FINAL',
      'DETACH TABLE tapehouse.trades',
      'INSERT INTO tapehouse.trades SELECT * FROM tapehouse.trades',
      '(INSERT INTO tapehouse.trades SELECT * FROM tapehouse.trades)',
      'SYSTEM DROP MARK CACHE',
      'GRANT ALL ON *.* TO default',
    ];
    await expectRefused(
      statements,
      /^(164|62)$/,
      /^Code: (164|62)\. DB::Exception: .*\((READONLY|SYNTAX_ERROR)\) \(version [\d.]+\)\n$/,
    );
    expect(await tableCounts()).toEqual(before);
  });

  it('refuses file system and network access however the function is spelled', async () => {
    const attempts = [
      "SELECT * FROM `file`('/etc/hostname', 'LineAsString')",
      "SELECT * FROM \"file\"('/etc/hostname', 'LineAsString')",
      "SELECT * FROM `\\x66ile`('/etc/hostname', 'LineAsString')",
      "SELECT * FROM FiLe ('/etc/hostname', 'LineAsString')",
      "SELECT * FROM file/* a comment */('/etc/hostname', 'LineAsString')",
      "SELECT `file`('/etc/hostname')",
      "SELECT content FROM filesystem('/etc/hostname')",
      "SELECT * FROM `url`('http://127.0.0.1:9/', 'LineAsString')",
      "SELECT * FROM s3('http://127.0.0.1:9/b/k', 'LineAsString')",
      "SELECT * FROM remote('127.0.0.1:9', system.one)",
      "SELECT * FROM executable('id', 'TSV', 'x String')",
      "SELECT 1 INTO /* a comment */ OUTFILE '/tmp/tapehouse-security-outfile'",
      "SELECT * FROM eval('id') SETTINGS allow_experimental_eval_table_function = 1",
    ];
    await expectRefused(attempts, /^164$/, /readonly mode/);
  });

  it('keeps its bounds against settings tricks: a quoted name, a subquery, a URL parameter', async () => {
    const slow = 'SELECT sleepEachRow(0.3) FROM numbers(20) SETTINGS max_block_size = 1';
    const tricks = [
      [`${slow}, \`max_execution_time\` = 0`, ''],
      [slow, '?max_execution_time=0'],
      [slow, '?readonly=0&max_execution_time=100'],
    ] as const;
    for (const [sql, params] of tricks) {
      const answer = await post(sql, params);
      expect(answer.code, `${sql} ${params}`).toBe('159');
      expect(answer.status).toBe(408);
      expect(answer.text).toMatch(/Timeout exceeded/);
    }
    const lifted = await post('SELECT * FROM (SELECT number FROM numbers(10) SETTINGS max_result_rows = 0)');
    expect(lifted.code).toBe('164');
  });

  it("refuses a result over the byte bound with ClickHouse's error, which the engine checks between blocks", async () => {
    const manyBlocks = await post("SELECT repeat('x', 10000) FROM numbers(50) SETTINGS max_block_size = 1");
    expect(manyBlocks.code).toBe('396');
    expect(manyBlocks.text).toMatch(/^Code: 396\. DB::Exception: Limit for result exceeded, max bytes: 97\.66 KiB/);
    const small = await post("SELECT repeat('x', 10) FROM numbers(5)");
    expect(small.status).toBe(200);
  });
});

describe('values from users enter SQL as values', () => {
  it('a dashboard variable round-trips through ClickHouse unchanged: it is one literal, whatever it holds', async () => {
    const range = { from: new Date(Date.UTC(2026, 10, 1)), to: new Date(Date.UTC(2026, 10, 2)) };
    for (const value of HOSTILE) {
      const variables = new Map<string, BoundVariable>([['m', { values: [value, 'tok'], isAll: false }]]);
      const sql = expandSql(
        'SELECT count() AS n, [${m:singlequote}] AS v FROM tapehouse.trades WHERE token_id IN (${m:singlequote})',
        {
          range,
          intervalMs: 1000,
          variables,
        },
      );
      const [row] = await rows(w.warehouse.client, sql);
      expect(row, value).toEqual({ n: '1', v: [value, 'tok'] });
    }
  });

  it('tapehouse book takes a hostile token as a value: a clean "no book", nothing altered (through the owner\'s endpoint)', async () => {
    const before = await tableCounts();
    // This process owns the data directory, so book goes through its endpoint (query parameters).
    const answers = await Promise.all(
      [HOSTILE[0]!, HOSTILE[4]!].map((token) =>
        tapehouse(['book', token, '--data-dir', w.dataDir, '--format', 'json']),
      ),
    );
    for (const answer of answers) {
      expect(answer.code, answer.stderr).toBe(1);
      expect(answer.stderr).toMatch(/^no stored book of token .* at or before /);
    }
    const real = await tapehouse(['book', 'tok', '--data-dir', w.dataDir, '--format', 'json']);
    expect(JSON.parse(real.stdout)).toMatchObject({ token_id: 'tok', bids: [{ price_micro: '480000' }] });
    expect(await tableCounts()).toEqual(before);
  });

  it('and on chDB directly, where writes would be possible', async () => {
    const before = await tableCounts();
    await closeWarehouse();
    const token = "'; DROP TABLE trades; --";
    const answer = await tapehouse(['book', token, '--data-dir', w.dataDir]);
    expect(answer.code, answer.stderr).toBe(1);
    expect(answer.stderr).toContain(`no stored book of token ${token} at or before `);
    const after = await tapehouse([
      'sql',
      '--data-dir',
      w.dataDir,
      '--format',
      'json',
      "SELECT name, total_rows FROM system.tables WHERE database = 'tapehouse' ORDER BY name",
    ]);
    expect(
      after.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(before);
  }, 30_000);
});
