import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamServer } from '../streams/stream-server.ts';
import { FaultSpecError, parseFaultSpec } from './fault-spec.ts';
import { faultJson, type Faults } from './faults.ts';
import type { RateLimitTally } from '../access/limits/rate-limit-tally.ts';

export interface ControlServer {
  url: string;
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 64 * 1024) throw new FaultSpecError('body too large');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new FaultSpecError('body is not JSON');
  }
}

/**
 * The fault-control endpoint, on its own loopback port so the venue's interface stays exactly the
 * interface (README, "Fault injection"):
 *   GET /faults · POST /faults {kind, …} · DELETE /faults/{id} · GET /connections
 *   GET /rate-limits (every 429 answered: earned by clients, or injected)
 */
export async function startControlServer(
  port: number,
  faults: Faults,
  streams: StreamServer,
  tally: RateLimitTally,
): Promise<ControlServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
    try {
      if (path === '/faults' && req.method === 'GET')
        return reply(res, 200, { active: faults.active().map(faultJson), ended: faults.ended().map(faultJson) });
      if (path === '/faults' && req.method === 'POST')
        return reply(res, 201, { fault: faultJson(faults.inject(parseFaultSpec(await readJson(req)))) });
      if (path.startsWith('/faults/') && req.method === 'DELETE') {
        const ended = faults.end(decodeURIComponent(path.slice('/faults/'.length)));
        return ended
          ? reply(res, 200, { fault: faultJson(ended) })
          : reply(res, 404, { error: 'no such active fault' });
      }
      if (path === '/rate-limits' && req.method === 'GET') return reply(res, 200, tally.counts());
      if (path === '/connections' && req.method === 'GET')
        return reply(res, 200, {
          connections: streams
            .connections()
            .filter((c) => !c.closed)
            .map((c) => c.describe()),
        });
      reply(res, 404, { error: `no route ${req.method} ${path}` });
    } catch (err) {
      if (err instanceof FaultSpecError) return reply(res, 422, { error: err.message });
      reply(res, 500, { error: (err as Error).message });
    }
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
