import { createRequire } from 'node:module';

/** The first @clickhouse/client that honours `createClient({ connection })`. */
export const MIN_CLIENT_VERSION = '1.23.0';

/** Installed version of @clickhouse/client, read from its package.json. */
export function installedClientVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = require('@clickhouse/client/package.json') as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('@clickhouse/client/package.json has no version');
  return pkg.version;
}

/**
 * Refuses a client older than 1.23: 1.22 silently ignores `connection` and dials
 * localhost:8123, so "chDB" would be an HTTP client talking to whatever listens there.
 */
export function assertClientHonoursConnection(version: string = installedClientVersion()): void {
  if (compareVersions(version, MIN_CLIENT_VERSION) < 0) {
    throw new Error(
      `@clickhouse/client ${version} is too old for chDB: versions before ${MIN_CLIENT_VERSION} ignore ` +
        `the 'connection' option and connect to localhost:8123 instead. Run: npm install @clickhouse/client@^${MIN_CLIENT_VERSION}`,
    );
  }
}

/** Compares the numeric core of two semver strings (pre-release tags sort before the release). */
export function compareVersions(a: string, b: string): number {
  const [coreA, preA] = splitVersion(a);
  const [coreB, preB] = splitVersion(b);
  for (let i = 0; i < 3; i++) {
    const diff = (coreA[i] ?? 0) - (coreB[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  if (preA === preB) return 0;
  if (preA === '') return 1;
  if (preB === '') return -1;
  return preA < preB ? -1 : 1;
}

function splitVersion(version: string): [number[], string] {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([^+]*))?/.exec(version.trim());
  if (!match) throw new Error(`not a version: ${JSON.stringify(version)}`);
  return [[Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)], match[4] ?? ''];
}
