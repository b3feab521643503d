#!/usr/bin/env node
// Compiles src/ and workflows/ to JavaScript under dist/ (dist/src/…, dist/workflows/…), one
// output file per source file, so the CLI starts without compiling TypeScript (issue 37).
// Run by npm's `prepare` at every `npm install` / `npm ci` (also with --omit=dev: esbuild is a
// production dependency). Plain JavaScript on purpose: nothing here needs a dev dependency.
// Workflows are still bundled from their TypeScript sources by the Temporal worker at run time.
import { build } from 'esbuild';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist');

/** Every .ts file under `dir`, as paths relative to the package root. */
function sources(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Keeps every import as an import (no bundling), pointing relative `.ts` imports at `.js`. */
const keepImports = {
  name: 'keep-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const path = args.path.startsWith('.') ? args.path.replace(/\.ts$/, '.js') : args.path;
      return { path, external: true };
    });
  },
};

const started = Date.now();
// The image installs its dependencies before it copies the sources (a cached layer): nothing to
// compile yet; its Dockerfile runs this script again once they are there.
if (!existsSync(join(ROOT, 'src'))) {
  process.stdout.write('tapehouse: no src/ yet, nothing compiled\n');
  process.exit(0);
}
rmSync(OUT, { recursive: true, force: true });
const entryPoints = [...sources('src'), ...sources('workflows')];
await build({
  absWorkingDir: ROOT,
  entryPoints,
  outdir: OUT,
  outbase: '.',
  bundle: true,
  plugins: [keepImports],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
// bin/tapehouse.js runs dist/ only when this stamp is newer than every source file.
writeFileSync(join(OUT, 'BUILT'), `${new Date().toISOString()}\n`);
process.stdout.write(`tapehouse: compiled ${entryPoints.length} files to dist/ in ${Date.now() - started} ms\n`);
