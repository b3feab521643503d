import type { IncomingMessage } from 'node:http';
import { Rejection } from '../problems.ts';

/** Reads the whole body, refusing past `maxBytes` with 413 (and draining the rest). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw new Rejection('request_body_too_large', `Maximum ${maxBytes} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) tooLarge = true;
    else chunks.push(chunk);
  }
  if (tooLarge) throw new Rejection('request_body_too_large', `Maximum ${maxBytes} bytes.`);
  return Buffer.concat(chunks);
}

function isJsonContentType(header: string | undefined): boolean {
  const type = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * JSON body rules: 415 without application/json, 400 malformed_json when it does not parse.
 * An empty body is `{}` on routes whose fields are all optional.
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined, optional: boolean): unknown {
  if (raw.length === 0 && optional) return {};
  if (!isJsonContentType(contentType))
    throw new Rejection('unsupported_media_type', 'Send Content-Type: application/json.');
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new Rejection('malformed_json', 'The body is not valid JSON.');
  }
}
