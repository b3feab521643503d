import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `manifest.json` under the output folder: what was written, and what a resumed export may skip. */
export interface Manifest {
  /** The settings the files were written with: a later export into the folder must use the same. */
  format: ExportFormat;
  snapshotIntervalMs: number;
  snapshotDepth: number;
  tokens: string[];
  days: Record<string, ManifestDay>;
}

export type ExportFormat = 'parquet' | 'csv.gz';

export interface ManifestDay {
  /** The part of the day exported (UTC, µs precision ISO): the whole day, or clipped by --from/--to. */
  start: string;
  end: string;
  /** Every table's file is written and listed. */
  complete: boolean;
  /** Coverage lost during the day (capture_gaps overlapping it): a hole here is not a quiet market. */
  gaps: ManifestGap[];
  files: Record<string, ManifestFile>;
}

export interface ManifestFile {
  /** Relative to the output folder. */
  path: string;
  rows: number;
  /** The earliest and latest value of the table's time column in the file (null: no rows). */
  minTime: string | null;
  maxTime: string | null;
  timeColumn: string;
  /** As the engine names them. */
  columns: Array<{ name: string; type: string }>;
  bytes: number;
  sha256: string;
}

export interface ManifestGap {
  stream: string;
  channel: string;
  subjectKind: string;
  subject: string;
  start: string;
  end: string;
  reason: string;
  recovery: string;
}

export const MANIFEST_FILE = 'manifest.json';

export function readManifest(dir: string): Manifest | null {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return null;
  }
  return JSON.parse(text) as Manifest;
}

/** Written whole under a temporary name and renamed: a reader never sees half a manifest. */
export function writeManifest(dir: string, manifest: Manifest): void {
  const temporary = join(dir, `.${MANIFEST_FILE}.partial`);
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temporary, join(dir, MANIFEST_FILE));
}
