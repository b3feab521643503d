import { fileURLToPath } from 'node:url';

/**
 * Files of the package that stay where they are when the code is compiled (sql/, dashboards/,
 * workflows' TypeScript, the viewer's client scripts). Compiled, this module sits one folder
 * deeper (dist/src/util/package-root.js instead of src/util/package-root.ts), so paths are taken
 * from the package root rather than from the importing module.
 */
const HERE = fileURLToPath(import.meta.url);

/** True when this process runs the JavaScript that scripts/build.mjs compiled into dist/. */
export const COMPILED = HERE.endsWith('.js');

const ROOT = fileURLToPath(new URL(COMPILED ? '../../../' : '../../', import.meta.url));

/** `relative` (for example 'sql/' or 'workflows/sync-workflows.ts') inside the package. */
export function packagePath(relative: string): string {
  return ROOT + relative;
}
