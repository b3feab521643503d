import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../src/export/index.ts';

/**
 * `tapehouse export` on a warehouse `tapehouse run` filled from the built-in venue: Parquet files
 * pyarrow reads with the documented types, a manifest whose counts are the warehouse's, a cut
 * export that resumes to the same bytes, and exit 2 for input it cannot work with.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tapehouse-export-'));
const dataDir = join(work, 'data');
const venvPython = join(root, '.cache/research-venv/bin/python');
/** Python with pyarrow: this tree's virtualenv, made with pyarrow from PyPI when missing (as test/conformance does). */
function pythonWithPyarrow(): string {
  if (spawnSync('python3', ['-c', 'import pyarrow']).status === 0) return 'python3';
  if (!existsSync(venvPython)) {
    const made = spawnSync('python3', ['-m', 'venv', join(root, '.cache/research-venv')], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(made.stderr);
  }
  const installed = spawnSync(venvPython, ['-m', 'pip', 'install', '-q', 'pyarrow'], { encoding: 'utf8' });
  if (installed.status !== 0) throw new Error(installed.stderr);
  return venvPython;
}
let python = 'python3';
let day = '';
let range: string[] = [];

function tapehouse(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [join(root, 'bin/tapehouse.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function sql(query: string): Array<Record<string, string>> {
  const run = tapehouse(['sql', '--data-dir', dataDir, '--format', 'json', query]);
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The export the first test makes, into `out`. */
const exportArgs = (out: string, more = '--snapshot-interval 1s --snapshot-depth 5'): string[] => [
  'export',
  '--data-dir',
  dataDir,
  ...range,
  '--out',
  out,
  ...more.split(' '),
];

const manifestOf = (out: string): Manifest => JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));

/** Every file under `out` but the manifest, with its sha256. */
function hashes(out: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === 'manifest.json') continue;
    const path = join(entry.parentPath, entry.name);
    result[path.slice(out.length + 1)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return result;
}

beforeAll(() => {
  python = pythonWithPyarrow();
  // A loaded machine may spend a short run starting up: run again on the same directory until trades are stored.
  for (let attempt = 0; attempt < 3; attempt++) {
    const run = tapehouse([
      'run',
      '--data-dir',
      dataDir,
      ...'--http-port 0 --status off --rate 40 --duration 20s'.split(' '),
    ]);
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    if (Number(sql('SELECT toString(count()) AS n FROM tapehouse.trades')[0]!.n) > 0) break;
  }
  const [span] = sql(
    'SELECT toString(toDate(min(executed_at))) AS day, toString(toDate(max(executed_at))) AS last FROM tapehouse.trades',
  );
  day = span!.day!;
  // The run's day, and the next one in case it crossed midnight.
  range = ['--from', day, '--to', new Date(Date.parse(`${span!.last}T00:00:00Z`) + 86_400_000).toISOString()];
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('tapehouse export', () => {
  it('writes a Parquet file per day and table, read by pyarrow with the documented types; the manifest counts are the warehouse’s', () => {
    const out = join(work, 'whole');
    const run = tapehouse(exportArgs(out));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/export\s+100% \d+\/\d+ done/);
    const manifest = manifestOf(out);
    const days = Object.values(manifest.days);
    expect(days.every((d) => d.complete)).toBe(true);
    const files = days.flatMap((d) => Object.entries(d.files));
    const names = new Set(files.map(([name]) => name));
    for (const table of 'trades book_changes book_snapshots quotes market_status capture_gaps order_observations fills_latest'.split(
      ' ',
    ))
      expect(names).toContain(table);

    // Counts: the warehouse's own, table by table (the book samples: the view at the same bounds).
    const counted = files.filter(([name]) => name !== 'book_snapshots');
    const counts = sql(
      counted
        .map(([name, file], i) => {
          const d = days.find((x) => x.files[name] === file)!;
          return `SELECT ${i} AS i, toString(count()) AS n FROM tapehouse.${name} WHERE ${file.timeColumn} >= '${d.start}' AND ${file.timeColumn} < '${d.end}'`;
        })
        .join(' UNION ALL '),
    );
    for (const { i, n } of counts) expect(counted[Number(i)]![1].rows, counted[Number(i)]![0]).toBe(Number(n));
    expect(counts.length).toBe(counted.length);
    const trades = files.filter(([n]) => n === 'trades').reduce((s, [, f]) => s + f.rows, 0);
    expect(trades).toBe(Number(sql('SELECT toString(count()) AS n FROM tapehouse.trades')[0]!.n));
    expect(days.flatMap((d) => d.gaps).length).toBeGreaterThan(0);

    // pyarrow reads every file; micro columns are int64, times UTC timestamps, rows as listed.
    const script = `
import json, sys, pyarrow.parquet as pq
out = sys.argv[1]
result = {}
for f in json.load(sys.stdin):
    t = pq.read_table(out + '/' + f)
    result[f] = {'rows': t.num_rows, 'types': {field.name: str(field.type) for field in t.schema}}
print(json.dumps(result))`;
    const read = spawnSync(python, ['-c', script, out], {
      input: JSON.stringify(files.map(([, f]) => f.path)),
      encoding: 'utf8',
    });
    expect(read.status, read.stderr).toBe(0);
    const seen = JSON.parse(read.stdout) as Record<string, { rows: number; types: Record<string, string> }>;
    for (const [name, file] of files) {
      const { rows, types } = seen[file.path]!;
      expect(rows, name).toBe(file.rows);
      for (const [column, type] of Object.entries(types)) {
        if (column.endsWith('_micro'))
          expect(type, `${name}.${column}`).toMatch(/^(int64|list<element: int64( not null)?>)$/);
        const declared = file.columns.find((c) => c.name === column)!.type;
        if (declared.startsWith('DateTime64(3')) expect(type, `${name}.${column}`).toBe('timestamp[ms, tz=UTC]');
        if (declared.startsWith('DateTime64(6')) expect(type, `${name}.${column}`).toBe('timestamp[us, tz=UTC]');
      }
    }
    expect(seen[files.find(([n]) => n === 'trades')![1].path]!.types.price_micro).toBe('int64');
    expect(seen[files.find(([n]) => n === 'trades')![1].path]!.types.executed_at).toBe('timestamp[ms, tz=UTC]');
    expect(seen[files.find(([n]) => n === 'book_snapshots')![1].path]!.rows).toBeGreaterThan(0);

    // Again into the same folder: nothing written again.
    const again = tapehouse(exportArgs(out));
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/ 0 files written, \d+ already there/);

    // The same export cut short (killed once its first file is there) and run again: the same bytes.
    const cut = join(work, 'cut');
    const child = spawn(process.execPath, [join(root, 'bin/tapehouse.js'), ...exportArgs(cut)], { stdio: 'ignore' });
    return new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        const written = existsSync(cut) ? Object.keys(hashes(cut)).filter((p) => !p.endsWith('.partial')) : [];
        if (written.length === 0) return;
        clearInterval(poll);
        child.kill('SIGKILL');
        child.once('exit', () => {
          try {
            const left = manifestOf(cut);
            expect(
              Object.values(left.days).some((d) => !d.complete) || Object.keys(left.days).length < days.length,
            ).toBe(true);
            const resumed = tapehouse(exportArgs(cut));
            expect(resumed.status, resumed.stderr).toBe(0);
            expect(resumed.stdout).toMatch(/[1-9]\d* files written/);
            const finalFiles = hashes(cut);
            expect(Object.keys(finalFiles).filter((p) => p.endsWith('.partial'))).toEqual([]);
            expect(finalFiles).toEqual(hashes(out));
            resolve();
          } catch (err) {
            reject(err);
          }
        });
      }, 20);
    });
  }, 240_000);

  it('writes CSV.gz on request, the same rows', () => {
    const out = join(work, 'csv');
    const run = tapehouse(exportArgs(out, '--format csv.gz --snapshot-depth 2'));
    expect(run.status, run.stderr).toBe(0);
    const [file] = Object.values(manifestOf(out).days).map((d) => d.files.trades!);
    const read = spawnSync(
      python,
      [
        '-c',
        'import gzip,sys,csv; print(sum(1 for _ in csv.reader(gzip.open(sys.argv[1], "rt"))) - 1)',
        join(out, file!.path),
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(Number(read.stdout.trim())).toBe(file!.rows);
    expect(file!.path.endsWith('trades.csv.gz')).toBe(true);
  }, 120_000);

  it('refuses with exit 2: --from after --to, a range without data, an unknown token, an output that is a file or cannot be made', () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'not a folder');
    const cases: Array<[string[], RegExp]> = [
      [['--from', '2026-01-02', '--to', '2026-01-01', '--out', join(work, 'x1')], /is not before --to/],
      [['--from', '2001-01-01', '--to', '2001-01-02', '--out', join(work, 'x2')], /no data between/],
      [[...range, '--tokens', 'no-such-token', '--out', join(work, 'x3')], /unknown token: no-such-token/],
      [[...range, '--out', file], /is a file, not a folder/],
      [[...range, '--out', join(file, 'below')], /cannot be written/],
      [[...range, '--out', join(work, 'x4'), '--format', 'xlsx'], /--format: parquet or csv.gz/],
    ];
    for (const [args, message] of cases) {
      const run = tapehouse(['export', '--data-dir', dataDir, ...args]);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    // Nothing left as if whole by a refused export.
    expect(existsSync(join(work, 'x2', day))).toBe(false);
  }, 120_000);
});
