import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { ReadExecutor } from './chdb-read-sessions.ts';
import { decompressBlocks } from './compressed-blocks.ts';
import { ClientGone, QueryAnswer } from './http-answer.ts';
import { describeError, httpStatusOf } from './http-errors.ts';
import { nativeQuerySettings, NativeTranscoder } from './native-blocks.ts';
import { bindQueryParameters } from './query-parameters.ts';
import { QueryRefused } from './query-refused.ts';
import { DEFAULT_LIMITS, isSettingName, prepareReadOnlyQuery, type QueryLimits } from './read-only-query.ts';

/**
 * A read-only, ClickHouse-compatible HTTP endpoint on 127.0.0.1 for the warehouse this process
 * owns (chDB allows one process per data directory, so other readers come through here). It
 * answers what real clients send as a ClickHouse server would (src/Server/HTTPHandler.cpp): the
 * query in the `query` parameter and/or the body (a line feed between them), settings and
 * `param_*` values as URL parameters, `database` / X-ClickHouse-Database, `default_format` /
 * X-ClickHouse-Format and the FORMAT clause, Native per `client_protocol_version`
 * (native-blocks.ts), `compress=1` / `decompress=1` (compressed-blocks.ts), HTTP compression,
 * `buffer_size` / `wait_end_of_query`, `/ping`, and errors as the server writes them
 * (http-answer.ts). Answers stream as chDB produces them.
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
/** ClickHouse's DBMS_DEFAULT_BUFFER_SIZE: the least a server holds back before the headers. */
const DEFAULT_BUFFER_BYTES = 1 << 20;
/** ClickHouse's default keep_alive_timeout (seconds). */
const KEEP_ALIVE_SECONDS = 30;

/** URL parameters that are the HTTP interface's own (HTTPHandler's reserved names), not settings. */
const RESERVED = new Set([
  'query',
  'compress',
  'decompress',
  'user',
  'password',
  'quota_key',
  'query_id',
  'stacktrace',
  'role',
  'buffer_size',
  'wait_end_of_query',
  'session_id',
  'session_timeout',
  'session_check',
  'client_protocol_version',
  'close_session',
  'database',
  'default_format',
]);
/** Settings about the HTTP answer itself, which the endpoint applies rather than the engine. */
const ANSWER_SETTINGS = new Set([
  'enable_http_compression',
  'http_zlib_compression_level',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_response_buffer_size',
  'http_wait_end_of_query',
  'http_native_compression_disable_checksumming_on_decompress',
  'add_http_cors_header',
  'cancel_http_readonly_queries_on_client_close',
  'http_write_exception_in_output_format',
]);

export async function startHttpEndpoint(
  executor: ReadExecutor,
  options: HttpEndpointOptions = {},
): Promise<HttpEndpoint> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const engine = { version: await executor.serverVersion(), tableFunctions: new Set(await executor.tableFunctions()) };
  const { routes } = options;
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const own = path === '/' || path === '/ping' || path === '/replicas_status';
    const answered = own || !routes ? Promise.resolve(false) : routes(request, response);
    answered
      .then((done) => (done ? undefined : handle(executor, engine, limits, request, response)))
      .catch((err: unknown) => sendPlainError(response, err, engine.version));
  });
  server.keepAliveTimeout = KEEP_ALIVE_SECONDS * 1000;
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

interface Engine {
  version: string;
  tableFunctions: ReadonlySet<string>;
}

async function handle(
  executor: ReadExecutor,
  engine: Engine,
  limits: QueryLimits,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', `http://${HOST}`);
  if (url.pathname === '/ping' || url.pathname === '/replicas_status') return sendText(response, 200, 'Ok.\n');
  if (url.pathname !== '/') return sendText(response, 404, `There is no handle ${url.pathname}\n`);
  if (request.method !== 'GET' && request.method !== 'POST') {
    response.setHeader('Allow', 'GET, POST');
    return sendText(response, 405, `Method ${request.method} is not allowed\n`);
  }
  const params = url.searchParams;

  const settings: Record<string, string> = {};
  const answerSettings: Record<string, string> = {};
  const rawParams: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name === '' || RESERVED.has(name)) continue;
    if (name.startsWith('param_')) rawParams[name.slice('param_'.length)] = value;
    else if (ANSWER_SETTINGS.has(name)) answerSettings[name] = value;
    else if (!isSettingName(name)) throw new QueryRefused(115, 'UNKNOWN_SETTING', `Unknown setting '${name}'`);
    else settings[name] = value;
  }

  const body = request.method === 'POST' ? await readBody(request, params, answerSettings) : '';
  const query = [params.get('query') ?? '', body].filter((part) => part !== '').join('\n');
  if (query.trim() === '') return sendText(response, 200, 'Ok.\n');

  const revision = Number(params.get('client_protocol_version') ?? 0);
  if (!Number.isInteger(revision) || revision < 0) {
    throw new QueryRefused(
      72,
      'CANNOT_PARSE_NUMBER',
      `Cannot parse client_protocol_version ${params.get('client_protocol_version')}`,
    );
  }
  const headerFormat = header(request, 'x-clickhouse-format');
  const defaultFormat = headerFormat || params.get('default_format') || 'TabSeparated';
  const clauseFormat = prepareReadOnlyQuery(query, {}, limits, engine.tableFunctions).format;
  const format = clauseFormat ?? defaultFormat;
  const native = format.toLowerCase() === 'native' && revision > 0;
  const nativeRequest = { revision, binaryTypes: settings.output_format_native_encode_types_in_binary_format === '1' };
  const prepared = prepareReadOnlyQuery(
    query,
    native ? { ...settings, ...nativeQuerySettings(nativeRequest) } : settings,
    limits,
    engine.tableFunctions,
  );
  const queryParams = bindQueryParameters(prepared.sql, rawParams);

  const answer = new QueryAnswer(request, response, {
    format,
    queryId: params.get('query_id') || header(request, 'x-clickhouse-query-id') || randomUUID(),
    compressBlocks: params.get('compress') === '1',
    httpCompression: flag(answerSettings.enable_http_compression),
    holdBytes: Math.max(
      Number(params.get('buffer_size') ?? answerSettings.http_response_buffer_size ?? 0) || 0,
      DEFAULT_BUFFER_BYTES,
    ),
    waitEndOfQuery: flag(params.get('wait_end_of_query') ?? answerSettings.http_wait_end_of_query),
    displayName: 'tapehouse',
    version: engine.version,
  });
  const transcoder = native ? new NativeTranscoder(nativeRequest) : undefined;
  const chunks = executor.stream({
    sql: prepared.sql,
    database: header(request, 'x-clickhouse-database') || params.get('database') || 'default',
    format,
    queryParams,
  });
  const closed = () => answer.abandon();
  response.once('close', closed);
  try {
    for await (const chunk of chunks) {
      if (transcoder) {
        const { data, rows } = transcoder.push(chunk.data);
        await answer.write(data, rows);
      } else {
        await answer.write(chunk.data, chunk.rows);
      }
    }
    transcoder?.end();
    await answer.finish();
  } catch (err) {
    if (err instanceof ClientGone || response.destroyed) return;
    await answer.fail(err);
  } finally {
    response.off('close', closed);
  }
}

function flag(value: string | null | undefined): boolean {
  return value === '1' || value === 'true';
}

async function readBody(
  request: IncomingMessage,
  params: URLSearchParams,
  answerSettings: Record<string, string>,
): Promise<string> {
  if ((header(request, 'content-type') ?? '').startsWith('multipart/')) {
    throw new QueryRefused(
      48,
      'NOT_IMPLEMENTED',
      'external tables (multipart request bodies) are not supported by this read-only endpoint',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new QueryRefused(229, 'QUERY_IS_TOO_LARGE', `Request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let raw: Buffer = Buffer.concat(chunks);
  const encoding = (header(request, 'content-encoding') ?? '').toLowerCase();
  switch (encoding) {
    case '':
    case 'identity':
      break;
    case 'gzip':
      raw = gunzipSync(raw);
      break;
    case 'deflate':
      raw = inflateSync(raw);
      break;
    case 'br':
      raw = brotliDecompressSync(raw);
      break;
    default:
      throw new QueryRefused(48, 'NOT_IMPLEMENTED', `Content-Encoding ${encoding} is not supported by this endpoint`);
  }
  if (flag(params.get('decompress'))) {
    raw = decompressBlocks(raw, !flag(answerSettings.http_native_compression_disable_checksumming_on_decompress));
  }
  return raw.toString('utf8');
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** An error before the answer began (bad request, refused query): the server's plain error answer. */
function sendPlainError(response: ServerResponse, err: unknown, version: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const { code, message } = describeError(err, version);
  const text = Buffer.from(`${message}\n`);
  response.writeHead(httpStatusOf(code), {
    'Content-Type': 'text/plain; charset=UTF-8',
    'Content-Length': text.length,
    'X-ClickHouse-Exception-Code': String(code),
    'X-ClickHouse-Server-Display-Name': 'tapehouse',
  });
  response.end(text);
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=UTF-8' });
  response.end(text);
}
