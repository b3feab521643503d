/**
 * The process environment's one door (lint forbids `process.env` everywhere else in src/,
 * workflows/ and bin/). The settings table (src/cli/settings.ts) reads it, resolves every
 * TAPEHOUSE_* variable once and passes the values down, so no part reads the environment itself;
 * besides, one write and one check, each named for what it is. dependency-cruiser keeps the
 * importers to the table and chDB's allocator (docs/layout.md, "The environment").
 */

/** The variables as they are now (read at each resolution, so a test's stubbed variable counts). */
export function environment(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/**
 * Sets a variable this process's own native libraries read as they load (chDB's jemalloc reads
 * `JE_MALLOC_CONF` once, when libchdb loads), unless the user set it: theirs wins.
 */
export function setVariableForNativeLibrary(name: string, value: string): void {
  process.env[name] ??= value;
}

/** npm started this process (`npx tapehouse`, `npm start`): npm's own variables say so. */
export function startedByNpm(): boolean {
  return Boolean(process.env.npm_execpath || process.env.npm_lifecycle_event);
}
