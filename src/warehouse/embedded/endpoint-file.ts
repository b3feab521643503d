import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { alive } from '../../util/file-lock.ts';

/** Where the process owning a data directory says how to reach it. */
export function endpointFileOf(dataDir: string): string {
  return join(resolve(dataDir), 'endpoint.json');
}

/** What the process owning a data directory publishes about its read-only HTTP endpoint. */
export interface EndpointInfo {
  url: string;
  pid: number;
  started_at: string;
}

export function writeEndpointFile(dataDir: string, info: EndpointInfo): void {
  const path = endpointFileOf(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(info, null, 2)}\n`);
  renameSync(temporary, path); // readers never see a half-written file
}

export function readEndpointFile(dataDir: string): EndpointInfo | undefined {
  try {
    const parsed = JSON.parse(readFileSync(endpointFileOf(dataDir), 'utf8')) as Partial<EndpointInfo>;
    if (typeof parsed.url === 'string' && typeof parsed.pid === 'number') {
      return { url: parsed.url, pid: parsed.pid, started_at: String(parsed.started_at ?? '') };
    }
  } catch {
    // absent or unreadable: no endpoint
  }
  return undefined;
}

/** Removes the file if it is ours (or stale); never another live process's. */
export function removeEndpointFile(dataDir: string, owner: number = process.pid): void {
  const info = readEndpointFile(dataDir);
  if (info && info.pid !== owner && alive(info.pid)) return;
  rmSync(endpointFileOf(dataDir), { force: true });
}

/** The endpoint the file names, if its process is alive (whether it answers is not asked). */
export function namedEndpoint(dataDir: string): EndpointInfo | undefined {
  const info = readEndpointFile(dataDir);
  return info && alive(info.pid) ? info : undefined;
}

/** The endpoint of the process owning the data directory, if the file names a live one that answers /ping. */
export async function liveEndpoint(dataDir: string, timeoutMs = 2000): Promise<EndpointInfo | undefined> {
  const info = namedEndpoint(dataDir);
  if (!info) return undefined;
  try {
    const response = await fetch(new URL('/ping', info.url), { signal: AbortSignal.timeout(timeoutMs) });
    return response.ok ? info : undefined;
  } catch {
    return undefined;
  }
}
