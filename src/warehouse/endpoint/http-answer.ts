import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import {
  constants as zlibConstants,
  createBrotliCompress,
  createDeflate,
  createGzip,
  type BrotliCompress,
  type Deflate,
  type Gzip,
} from 'node:zlib';
import { CompressedBlockWriter } from './compressed-blocks.ts';
import { describeError, httpStatusOf } from './http-errors.ts';

/**
 * One answer of the endpoint, written as a ClickHouse server writes it (src/Server/HTTPHandler.cpp,
 * src/Server/HTTP/HTTP1/HTTP1ServerResponse.cpp):
 *
 *   - nothing goes out until `buffer_size` bytes of output (at least 1 MiB) are ready or the query
 *     has finished, so an error in that window is an ordinary error answer (status by code,
 *     X-ClickHouse-Exception-Code, the message as text), and a short answer's X-ClickHouse-Summary
 *     is final; `wait_end_of_query=1` holds the whole answer (past 16 MiB in a temporary file);
 *   - then headers and data stream as the engine produces them, with back-pressure;
 *   - `compress=1` frames the output in ClickHouse's compressed blocks, inside any HTTP
 *     compression (`enable_http_compression=1` and Accept-Encoding: br, gzip or deflate);
 *   - an error after data went out is written into the body as the server does since 25.11:
 *     `\r\n__exception__\r\n<tag>\r\n<message>\n<length> <tag>\r\n__exception__\r\n`, the tag being
 *     the X-ClickHouse-Exception-Tag header, and the response is then broken off (no final chunk),
 *     so no client can take a truncated answer for a complete one.
 */

export interface AnswerOptions {
  format: string;
  queryId: string;
  /** compress=1 */
  compressBlocks: boolean;
  /** enable_http_compression=1 */
  httpCompression: boolean;
  /** Bytes held back before the headers go out. */
  holdBytes: number;
  /** wait_end_of_query=1 */
  waitEndOfQuery: boolean;
  displayName: string;
  version: string;
}

const EXCEPTION_MARKER = '__exception__';
const EXCEPTION_TAG_LENGTH = 16;
const MAX_EXCEPTION_BYTES = 16 * 1024;
const SPILL_BYTES = 16 << 20;

type HttpEncoder = Gzip | Deflate | BrotliCompress;

/** The server's preference order (chooseHTTPCompressionMethod), among the methods Node has. */
export function chooseHttpEncoding(acceptEncoding: string): 'br' | 'gzip' | 'deflate' | undefined {
  const offered = acceptEncoding.toLowerCase();
  if (/\bbr\b/.test(offered)) return 'br';
  if (/\bgzip\b/.test(offered)) return 'gzip';
  if (/\bdeflate\b/.test(offered)) return 'deflate';
  return undefined;
}

function createEncoder(encoding: 'br' | 'gzip' | 'deflate'): HttpEncoder {
  if (encoding === 'br') return createBrotliCompress({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } });
  return encoding === 'gzip' ? createGzip({ level: 3 }) : createDeflate({ level: 3 });
}

export function contentTypeOf(format: string): string {
  const name = format.toLowerCase();
  if (name.startsWith('json')) return 'application/json; charset=UTF-8';
  if (name.startsWith('tabseparated') || name.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8';
  if (name.startsWith('csv')) return `text/csv; charset=UTF-8; header=${name.includes('names') ? 'present' : 'absent'}`;
  if (
    ['native', 'rowbinary', 'parquet', 'arrow', 'arrowstream', 'orc', 'avro', 'msgpack'].some((binary) =>
      name.startsWith(binary),
    )
  ) {
    return 'application/octet-stream';
  }
  return 'text/plain; charset=UTF-8';
}

/** Output held back before the headers: in memory, then in a temporary file. */
class HeldOutput {
  chunks: Buffer[] = [];
  size = 0;
  #file: { dir: string; path: string; out: WriteStream } | undefined;

  async add(data: Buffer): Promise<void> {
    this.size += data.length;
    if (!this.#file && this.size <= SPILL_BYTES) {
      this.chunks.push(data);
      return;
    }
    if (!this.#file) {
      const dir = mkdtempSync(join(tmpdir(), 'tapehouse-answer-'));
      const path = join(dir, 'held');
      this.#file = { dir, path, out: createWriteStream(path) };
      for (const chunk of this.chunks.splice(0)) await this.#write(chunk);
    }
    await this.#write(data);
  }

  async #write(data: Buffer): Promise<void> {
    if (!this.#file!.out.write(data)) await once(this.#file!.out, 'drain');
  }

  /** Everything held, in order. */
  async *drain(): AsyncIterable<Buffer> {
    if (this.#file) {
      const { out, path } = this.#file;
      out.end();
      await once(out, 'finish');
      for await (const chunk of createReadStream(path)) yield chunk as Buffer;
    } else {
      yield* this.chunks;
    }
    this.discard();
  }

  discard(): void {
    this.chunks = [];
    this.size = 0;
    if (this.#file) {
      this.#file.out.destroy();
      rmSync(this.#file.dir, { recursive: true, force: true });
      this.#file = undefined;
    }
  }
}

export class QueryAnswer {
  readonly #response: ServerResponse;
  readonly #options: AnswerOptions;
  readonly #encoding: 'br' | 'gzip' | 'deflate' | undefined;
  readonly #blocks: CompressedBlockWriter | undefined;
  readonly #exceptionTag = randomBytes(EXCEPTION_TAG_LENGTH).toString('base64url').slice(0, EXCEPTION_TAG_LENGTH);
  readonly #started = process.hrtime.bigint();
  #held = new HeldOutput();
  #encoder: HttpEncoder | undefined;
  #sent = false;
  #rows = 0;
  #bytes = 0;

  constructor(request: IncomingMessage, response: ServerResponse, options: AnswerOptions) {
    this.#response = response;
    this.#options = options;
    const accepted = request.headers['accept-encoding'];
    this.#encoding = options.httpCompression
      ? chooseHttpEncoding(Array.isArray(accepted) ? accepted.join(',') : (accepted ?? ''))
      : undefined;
    this.#blocks = options.compressBlocks ? new CompressedBlockWriter() : undefined;
  }

  /** Output of the query, as the format wrote it. */
  async write(data: Buffer, rows: number): Promise<void> {
    if (this.#response.destroyed) throw new ClientGone(); // stop the query: no one is reading
    this.#rows += rows;
    this.#bytes += data.length;
    if (data.length === 0) return;
    if (!this.#sent) {
      await this.#held.add(data);
      if (this.#options.waitEndOfQuery || this.#held.size < this.#options.holdBytes) return;
      await this.#startSending();
      return;
    }
    await this.#send(data);
  }

  /** The query finished: whatever is held goes out, then the end of the answer. */
  async finish(): Promise<void> {
    if (!this.#sent) {
      if (this.#held.size <= this.#options.holdBytes && !this.#blocks && !this.#encoding) {
        // All of it is here: one body with its length.
        const body = Buffer.concat(this.#held.chunks);
        this.#held.discard();
        this.#writeHead(200, { 'Content-Length': body.length });
        await this.#end(body);
        return;
      }
      await this.#startSending();
    }
    for (const block of this.#blocks?.flush() ?? []) await this.#encode(block);
    if (this.#encoder) {
      this.#encoder.end();
      await once(this.#encoder, 'end');
      await this.#end();
    } else {
      await this.#end();
    }
  }

  /** The query failed, before or after data went out. */
  async fail(err: unknown): Promise<void> {
    const { code, message } = describeError(err, this.#options.version);
    if (!this.#sent) {
      this.#held.discard();
      this.#blocks?.discard();
      this.#response.setHeader('X-ClickHouse-Exception-Code', String(code));
      const text = Buffer.from(message.endsWith('\n') ? message : `${message}\n`);
      if (this.#encoding) {
        this.#writeHead(httpStatusOf(code), {
          'Content-Type': 'text/plain; charset=UTF-8',
          'Content-Encoding': this.#encoding,
        });
        this.#encoder = createEncoder(this.#encoding);
        this.#encoder.pipe(this.#response);
        this.#encoder.end(text);
        await once(this.#response, 'finish');
      } else {
        this.#writeHead(httpStatusOf(code), {
          'Content-Type': 'text/plain; charset=UTF-8',
          'Content-Length': text.length,
        });
        await this.#end(text);
      }
      return;
    }
    // Data went out with status 200: the error goes into the body, and the answer is broken off.
    this.#blocks?.discard();
    const overhead =
      2 +
      EXCEPTION_MARKER.length +
      2 +
      EXCEPTION_TAG_LENGTH +
      2 +
      8 +
      1 +
      EXCEPTION_TAG_LENGTH +
      2 +
      EXCEPTION_MARKER.length +
      2;
    let text = Buffer.from(message)
      .subarray(0, MAX_EXCEPTION_BYTES - overhead)
      .toString('utf8');
    if (!text.endsWith('\n')) text += '\n';
    const block = `\r\n${EXCEPTION_MARKER}\r\n${this.#exceptionTag}\r\n${text}${Buffer.byteLength(text)} ${this.#exceptionTag}\r\n${EXCEPTION_MARKER}\r\n`;
    try {
      await this.#encode(Buffer.from(block));
      if (this.#encoder) await new Promise<void>((resolve) => this.#encoder!.flush(resolve));
      await new Promise((resolve) => setImmediate(resolve)); // let the piped bytes reach the socket
    } finally {
      this.#breakOff();
    }
  }

  /** The client went away: stop writing. */
  abandon(): void {
    this.#held.discard();
    this.#encoder?.destroy();
    this.#response.destroy();
  }

  get sent(): boolean {
    return this.#sent;
  }

  #summary(): string {
    const elapsed = process.hrtime.bigint() - this.#started;
    // chDB's streaming interface reports no read statistics; the result's own figures are exact.
    return JSON.stringify({
      read_rows: '0',
      read_bytes: '0',
      written_rows: '0',
      written_bytes: '0',
      total_rows_to_read: '0',
      result_rows: String(this.#rows),
      result_bytes: String(this.#bytes),
      elapsed_ns: String(elapsed),
    });
  }

  #writeHead(status: number, extra: Record<string, string | number>): void {
    this.#sent = true;
    const response = this.#response;
    response.setHeader('X-ClickHouse-Server-Display-Name', this.#options.displayName);
    response.setHeader('X-ClickHouse-Exception-Tag', this.#exceptionTag);
    response.setHeader('X-ClickHouse-Summary', this.#summary());
    if (status === 200) {
      response.setHeader('Content-Type', contentTypeOf(this.#options.format));
      response.setHeader('X-ClickHouse-Query-Id', this.#options.queryId);
      response.setHeader('X-ClickHouse-Format', this.#options.format);
      response.setHeader('X-ClickHouse-Timezone', 'UTC');
    }
    for (const [name, value] of Object.entries(extra)) response.setHeader(name, value);
    response.writeHead(status);
  }

  async #startSending(): Promise<void> {
    const extra: Record<string, string> = {};
    if (this.#encoding) extra['Content-Encoding'] = this.#encoding;
    this.#writeHead(200, extra);
    if (this.#encoding) {
      this.#encoder = createEncoder(this.#encoding);
      this.#encoder.pipe(this.#response, { end: false });
    }
    for await (const chunk of this.#held.drain()) await this.#send(chunk);
  }

  async #send(data: Buffer): Promise<void> {
    if (!this.#blocks) return this.#encode(data);
    for (const block of this.#blocks.write(data)) await this.#encode(block);
  }

  async #encode(data: Buffer): Promise<void> {
    const target = this.#encoder ?? this.#response;
    if (!target.write(data)) await drainedOrClosed(target, this.#response);
    if (this.#response.destroyed) throw new ClientGone();
  }

  async #end(body?: Buffer): Promise<void> {
    this.#response.end(body);
    if (!this.#response.writableFinished) await once(this.#response, 'finish').catch(() => undefined);
  }

  /** Ends the connection without the final chunk, once what was written has gone out. */
  #breakOff(): void {
    const socket = this.#response.socket;
    this.#response.shouldKeepAlive = false;
    if (socket) socket.end();
    else this.#response.destroy();
  }
}

/** Resolves when `target` can take more, or the connection is gone (listeners removed either way). */
function drainedOrClosed(target: NodeJS.WritableStream, response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      target.off('drain', done);
      response.off('close', done);
      resolve();
    };
    target.on('drain', done);
    response.on('close', done);
  });
}

/** The client closed the connection while the answer was being written. */
export class ClientGone extends Error {
  override name = 'ClientGone';
}
