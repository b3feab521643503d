import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { endpointFileOf } from '../src/warehouse/embedded/endpoint-file.ts';
import { loadMigrations } from '../src/warehouse/schema/migrations.ts';
import { serveEmbeddedEndpoint } from '../src/warehouse/endpoint/embedded-endpoint.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { tapehouse, temporaryDataDir } from './warehouse-fixtures.ts';

// `tapehouse migrate` and `tapehouse sql` run as a user runs them: child processes.

describe('tapehouse migrate and tapehouse sql', () => {
  const dir = temporaryDataDir();
  const migrations = loadMigrations();
  afterAll(() => dir.remove());

  it('migrate builds a fresh directory from the baseline and records every migration once, then reports the schema up to date', async () => {
    const first = await tapehouse(['migrate', '--data-dir', dir.dataDir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      'a fresh warehouse: built from sql/baseline/schema.sql, which stands for the migrations below\n' +
        `${migrations.map((m) => `applied ${m.file}\n`).join('')}chDB on ${dir.dataDir}: schema up to date (${migrations.length} migrations applied)\n`,
    );
    const second = await tapehouse(['migrate', '--data-dir', dir.dataDir]);
    expect(second.stdout).toBe(`chDB on ${dir.dataDir}: schema up to date (${migrations.length} migrations applied)\n`);
  });

  it('sql prints a table by default, opening the directory itself when an endpoint.json is stale', async () => {
    writeFileSync(
      endpointFileOf(dir.dataDir),
      JSON.stringify({ url: 'http://127.0.0.1:9', pid: 2 ** 22 + 1, started_at: '' }),
    );
    const result = await tapehouse([
      'sql',
      '--data-dir',
      dir.dataDir,
      "SELECT 1 AS n, 'a|b' AS text, NULL AS nothing, toInt64(-42) AS micro",
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      ['n | text | nothing | micro', '--+------+---------+------', '1 | a|b  | NULL    |   -42', '(1 row)', ''].join(
        '\n',
      ),
    );
    expect(existsSync(endpointFileOf(dir.dataDir))).toBe(false);
  });

  it('sql answers when endpoint.json names a live process that serves nothing there (a crashed job, its pid taken again)', async () => {
    writeFileSync(
      endpointFileOf(dir.dataDir),
      JSON.stringify({ url: 'http://127.0.0.1:9', pid: process.pid, started_at: '' }),
    );
    const result = await tapehouse([
      'sql',
      '--data-dir',
      dir.dataDir,
      '--format',
      'csv',
      'SELECT count() AS trades FROM trades',
    ]);
    expect(result).toMatchObject({ code: 0, stdout: '"trades"\n0\n', stderr: '' });
  });

  it('sql --format json prints one object per line, 64-bit integers as strings; tables resolve in tapehouse', async () => {
    const result = await tapehouse([
      'sql',
      '--data-dir',
      dir.dataDir,
      '--format',
      'json',
      'SELECT count() AS trades FROM trades; SELECT toInt64(9007199254740993) AS big_micro',
    ]);
    expect(result.stdout).toBe('{"trades":"0"}\n{"big_micro":"9007199254740993"}\n');
  });

  it("sql --format csv prints a header and rows; a statement's own FORMAT wins", async () => {
    const csv = await tapehouse(['sql', '--data-dir', dir.dataDir, '--format', 'csv', "SELECT 'x,y' AS a, 2 AS b"]);
    expect(csv.stdout).toBe('"a","b"\n"x,y",2\n');
    const own = await tapehouse(['sql', '--data-dir', dir.dataDir, 'SELECT 3 AS c FORMAT TabSeparatedWithNames']);
    expect(own.stdout).toBe('c\n3\n');
  });

  it("sql fails with ClickHouse's message and exit code 1; giving both targets is a bad setting (exit 2)", async () => {
    const bad = await tapehouse(['sql', '--data-dir', dir.dataDir, 'SELECT * FROM no_such_table']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^tapehouse: .*no_such_table/);
    const both = await tapehouse([
      'sql',
      '--data-dir',
      dir.dataDir,
      '--clickhouse-url',
      'http://127.0.0.1:9',
      'SELECT 1',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /either --data-dir \(TAPEHOUSE_DATA_DIR\) or --clickhouse-url \(TAPEHOUSE_CLICKHOUSE_URL\)/,
    );
  });

  it('sql is read-only without a job too: a DROP is refused with exit 2 and the way to do it; --allow-writes writes; migrate puts back what is missing', async () => {
    const drop = await tapehouse(['sql', '--data-dir', dir.dataDir, 'DROP TABLE trades']);
    expect(drop.code).toBe(2);
    expect(drop.stderr).toMatch(
      /readonly mode[^]*tapehouse sql is read-only: schema changes go through tapehouse migrate/,
    );
    const insert = await tapehouse([
      'sql',
      '--data-dir',
      dir.dataDir,
      "INSERT INTO data_quality (problem, detected_at, _topic, _partition, _offset, _received_at) VALUES ('x', now(), 't', 0, 0, now())",
    ]);
    expect(insert.code).toBe(2);
    expect(
      (await tapehouse(['sql', '--data-dir', dir.dataDir, '--format', 'json', 'SELECT count() AS n FROM data_quality']))
        .stdout,
    ).toBe('{"n":"0"}\n');

    const dropped = await tapehouse(['sql', '--data-dir', dir.dataDir, '--allow-writes', 'DROP TABLE trades']);
    expect(dropped).toMatchObject({ code: 0, stderr: '' });
    const repaired = await tapehouse(['migrate', '--data-dir', dir.dataDir]);
    expect(repaired.stdout).toBe(
      `recreated trades: it was missing (dropped outside the migrations); it starts empty\nchDB on ${dir.dataDir}: schema up to date (${migrations.length} migrations applied)\n`,
    );
    expect(
      (await tapehouse(['sql', '--data-dir', dir.dataDir, '--format', 'json', 'SELECT count() AS n FROM trades']))
        .stdout,
    ).toBe('{"n":"0"}\n');
  });

  it('sql --clickhouse-url queries a ClickHouse-compatible server (here the embedded endpoint), credentials from the environment', async () => {
    const warehouse = await openEmbeddedWarehouse(dir.dataDir);
    const endpoint = await serveEmbeddedEndpoint(warehouse);
    try {
      const result = await tapehouse(
        ['sql', '--clickhouse-url', endpoint.url, '--format', 'json', 'SELECT currentDatabase() AS db'],
        {
          TAPEHOUSE_CLICKHOUSE_USER: 'reader',
          TAPEHOUSE_CLICKHOUSE_PASSWORD: 'not-logged',
        },
      );
      expect(result).toMatchObject({ code: 0, stdout: '{"db":"tapehouse"}\n' });
      expect(result.stderr).not.toContain('not-logged');
    } finally {
      await endpoint.close();
      await warehouse.close();
    }
  });

  it('status on a directory held by a loader (reads, no live figures) names the holder and shows "-" for the times of empty tables', async () => {
    const warehouse = await openEmbeddedWarehouse(dir.dataDir);
    const endpoint = await serveEmbeddedEndpoint(warehouse);
    try {
      const result = await tapehouse(['status', '--data-dir', dir.dataDir]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`holds this data directory (pid ${process.pid}`);
      expect(result.stdout).toMatch(/last figures sampled\s+-\n/);
      expect(result.stdout).not.toContain('1970');
    } finally {
      await endpoint.close();
      await warehouse.close();
    }
  });
});
