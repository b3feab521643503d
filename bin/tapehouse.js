#!/usr/bin/env node
// Entry point of the `tapehouse` command. Runs the JavaScript that `npm install` compiled into
// dist/ (scripts/build.mjs, npm's `prepare`). When there is no build, or a source file changed
// after it (a developer's tree), it runs the TypeScript sources through tsx's loader instead:
// slower to start, never stale.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url);

/** Newest modification time (ms) of a .ts file under `dir`. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(new URL(dir, root), { withFileTypes: true, recursive: true })) {
    if (!entry.name.endsWith('.ts')) continue;
    newest = Math.max(newest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
  }
  return newest;
}

function builtIsCurrent() {
  const stamp = new URL('dist/BUILT', root);
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return newestSource('src/') <= built && newestSource('workflows/') <= built;
}

let code = '../dist/src/cli/';
if (!builtIsCurrent()) {
  const { register } = await import('tsx/esm/api');
  register();
  code = '../src/cli/';
}
const extension = code.startsWith('../dist/') ? 'js' : 'ts';
const { startedByNpm } = await import(`${code}settings.${extension}`);

// Started by npm (`npx tapehouse …`, `npm start`), this process sits under npm and a shell. A
// supervisor's SIGTERM reaches npm, which exits without passing it on: this process would be
// left running, adopted by init. So when the parent goes away, stop as if SIGTERM had come here.
if (startedByNpm()) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500).unref();
}

const { main } = await import(`${code}main.${extension}`);
process.exitCode = await main(process.argv.slice(2));
