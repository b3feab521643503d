import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { QueryRunner } from '../warehouse/query-access.ts';
import { BOOK_SAMPLES_TABLE, EXPORT_TABLES, type ExportTable } from './export-tables.ts';
import {
  readManifest,
  writeManifest,
  type ExportFormat,
  type Manifest,
  type ManifestDay,
  type ManifestFile,
  type ManifestGap,
} from './manifest.ts';

export interface ExportOptions {
  runner: QueryRunner;
  out: string;
  /** The range, UTC epoch ms: from inclusive, to exclusive. */
  fromMs: number;
  toMs: number;
  format: ExportFormat;
  /** Only these tokens in the tables that have tokens; empty: all. */
  tokens: string[];
  snapshotIntervalMs: number;
  snapshotDepth: number;
  onProgress?(done: number, total: number, what: string): void;
}

export interface ExportSummary {
  days: number;
  written: number;
  skipped: number;
}

/** Input the export cannot work with: the command says so and exits 2. */
export class ExportRefused extends Error {}

const DAY_MS = 86_400_000;

/**
 * Writes the range day by day, one file per table, each by the engine's own writer (FORMAT Parquet,
 * or CSVWithNames gzipped): under a temporary name, renamed when whole, then listed in the
 * manifest. A day already listed whole with the same bounds is not written again; a file listed
 * and present is not either, so a cut export resumes where it stopped and gives the same files.
 */
export async function exportHistory(o: ExportOptions): Promise<ExportSummary> {
  if (o.fromMs >= o.toMs)
    throw new ExportRefused(`--from ${iso(o.fromMs)} is not before --to ${iso(o.toMs)}: nothing to export`);
  prepareFolder(o.out);
  const tables = [...EXPORT_TABLES, BOOK_SAMPLES_TABLE];
  const manifest = startManifest(o);
  await refuseUnknownTokens(o);
  const days = await daysWithData(o);
  if (days.length === 0) throw new ExportRefused(`no data between ${iso(o.fromMs)} and ${iso(o.toMs)}`);
  const summary: ExportSummary = { days: days.length, written: 0, skipped: 0 };
  const total = days.length * tables.length;
  let done = 0;
  for (const dayMs of days) {
    const key = iso(dayMs).slice(0, 10);
    const startMs = Math.max(dayMs, o.fromMs);
    const endMs = Math.min(dayMs + DAY_MS, o.toMs);
    const previous = manifest.days[key];
    const same = previous !== undefined && previous.start === micros(startMs) && previous.end === micros(endMs);
    const day: ManifestDay = same
      ? previous
      : { start: micros(startMs), end: micros(endMs), complete: false, gaps: [], files: {} };
    manifest.days[key] = day;
    if (!same) writeManifest(o.out, manifest);
    for (const table of tables) {
      o.onProgress?.(done, total, `${key} ${table.name}`);
      const listed = day.files[table.name];
      if (listed && fileIsWhole(join(o.out, listed.path), listed.bytes)) {
        summary.skipped++;
      } else {
        day.files[table.name] = await writeTableDay(o, table, key, startMs, endMs);
        writeManifest(o.out, manifest);
        summary.written++;
      }
      done++;
    }
    if (!day.complete) {
      day.gaps = await gapsOf(o.runner, startMs, endMs);
      day.complete = true;
      writeManifest(o.out, manifest);
    }
  }
  o.onProgress?.(done, total, 'done');
  return summary;
}

function prepareFolder(out: string): void {
  if (existsSync(out) && !statSync(out).isDirectory()) throw new ExportRefused(`--out ${out} is a file, not a folder`);
  try {
    mkdirSync(out, { recursive: true });
    accessSync(out, constants.W_OK);
  } catch (err) {
    throw new ExportRefused(`--out ${out} cannot be written: ${(err as Error).message}`);
  }
}

/** The manifest of an earlier export into the folder, which must have used the same settings. */
function startManifest(o: ExportOptions): Manifest {
  const settings = {
    format: o.format,
    snapshotIntervalMs: o.snapshotIntervalMs,
    snapshotDepth: o.snapshotDepth,
    tokens: [...o.tokens].sort(),
  };
  const existing = readManifest(o.out);
  if (!existing) return { ...settings, days: {} };
  const theirs = JSON.stringify({
    format: existing.format,
    snapshotIntervalMs: existing.snapshotIntervalMs,
    snapshotDepth: existing.snapshotDepth,
    tokens: existing.tokens,
  });
  if (theirs !== JSON.stringify(settings))
    throw new ExportRefused(
      `--out ${o.out} holds an export with other settings (${theirs}): export into another folder`,
    );
  return existing;
}

async function refuseUnknownTokens(o: ExportOptions): Promise<void> {
  if (o.tokens.length === 0) return;
  const known = await jsonRows<{ token_id: string }>(
    o.runner,
    `SELECT DISTINCT token_id FROM (
       SELECT token_id FROM tapehouse.book_snapshots WHERE has({tokens:Array(String)}, token_id)
       UNION ALL SELECT token_id FROM tapehouse.book_changes WHERE has({tokens:Array(String)}, token_id)
       UNION ALL SELECT token_id FROM tapehouse.trades WHERE has({tokens:Array(String)}, token_id))`,
    { tokens: arrayParam(o.tokens) },
  );
  const have = new Set(known.map((r) => r.token_id));
  const unknown = o.tokens.filter((t) => !have.has(t));
  if (unknown.length > 0)
    throw new ExportRefused(`unknown token${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
}

/** The UTC days within the range on which any exported table has a row. */
async function daysWithData(o: ExportOptions): Promise<number[]> {
  const parts = EXPORT_TABLES.map(
    (t) =>
      `SELECT DISTINCT toDate(${t.time}) AS day FROM tapehouse.${t.name}
       WHERE ${t.time} >= {start:DateTime64(6, 'UTC')} AND ${t.time} < {end:DateTime64(6, 'UTC')}${
         t.byToken ? ' AND (empty({tokens:Array(String)}) OR has({tokens:Array(String)}, token_id))' : ''
       }`,
  );
  const days = await jsonRows<{ day: string }>(
    o.runner,
    `SELECT DISTINCT toString(day) AS day FROM (${parts.join(' UNION ALL ')}) ORDER BY day`,
    rangeParams(o, o.fromMs, o.toMs),
  );
  return days.map((d) => Date.parse(`${d.day}T00:00:00Z`));
}

async function writeTableDay(
  o: ExportOptions,
  table: ExportTable,
  day: string,
  startMs: number,
  endMs: number,
): Promise<ManifestFile> {
  const params = rangeParams(o, startMs, endMs);
  // Books are sampled up to the day's last stored book row, not on past the end of capture.
  if (table === BOOK_SAMPLES_TABLE) params.to_text = iso(Math.min(endMs - 1, await lastBookMs(o, startMs, endMs)));
  const extension = o.format === 'parquet' ? 'parquet' : 'csv.gz';
  const path = join(day, `${table.name}.${extension}`);
  mkdirSync(join(o.out, day), { recursive: true });
  const engineOutput = await o.runner.run(table.select, o.format === 'parquet' ? 'Parquet' : 'CSVWithNames', params);
  const bytes = o.format === 'parquet' ? engineOutput : gzipSync(engineOutput);
  const final = join(o.out, path);
  const partial = `${final}.partial`;
  writeFileSync(partial, bytes, { flush: true });
  renameSync(partial, final);
  const [stats] = await jsonRows<{ rows: string; min_time: string | null; max_time: string | null }>(
    o.runner,
    `SELECT toString(count()) AS rows, if(count() = 0, NULL, toString(min(${table.time}))) AS min_time,
            if(count() = 0, NULL, toString(max(${table.time}))) AS max_time
     FROM (${table.select})`,
    params,
  );
  return {
    path,
    rows: Number(stats!.rows),
    minTime: stats!.min_time,
    maxTime: stats!.max_time,
    timeColumn: table.time,
    columns: await columnsOf(o.runner, table.select, params),
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

async function lastBookMs(o: ExportOptions, startMs: number, endMs: number): Promise<number> {
  const [row] = await jsonRows<{ last: string }>(
    o.runner,
    `SELECT toString(greatest(
       (SELECT max(toUnixTimestamp64Milli(snapshot_at)) FROM tapehouse.book_snapshots WHERE snapshot_at >= {start:DateTime64(6, 'UTC')} AND snapshot_at < {end:DateTime64(6, 'UTC')}),
       (SELECT max(toUnixTimestamp64Milli(changed_at)) FROM tapehouse.book_changes WHERE changed_at >= {start:DateTime64(6, 'UTC')} AND changed_at < {end:DateTime64(6, 'UTC')}))) AS last`,
    rangeParams(o, startMs, endMs),
  );
  // No book row that day: a range before the start gives no samples.
  return Number(row?.last ?? 0) || startMs - 1;
}

async function columnsOf(
  runner: QueryRunner,
  select: string,
  params: Record<string, string>,
): Promise<Array<{ name: string; type: string }>> {
  const answer = JSON.parse((await runner.run(`SELECT * FROM (${select}) LIMIT 0`, 'JSON', params)).toString('utf8'));
  return (answer.meta as Array<{ name: string; type: string }>).map(({ name, type }) => ({ name, type }));
}

async function gapsOf(runner: QueryRunner, startMs: number, endMs: number): Promise<ManifestGap[]> {
  const rows = await jsonRows<Record<string, string>>(
    runner,
    `SELECT stream, channel, subject_kind, subject, toString(gap_start) AS start, toString(gap_end) AS end, reason, recovery
     FROM tapehouse.capture_gaps
     WHERE gap_start < {end:DateTime64(6, 'UTC')} AND gap_end >= {start:DateTime64(6, 'UTC')}
     ORDER BY gap_start, stream, channel, subject`,
    { start: micros(startMs), end: micros(endMs) },
  );
  return rows.map((r) => ({
    stream: r.stream!,
    channel: r.channel!,
    subjectKind: r.subject_kind!,
    subject: r.subject!,
    start: r.start!,
    end: r.end!,
    reason: r.reason!,
    recovery: r.recovery!,
  }));
}

/** A file listed in the manifest is taken as written when it is there at the listed size (it was renamed whole). */
function fileIsWhole(path: string, bytes: number): boolean {
  try {
    return statSync(path).size === bytes;
  } catch {
    return false;
  }
}

function rangeParams(o: ExportOptions, startMs: number, endMs: number): Record<string, string> {
  return {
    start: micros(startMs),
    end: micros(endMs),
    tokens: arrayParam(o.tokens),
    from_text: iso(startMs),
    // Samples start at the day's start and stop before its end.
    to_text: iso(endMs - 1),
    interval_ms: String(o.snapshotIntervalMs),
    depth: String(o.snapshotDepth),
  };
}

/** An Array(String) parameter in ClickHouse's text form. */
function arrayParam(values: readonly string[]): string {
  return `[${values.map((v) => `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'`).join(',')}]`;
}

async function jsonRows<T>(runner: QueryRunner, sql: string, params: Record<string, string>): Promise<T[]> {
  const text = (await runner.run(sql, 'JSONEachRow', params)).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

const iso = (ms: number): string => new Date(ms).toISOString();
/** `YYYY-MM-DD hh:mm:ss.ffffff`, as a DateTime64(6) parameter reads it. */
const micros = (ms: number): string => `${iso(ms).replace('T', ' ').slice(0, 23)}000`;
