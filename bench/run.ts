/**
 * `npm run bench -- NAME` runs bench/NAME.ts; without a name it lists them. Each benchmark prints
 * ratios measured within its own run (absolute times on a shared machine are noise).
 */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3))
  .sort();
// Names first, then options for them: `npm run bench -- main-job --rates 20,200`.
const firstOption = process.argv.slice(2).findIndex((arg) => arg.startsWith('--'));
const wanted = firstOption < 0 ? process.argv.slice(2) : process.argv.slice(2, 2 + firstOption);
const passed = firstOption < 0 ? [] : process.argv.slice(2 + firstOption);

if (wanted.length === 0) {
  process.stdout.write(
    `usage: npm run bench -- NAME [NAME…] | all [--option value…]\nbenchmarks: ${names.join(', ')}\n`,
  );
  process.exit(0);
}
const chosen = wanted.includes('all') ? names : wanted;
for (const name of chosen) {
  if (!names.includes(name)) {
    process.stderr.write(`no benchmark named ${name} (have: ${names.join(', ')})\n`);
    process.exit(2);
  }
  process.stdout.write(`\n=== bench/${name}.ts\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${name}.ts`, ...passed], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
