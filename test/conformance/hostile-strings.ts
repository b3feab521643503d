import { readFileSync } from 'node:fs';

/** Parameter values that break naive escaping; the Python, Java and JS parts each send all of them. */
export const HOSTILE_STRINGS: readonly string[] = JSON.parse(
  readFileSync(new URL('./hostile-strings.json', import.meta.url), 'utf8'),
);
