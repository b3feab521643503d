import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, brotliDecompressSync, deflateSync, gzipSync, inflateSync, gunzipSync } from 'node:zlib';
import type { ReadExecutor } from './chdb-read-sessions.ts';
import { QueryRefused } from './query-refused.ts';
import { DEFAULT_LIMITS, isSettingName, prepareReadOnlyQuery, type QueryLimits } from './read-only-query.ts';

/**
 * A read-only, ClickHouse-compatible HTTP endpoint on 127.0.0.1 for the warehouse this process
 * owns (chDB allows one process per data directory, so other readers come through here).
 * It speaks enough of ClickHouse's HTTP interface for @clickhouse/client and Grafana's ClickHouse
 * data source: the query in the body or the `query` parameter (POST concatenates both), settings
 * and `param_*` query parameters as URL parameters, `database`, `default_format` and the FORMAT
 * clause, gzip/deflate/br when `enable_http_compression=1`, `/ping`, and errors as ClickHouse sends
 * them (status by code, `X-ClickHouse-Exception-Code`, the message as text).
 */

export interface HttpEndpointOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  limits?: QueryLimits;
  /**
   * Other pages served on the same port (the main job's dashboards and /metrics), tried first for
   * every path but the ClickHouse interface's own (`/`, `/ping`); true when it answered.
   */
  routes?: (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;
}

export interface HttpEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** URL parameters that are not settings: the HTTP interface's own, and ones chDB has no use for. */
const NOT_SETTINGS = new Set([
  'query', 'database', 'default_format', 'query_id', 'session_id', 'session_timeout', 'session_check',
  'user', 'password', 'quota_key', 'role', 'buffer_size', 'wait_end_of_query', 'compress', 'decompress',
  'client_protocol_version', 'stacktrace', 'enable_http_compression', 'http_zlib_compression_level',
  'send_progress_in_http_headers', 'http_headers_progress_interval_ms', 'http_response_buffer_size',
  'http_native_compression_disable_checksumming_on_decompress', 'add_http_cors_header',
]);

export async function startHttpEndpoint(executor: ReadExecutor, options: HttpEndpointOptions = {}): Promise<HttpEndpoint> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const { routes } = options;
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const own = path === '/' || path === '/ping' || path === '/replicas_status';
    const answered = own || !routes ? Promise.resolve(false) : routes(request, response);
    answered
      .then((done) => (done ? undefined : handle(executor, limits, request, response)))
      .catch((err: unknown) => sendError(response, request, err));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://${HOST}:${port}`, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
}

async function handle(executor: ReadExecutor, limits: QueryLimits, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', `http://${HOST}`);
  if (url.pathname === '/ping' || url.pathname === '/replicas_status') return sendText(response, 200, 'Ok.\n');
  if (url.pathname !== '/') return sendText(response, 404, `There is no handle ${url.pathname}\n`);
  if (request.method !== 'GET' && request.method !== 'POST') {
    response.setHeader('Allow', 'GET, POST');
    return sendText(response, 405, `Method ${request.method} is not allowed\n`);
  }

  const body = request.method === 'POST' ? await readBody(request) : '';
  const params = url.searchParams;
  const query = [params.get('query'), body].filter((part) => part).join('\n');
  if (query === '') return sendText(response, 200, 'Ok.\n');
  if (params.get('compress') === '1') {
    throw new QueryRefused(48, 'NOT_IMPLEMENTED', 'compress=1 (ClickHouse block compression) is not supported here; use enable_http_compression=1');
  }

  const settings: Record<string, string> = {};
  const queryParams: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name.startsWith('param_')) queryParams[name.slice('param_'.length)] = value;
    else if (!NOT_SETTINGS.has(name)) {
      if (!isSettingName(name)) throw new QueryRefused(115, 'UNKNOWN_SETTING', `Unknown setting ${name}`);
      settings[name] = value;
    }
  }
  const prepared = prepareReadOnlyQuery(query, settings, limits);
  const format = prepared.format ?? params.get('default_format') ?? header(request, 'x-clickhouse-format') ?? 'TabSeparated';
  const queryId = params.get('query_id') ?? randomUUID();
  const result = await executor.run({
    sql: prepared.sql,
    database: params.get('database') ?? header(request, 'x-clickhouse-database') ?? 'default',
    format,
    queryParams,
  });
  // ClickHouse checks max_result_bytes between blocks, so one large block passes it: the answer's
  // own size is bounded here too (it is refused whole rather than cut mid-row).
  if (result.body.length > limits.maxResultBytes) {
    throw new QueryRefused(396, 'TOO_MANY_ROWS_OR_BYTES', `Limit for result exceeded, max bytes: ${limits.maxResultBytes}, current bytes: ${result.body.length}`);
  }

  const summary = {
    read_rows: String(result.rowsRead),
    read_bytes: String(result.bytesRead),
    written_rows: '0',
    written_bytes: '0',
    total_rows_to_read: String(result.rowsRead),
    result_rows: '0',
    result_bytes: String(result.body.length),
    elapsed_ns: String(result.elapsedNs),
  };
  response.setHeader('Content-Type', contentTypeOf(format));
  response.setHeader('X-ClickHouse-Query-Id', queryId);
  response.setHeader('X-ClickHouse-Format', format);
  response.setHeader('X-ClickHouse-Timezone', 'UTC');
  response.setHeader('X-ClickHouse-Server-Display-Name', 'tapehouse');
  response.setHeader('X-ClickHouse-Summary', JSON.stringify(summary));
  sendBody(response, request, 200, result.body, params.get('enable_http_compression') === '1');
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new QueryRefused(229, 'QUERY_IS_TOO_LARGE', `Request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  if ((header(request, 'content-type') ?? '').startsWith('multipart/')) {
    throw new QueryRefused(48, 'NOT_IMPLEMENTED', 'multipart request bodies are not supported here; send query parameters in the URL');
  }
  switch ((header(request, 'content-encoding') ?? '').toLowerCase()) {
    case '':
    case 'identity':
      return raw.toString('utf8');
    case 'gzip':
      return gunzipSync(raw).toString('utf8');
    case 'deflate':
      return inflateSync(raw).toString('utf8');
    case 'br':
      return brotliDecompressSync(raw).toString('utf8');
    default:
      throw new QueryRefused(48, 'NOT_IMPLEMENTED', `Content-Encoding ${header(request, 'content-encoding')} is not supported here`);
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function contentTypeOf(format: string): string {
  const name = format.toLowerCase();
  if (name.startsWith('json')) return 'application/json; charset=UTF-8';
  if (name.startsWith('tabseparated') || name.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8';
  if (name.startsWith('csv')) return 'text/csv; charset=UTF-8; header=absent';
  if (['native', 'rowbinary', 'parquet', 'arrow', 'arrowstream', 'orc', 'avro', 'msgpack'].some((binary) => name.startsWith(binary))) {
    return 'application/octet-stream';
  }
  return 'text/plain; charset=UTF-8';
}

// ClickHouse's HTTP status per exception code (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp),
// with the codes looked up through errorCodeToName(); anything else is 500, as there.
const STATUS_BY_CODE = new Map<number, number>([
  [194, 401],
  ...[192, 193, 516, 512, 497].map((code): [number, number] => [code, 403]),
  ...[36, 427, 6, 25, 26, 38, 41, 72, 441, 675, 676, 27, 376, 15, 44, 37, 123, 8, 167, 168, 223, 62, 117, 53, 321].map(
    (code): [number, number] => [code, 400],
  ),
  ...[60, 46, 47, 50, 56, 81, 115, 152, 63, 73, 336, 78, 511].map((code): [number, number] => [code, 404]),
  [229, 413],
  [48, 501],
  [209, 503],
  [76, 503],
  [381, 411],
  [159, 408],
  [439, 503],
  [779, 415],
]);

export function httpStatusOf(code: number): number {
  return STATUS_BY_CODE.get(code) ?? 500;
}

function sendError(response: ServerResponse, request: IncomingMessage, err: unknown): void {
  const { code, message } = describeError(err);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.setHeader('X-ClickHouse-Exception-Code', String(code));
  response.setHeader('Content-Type', 'text/plain; charset=UTF-8');
  sendBody(response, request, httpStatusOf(code), Buffer.from(`${message}\n`), false);
}

/** ClickHouse's error text: `Code: N. DB::Exception: message. (TYPE)`. */
function describeError(err: unknown): { code: number; message: string } {
  // Refusals of our own, and chDB's errors as @clickhouse/client's connection maps them
  // (ClickHouseError: numeric code as a string, TYPE, message without the prefix).
  const { code, type } = err as { code?: unknown; type?: unknown };
  const message = (err instanceof Error ? err.message : String(err)).trim().replace(/[.\s]+$/, '');
  const numeric = typeof code === 'number' ? code : Number(code);
  if (Number.isInteger(numeric) && numeric > 0 && typeof type === 'string') {
    return { code: numeric, message: `Code: ${numeric}. DB::Exception: ${message}. (${type})` };
  }
  const inline = /Code: (\d+)\./.exec(message);
  if (inline) return { code: Number(inline[1]), message };
  return { code: 1001, message: `Code: 1001. DB::Exception: ${message}. (STD_EXCEPTION)` };
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=UTF-8' });
  response.end(text);
}

function sendBody(response: ServerResponse, request: IncomingMessage, status: number, body: Buffer, compress: boolean): void {
  const accepted = compress ? (header(request, 'accept-encoding') ?? '') : '';
  let encoded = body;
  if (/\bgzip\b/.test(accepted)) {
    encoded = gzipSync(body);
    response.setHeader('Content-Encoding', 'gzip');
  } else if (/\bdeflate\b/.test(accepted)) {
    encoded = deflateSync(body);
    response.setHeader('Content-Encoding', 'deflate');
  } else if (/\bbr\b/.test(accepted)) {
    encoded = brotliCompressSync(body);
    response.setHeader('Content-Encoding', 'br');
  }
  response.setHeader('Content-Length', encoded.length);
  response.writeHead(status);
  response.end(encoded);
}
