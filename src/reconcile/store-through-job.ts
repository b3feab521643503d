import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InsertRow } from '../warehouse/insert/index.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';
import type { Reconciliation } from './reconcile.ts';
import { reconciliationRows, storeRows } from './store.ts';

/**
 * A reconcile run stored while the main job owns the data directory (chDB allows one process per
 * directory): `tapehouse reconcile` posts the run's rows to the job's port, and the job inserts
 * them into `reconciliations` — that one table, rows checked column by column, the run id as the
 * insert's dedup token (a retried post lands once). Everything else on the port stays read-only.
 */
export const RECONCILIATIONS_PATH = '/reconciliations';

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const STRINGS = ['run_id', 'account', 'scope', 'token_id', 'condition_id', 'field', 'status', 'detail', 'method'];
const MICROS = ['ours_micro', 'theirs_micro', 'difference_micro', 'tolerance_micro'];
const TIMES = ['reconciled_at', 'reported_at'];
const COLUMNS = new Set([...STRINGS, ...MICROS, ...TIMES]);

/** Rows as JSON: bigints as decimal strings, times as epoch milliseconds. */
function wireRow(row: InsertRow): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));
}

/** A wire row back into an insert row; throws with what is wrong. */
export function parseWireRow(value: unknown, index: number): InsertRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`row ${index} is not an object`);
  const o = value as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !COLUMNS.has(k));
  if (unknown.length > 0) throw new Error(`row ${index}: unknown column(s) ${unknown.join(', ')}`);
  const row: Record<string, InsertRow[string]> = {};
  for (const k of STRINGS) {
    if (typeof o[k] !== 'string') throw new Error(`row ${index}: ${k} is not a string`);
    row[k] = o[k];
  }
  for (const k of MICROS) {
    const v = o[k];
    if (typeof v !== 'string' || !/^-?\d{1,19}$/.test(v)) throw new Error(`row ${index}: ${k} is not a whole number`);
    const n = BigInt(v);
    if (n < INT64_MIN || n > INT64_MAX) throw new Error(`row ${index}: ${k} is out of Int64`);
    row[k] = n;
  }
  for (const k of TIMES) {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v))
      throw new Error(`row ${index}: ${k} is not epoch milliseconds`);
    row[k] = v;
  }
  return row;
}

/** The run's rows as the job's route takes them. */
export function wireBody(run: Reconciliation): string {
  return JSON.stringify({ run_id: run.runId, rows: reconciliationRows(run).map(wireRow) });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error(`the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function answer(response: ServerResponse, status: number, body: object): true {
  response.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
  return true;
}

/** The job's side: answers `POST /reconciliations`; false for every other path. */
export function reconciliationRoute(
  warehouse: Pick<Warehouse, 'insertRows'>,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  return async (request, response) => {
    if ((request.url ?? '/').split('?')[0] !== RECONCILIATIONS_PATH) return false;
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST');
      return answer(response, 405, { error: `${request.method} is not allowed: POST the run's rows` });
    }
    let runId: string;
    let rows: InsertRow[];
    try {
      const body = JSON.parse(await readBody(request)) as { run_id?: unknown; rows?: unknown };
      if (typeof body.run_id !== 'string' || body.run_id === '') throw new Error('no run_id');
      if (!Array.isArray(body.rows)) throw new Error('no rows array');
      runId = body.run_id;
      rows = body.rows.map(parseWireRow);
      const other = rows.findIndex((row) => row.run_id !== runId);
      if (other >= 0) throw new Error(`row ${other} belongs to another run`);
    } catch (err) {
      return answer(response, 400, { error: err instanceof Error ? err.message : String(err) });
    }
    await storeRows(warehouse, runId, rows);
    return answer(response, 200, { stored: rows.length });
  };
}

/** The command's side: posts the run to the job at `url`; the rows stored. */
export async function storeThroughJob(url: string, run: Reconciliation, timeoutMs = 60_000): Promise<number> {
  const response = await fetch(new URL(RECONCILIATIONS_PATH, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: wireBody(run),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`the running job refused the run (HTTP ${response.status}): ${text.trim()}`);
  return Number((JSON.parse(text) as { stored: number }).stored);
}
